// A job whose Shopify call would wait long for the shop's budget gives back its
// worker: the same job is queued again for when the budget pays, and this run ends
// without failing (no attempt spent). Meanwhile the workers serve other shops' jobs,
// so one shop's sale does not hold another shop's orders (docs/shopify-rate-limits.md).
import type { Db, Tx } from '../db/client.ts';
import type { Job, JobQueue, WorkOptions } from '../jobs/queue.ts';
import { holdKey } from '../jobs/policy.ts';
import type { Logger } from '../ops/logger.ts';
import { ShopifyBudgetWait } from './pacer.ts';

/** How long a job's Shopify call may wait for the budget in its worker before it is deferred instead. */
export const DEFER_AFTER_MS = 250;
const MAX_DEFER_MS = 60_000;
/**
 * A deferred background call of a grouped job (a write-back) is woken by the pacer once the budget
 * can pay it (ShopifyBudgetWait.whenRoom → queue.hurry), or at the next start-up (wakeAtStart); its own
 * time is only the fallback, so it need not come back every minute to find the budget still spent.
 * Until the wake, the queue holds the group: jobs enqueued into it are parked from the start.
 */
export const MAX_PARK_MS = 10 * 60_000;

export interface PacedOptions<T> {
  /** Runs in the transaction that queues the deferred job again: e.g. to take back an attempt the handler counted. */
  onDeferred?: (tx: Tx, job: Job<T>) => Promise<void>;
}

/**
 * Registers a worker whose jobs give back their worker while the shop's budget is spent. The wakes of
 * parked jobs live in this process's pacer: the queue is registered with wakeAtStart, so the next
 * start-up makes due the jobs a stopped process parked, instead of leaving them for MAX_PARK_MS. That
 * process knows no budget yet; a job whose budget is still spent parks again, with a wake of its own.
 */
export async function workPaced<T>(
  ctx: { db: Db; queue: JobQueue; log: Logger },
  name: string,
  handler: (job: Job<T>) => Promise<void>,
  opts: WorkOptions<T> & PacedOptions<T> = {},
): Promise<void> {
  const { onDeferred, ...work } = opts;
  await ctx.queue.work<T>(name, paced(ctx, name, handler, onDeferred), { ...work, wakeAtStart: true });
}

function paced<T>(
  ctx: { db: Db; queue: JobQueue; log: Logger },
  name: string,
  handler: (job: Job<T>) => Promise<void>,
  onDeferred: PacedOptions<T>['onDeferred'],
): (job: Job<T>) => Promise<void> {
  return async (job) => {
    try {
      await handler(job);
    } catch (e) {
      if (!(e instanceof ShopifyBudgetWait)) throw e;
      const group = job.group;
      const parked = !!e.whenRoom && group !== null;
      // Capped: the budget is known only as of its last answer; a minute later the job looks again.
      // A parked job is woken when the budget can pay it; until then its time is only the fallback.
      await ctx.db.$transaction(async (tx) => {
        await onDeferred?.(tx, job);
        await ctx.queue.enqueue<T>(tx, name, job.data, { startAfterMs: parked ? MAX_PARK_MS : Math.min(e.leftMs(), MAX_DEFER_MS), ...(group ? { group } : {}) });
      });
      // One wake per queue and group: it makes every job of the group that waits for its time due.
      // Until then the group's new jobs are queued parked too: each would only defer like this one.
      if (parked) {
        ctx.queue.hold(name, group, MAX_PARK_MS);
        e.whenRoom!(holdKey(name, group), () => ctx.queue.hurry(name, group));
      }
      ctx.log.info({ queue: name, jobId: job.id, shop: e.shop, waitMs: e.retryAfterMs, parked }, "the shop's Shopify API budget is spent; the job runs again when it pays");
    }
  };
}
