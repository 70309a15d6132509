// The jobs a transition schedules (machine.ts `effects`), always through the
// caller's transaction: the status change and its job commit together or not at all.
import type { Tx } from '../db/client.ts';
import { JOBS, type DeliveryJobData, type DispatchJobData } from '../jobs/names.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Effect } from '../lifecycle/machine.ts';
import { providerOf } from '../db/raw-rows.ts';
import { timelineInsert, type TimelineEntry } from './timeline.ts';

/**
 * A delivery's jobs belong to its shop's fairness group, so the dispatch and write-back queues
 * serve shops in turn and one shop's sale does not hold another's orders (web/jobs/queue.ts
 * guarantee 9). The shop is read only when the caller does not have it.
 */
export async function shopGroup(tx: Tx, deliveryId: string, shopId?: string | null): Promise<{ group?: string }> {
  const group = shopId ?? (await tx.delivery.findUnique({ where: { id: deliveryId }, select: { shopId: true } }))?.shopId;
  return group ? { group } : {};
}

/**
 * One dispatch job per (delivery, generation): a retried transaction cannot queue a second booking.
 * A routing re-check (web/dispatch/dispatcher.ts) has its own key and only books when no request is stored yet.
 */
export async function enqueueDispatch(
  tx: Tx, queue: JobQueue, deliveryId: string, generation: number, recheck?: { recheck: true; singletonKey: string; startAfterMs?: number }, shopId?: string,
): Promise<void> {
  const group = await shopGroup(tx, deliveryId, shopId);
  if (recheck) {
    await queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId, generation, recheck: true }, { singletonKey: recheck.singletonKey, startAfterMs: recheck.startAfterMs, ...group });
    return;
  }
  await queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId, generation }, { singletonKey: `dispatch:${deliveryId}:${generation}`, ...group });
}

/**
 * Statuses often arrive in bursts and are processed concurrently, so one may
 * be recorded a moment after a later one. Waiting briefly lets a burst be
 * written to Shopify together, in progression order, instead of a late lower
 * status falling below what Shopify already shows.
 */
export const SYNC_DELAY_MS = 750;

// No singleton key: a sync queued while another runs must not be dropped; the lease in sync.ts serialises them.
export const syncOptions = (group: { group?: string }) => ({ startAfterMs: SYNC_DELAY_MS, ...group });

export async function enqueueSync(ctx: { queue: JobQueue }, tx: Tx, deliveryId: string, shopId?: string): Promise<void> {
  await ctx.queue.enqueue<DeliveryJobData>(tx, JOBS.fulfillmentSync, { deliveryId }, syncOptions(await shopGroup(tx, deliveryId, shopId)));
}

/** A timeline line and the sync it calls for: one statement on PostgreSQL (JobQueue.insertWithJobIn), not two. */
export async function addEventAndSync(ctx: { queue: JobQueue }, tx: Tx, deliveryId: string, entry: TimelineEntry, shopId?: string): Promise<void> {
  const group = await shopGroup(tx, deliveryId, shopId);
  await ctx.queue.insertWithJobIn<DeliveryJobData>(tx, timelineInsert(providerOf(tx), deliveryId, entry), JOBS.fulfillmentSync, { deliveryId }, syncOptions(group));
}

export async function enqueueWriteback(tx: Tx, queue: JobQueue, deliveryId: string, generation: number, shopId?: string): Promise<void> {
  await queue.enqueue<DeliveryJobData>(tx, JOBS.writeback, { deliveryId }, { singletonKey: `writeback:${deliveryId}:${generation}`, ...(await shopGroup(tx, deliveryId, shopId)) });
}

export async function runEffects(tx: Tx, queue: JobQueue | null, effects: readonly Effect[], deliveryId: string, generation: number, shopId?: string): Promise<void> {
  if (effects.length && !queue) throw new Error(`a transition with effects (${effects.join(', ')}) needs the job queue`);
  // Read once for all of this transition's jobs.
  const shop = effects.length ? (await shopGroup(tx, deliveryId, shopId)).group : undefined;
  for (const e of effects) {
    if (e === 'dispatch') await enqueueDispatch(tx, queue!, deliveryId, generation, undefined, shop);
    else if (e === 'writeback') await enqueueWriteback(tx, queue!, deliveryId, generation, shop);
    else await queue!.enqueue<DeliveryJobData>(tx, JOBS.fulfillmentSync, { deliveryId }, shop ? { group: shop } : {});
  }
}
