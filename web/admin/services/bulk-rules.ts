// Bulk actions' pure parts: the request check, what each error means for one
// order's result, and the bounded fan-out. No I/O (test/unit/admin-bulk.test.ts).
import { MissingCredentialsError } from '../../context.ts';
import { DeliveryApiError } from '../../delivery/index.ts';
import { courierErrorText, reasonForCourierError } from '../../dispatch/dispatcher.ts';
import { ActionError } from '../../dispatch/service.ts';
import { DecryptionError } from '../../security/crypto.ts';
import { ShopifyAdminError } from '../../shopify/admin-api.ts';
import type { BulkAction, BulkOrderResult, BulkRequest } from '../contract.ts';
import { ApiError } from '../errors.ts';

export const BULK_ACTIONS = ['dispatch', 'retry', 'quote'] as const satisfies readonly BulkAction[];
/** The most orders one request may name: the orders list's page, and a bounded wait for the merchant. */
export const BULK_MAX_ORDERS = 50;
/** Orders worked on at once: the courier and Shopify see at most this many calls from one request. */
export const BULK_CONCURRENCY = 4;

const ORDER_ID = /^(?:gid:\/\/shopify\/Order\/)?(\d{1,20})$/;

/** The body of POST /api/bulk, or the 400 naming the field. Ids come back numeric, each once, in the order given. */
export function parseBulkRequest(body: unknown): BulkRequest {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const errors: Record<string, string> = {};
  const action = b.action;
  if (typeof action !== 'string' || !(BULK_ACTIONS as readonly string[]).includes(action)) errors.action = `expected one of ${BULK_ACTIONS.join(', ')}`;
  const ids: string[] = [];
  const raw = b.orderIds;
  if (!Array.isArray(raw) || raw.length === 0) errors.orderIds = 'expected a non-empty list of Shopify order ids';
  else if (raw.length > BULK_MAX_ORDERS) errors.orderIds = `at most ${BULK_MAX_ORDERS} orders at a time (got ${raw.length})`;
  else {
    raw.forEach((v, i) => {
      const m = typeof v === 'string' ? ORDER_ID.exec(v) : null;
      if (!m) errors[`orderIds.${i}`] = 'expected a numeric Shopify order id or its GID';
      else if (!ids.includes(m[1]!)) ids.push(m[1]!);
    });
  }
  const fields = Object.keys(errors);
  if (fields.length) throw new ApiError(400, `Bulk request not valid: ${fields.join(', ')}`, errors);
  return { action: action as BulkAction, orderIds: ids };
}

export type Outcome = Pick<BulkOrderResult, 'outcome' | 'code' | 'message'>;

/** One order's failure as its result; null for an error no rule covers (a bug: the caller logs it). */
export function outcomeOfError(e: unknown): Outcome | null {
  if (e instanceof ActionError || e instanceof ApiError) {
    if (e.status === 404) return { outcome: 'not_found', code: null, message: e.message };
    // 422: the order cannot go as it is (eligibility, or a request that cannot be built); 409: the lifecycle table refused.
    const code = e.status === 422 ? (e instanceof ActionError ? 'not_eligible' : 'cannot_quote') : 'not_allowed';
    return { outcome: 'refused', code, message: e.message };
  }
  if (e instanceof DeliveryApiError) {
    const code = e.kind === 'transient' || e.kind === 'bad_response' ? 'courier_unavailable' : reasonForCourierError(e);
    return { outcome: 'refused', code, message: `Courier: ${courierErrorText(e)}` };
  }
  if (e instanceof MissingCredentialsError) return { outcome: 'refused', code: 'courier_credentials', message: e.message };
  if (e instanceof ShopifyAdminError) return { outcome: 'refused', code: 'shopify_error', message: e.message };
  if (e instanceof DecryptionError) return { outcome: 'refused', code: 'secrets_unreadable', message: 'Stored courier secrets cannot be read with the current encryption key; enter them again' };
  return null;
}

/** fn over items, at most `limit` at a time; results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export function countOutcomes(results: readonly BulkOrderResult[]): Record<BulkOrderResult['outcome'], number> {
  const counts = { ok: 0, refused: 0, not_found: 0 };
  for (const r of results) counts[r.outcome]++;
  return counts;
}
