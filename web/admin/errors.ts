// The admin API's errors: ApiError for answers other than 200 (thrown by the
// services, so the CLI can report them too), and the mapping of every service
// error to a status and a body naming the field. Never a 500 for bad input.
import type { NextFunction, Request, Response } from 'express';
import { MissingCredentialsError } from '../context.ts';
import { DeliveryApiError } from '../delivery/index.ts';
import { ActionError, FixValidationError } from '../dispatch/service.ts';
import { CheckNowError } from '../fulfillment/reconcile.ts';
import { DataRequestNotFound } from '../privacy/data-requests.ts';
import { DecryptionError } from '../security/crypto.ts';
import { SettingsValidationError, type FieldErrors } from '../settings/schema.ts';
import { ShopNotFoundError } from '../settings/store.ts';
import { ShopifyAdminError } from '../shopify/admin-api.ts';

/** An API answer other than 200, with field-level errors when a form caused it. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors?: FieldErrors;
  /** A stable name for the problem, so the pages can say it in the merchant's language (error.<code>). */
  readonly code?: string;
  constructor(status: number, message: string, errors?: FieldErrors, code?: string) {
    super(message);
    this.status = status;
    if (errors) this.errors = errors;
    if (code) this.code = code;
  }
}

export function apiErrors(err: unknown, _req: Request, res: Response, next: NextFunction) {
  if (res.headersSent) return next(err);
  if (err instanceof ApiError) return void res.status(err.status).json({ error: err.message, ...(err.code ? { code: err.code } : {}), ...(err.errors ? { errors: err.errors } : {}) });
  if (err instanceof SettingsValidationError) return void res.status(422).json({ error: 'Some settings are not valid', errors: err.fields });
  if (err instanceof FixValidationError) return void res.status(err.status).json({ error: err.message, errors: err.errors });
  if (err instanceof ActionError || err instanceof CheckNowError) return void res.status(err.status).json({ error: err.message });
  if (err instanceof ShopNotFoundError || err instanceof DataRequestNotFound) return void res.status(404).json({ error: err.message });
  if (err instanceof MissingCredentialsError) return void res.status(422).json({ error: err.message });
  if (err instanceof DeliveryApiError) {
    const status = err.kind === 'transient' || err.kind === 'bad_response' ? 502 : 422;
    return void res.status(status).json({ error: `Courier: ${err.message}`, kind: err.kind });
  }
  if (err instanceof ShopifyAdminError) {
    res.locals.log?.warn({ err: err.message }, 'shopify admin request failed');
    return void res.status(502).json({ error: err.message });
  }
  if (err instanceof DecryptionError) return void res.status(409).json({ error: 'Stored courier secrets cannot be read with the current encryption key; enter them again' });
  next(err);
}
