// The request this extension sends to POST /api/bulk, built from the
// selection (`shopify.data.selected`: order GIDs). Pure, so a unit test feeds it
// to the server's own parser (test/unit/admin-bulk.test.ts).
import type { BulkAction, BulkRequest, BulkResult } from '../../../web/admin/contract.ts';

/** The endpoint's limit (web/admin/services/bulk-rules.ts BULK_MAX_ORDERS; the unit test keeps them equal). */
export const BULK_MAX = 50;

export function bulkRequest(action: BulkAction, selected: ReadonlyArray<{ id: string }>): BulkRequest {
  return { action, orderIds: selected.map((s) => s.id) };
}

/** POST the request; a non-200 answer becomes an Error with the app's message. */
export async function sendBulk(request: BulkRequest, fetchFn: typeof fetch = fetch): Promise<BulkResult> {
  const res = await fetchFn('/api/bulk', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
  const body = (await res.json().catch(() => null)) as { error?: string } | null;
  if (!res.ok) throw new Error(body?.error ?? `The app answered HTTP ${res.status}`);
  return body as BulkResult;
}
