// What the operator sees of the inbox (`npm run cli -- inbox`): webhooks that could not be
// processed, and waiting ones. A failed row keeps its body (encrypted) so a retry can run it.
import type { Db } from '../db/client.ts';

export interface InboxReport {
  pending: number;
  failed: Array<{ id: number; source: string; topic: string; shop: string; webhookId: string; attempts: number; reason: string | null; receivedAt: Date }>;
}

export async function inboxReport(db: Db, limit = 200): Promise<InboxReport> {
  const [pending, failed] = await Promise.all([
    db.webhookInbox.count({ where: { state: 'pending' } }),
    db.webhookInbox.findMany({ where: { state: 'failed' }, orderBy: { id: 'desc' }, take: limit }),
  ]);
  return {
    pending,
    failed: failed.map((r) => ({ id: r.id, source: r.source, topic: r.topic, shop: r.shop, webhookId: r.key, attempts: r.attempts, reason: r.outcome, receivedAt: r.receivedAt })),
  };
}

/** Puts failed rows (one, or all) back to pending, due now, with a fresh attempt budget. Returns how many. */
export async function retryInbox(db: Db, which: number | 'all', now: number): Promise<number> {
  const r = await db.webhookInbox.updateMany({
    where: { state: 'failed', ...(which === 'all' ? {} : { id: which }) },
    data: { state: 'pending', attempts: 0, nextAttemptAt: new Date(now), processedAt: null },
  });
  return r.count;
}
