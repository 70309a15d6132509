// Bulk actions' pure parts: the request check, what each error means for one
// order's result, and the bounded fan-out. No I/O (test/unit/admin-bulk.test.ts).
import { refusalOf, refusalOfStatus } from '../../dispatch/actions.ts';
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
  // The admin's own refusals (ApiError) first; the rest are the actions' (shared with Flow).
  return e instanceof ApiError ? refusalOfStatus(e, 'cannot_quote') : refusalOf(e);
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
