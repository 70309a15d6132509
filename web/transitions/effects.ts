// The jobs a transition schedules (machine.ts `effects`), always through the
// caller's transaction: the status change and its job commit together or not at all.
import type { Tx } from '../db/client.ts';
import { JOBS, type DeliveryJobData, type DispatchJobData } from '../jobs/names.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Effect } from '../lifecycle/machine.ts';

/**
 * One dispatch job per (delivery, generation): a retried transaction cannot queue a second booking.
 * A routing re-check (web/dispatch/dispatcher.ts) has its own key and only books when no request is stored yet.
 */
export async function enqueueDispatch(
  tx: Tx, queue: JobQueue, deliveryId: string, generation: number, recheck?: { recheck: true; singletonKey: string; startAfterMs?: number },
): Promise<void> {
  if (recheck) {
    await queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId, generation, recheck: true }, { singletonKey: recheck.singletonKey, startAfterMs: recheck.startAfterMs });
    return;
  }
  await queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId, generation }, { singletonKey: `dispatch:${deliveryId}:${generation}` });
}

/**
 * Statuses often arrive in bursts and are processed concurrently, so one may
 * be recorded a moment after a later one. Waiting briefly lets a burst be
 * written to Shopify together, in progression order, instead of a late lower
 * status falling below what Shopify already shows.
 */
export const SYNC_DELAY_MS = 750;

export async function enqueueSync(ctx: { queue: JobQueue }, tx: Tx, deliveryId: string): Promise<void> {
  // No singleton key: a sync queued while another runs must not be dropped; the lease in sync.ts serialises them.
  await ctx.queue.enqueue<DeliveryJobData>(tx, JOBS.fulfillmentSync, { deliveryId }, { startAfterMs: SYNC_DELAY_MS });
}

export async function enqueueWriteback(tx: Tx, queue: JobQueue, deliveryId: string, generation: number): Promise<void> {
  await queue.enqueue<DeliveryJobData>(tx, JOBS.writeback, { deliveryId }, { singletonKey: `writeback:${deliveryId}:${generation}` });
}

export async function runEffects(tx: Tx, queue: JobQueue | null, effects: readonly Effect[], deliveryId: string, generation: number): Promise<void> {
  if (effects.length && !queue) throw new Error(`a transition with effects (${effects.join(', ')}) needs the job queue`);
  for (const e of effects) {
    if (e === 'dispatch') await enqueueDispatch(tx, queue!, deliveryId, generation);
    else if (e === 'writeback') await enqueueWriteback(tx, queue!, deliveryId, generation);
    else await queue!.enqueue<DeliveryJobData>(tx, JOBS.fulfillmentSync, { deliveryId });
  }
}
