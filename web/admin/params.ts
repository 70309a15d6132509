// Path parameters of the admin API, checked before any service runs.
import type { Request } from 'express';
import { ENVIRONMENTS, type EnvironmentName } from '../settings/schema.ts';
import { ApiError } from './errors.ts';

export function envParam(req: Request): EnvironmentName {
  const env = String(req.params.env);
  if (!(ENVIRONMENTS as readonly string[]).includes(env)) throw new ApiError(404, `unknown environment '${env}': expected test or live`);
  return env as EnvironmentName;
}

/** A numeric Shopify order id, from the id or its GID. */
export function orderIdParam(req: Request): string {
  // Express has decoded the path segment once already; a second decode would misread '%25'.
  const raw = String(req.params.orderId);
  const id = raw.replace(/^gid:\/\/shopify\/Order\//, '');
  if (!/^\d{1,20}$/.test(id)) throw new ApiError(400, `'${raw.slice(0, 64)}' is not a Shopify order id`, { orderId: 'expected a numeric Shopify order id or its GID' });
  return id;
}
