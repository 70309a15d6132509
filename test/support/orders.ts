// Realistic orders/paid payloads (Shopify REST shape) for tests, built from
// dev/shop-sim/orders/*.json with targeted changes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

export type OrderPayload = Record<string, any>;

export function loadOrderFixture(name: string): OrderPayload {
  return JSON.parse(readFileSync(join(ROOT, 'dev/shop-sim/orders', `${name}.json`), 'utf8'));
}

let seq = 0;
/** A fresh paid order (unique id and name) based on the Sandton fixture, with changes deep-merged. */
export function paidOrder(changes: OrderPayload = {}, base = 'sandton-same-day'): OrderPayload {
  const o = loadOrderFixture(base);
  seq += 1;
  const id = `59${String(Date.now()).slice(-9)}${String(process.pid % 100).padStart(2, '0')}${String(seq).padStart(3, '0')}`;
  o.id = Number(id); // what Shopify sends; exact in the GID below
  o.admin_graphql_api_id = `gid://shopify/Order/${id}`;
  o.name = `#${1000 + seq}`;
  return merge(o, changes);
}

function merge(base: any, changes: any): any {
  if (changes === null || typeof changes !== 'object' || Array.isArray(changes)) return changes;
  const out = { ...base };
  for (const [k, v] of Object.entries(changes)) out[k] = v && typeof v === 'object' && !Array.isArray(v) && base?.[k] ? merge(base[k], v) : v;
  return out;
}

export function orderIdOfPayload(o: OrderPayload): string {
  return String(o.admin_graphql_api_id).split('/').pop()!;
}
