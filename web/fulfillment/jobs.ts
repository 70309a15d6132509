// The fulfillment side's queues: courier events, Shopify sync, rematching, reconciliation.
import type { AppContext } from '../context.ts';
import { JOBS, type CourierEventJobData, type DeliveryJobData, type RematchJobData } from '../jobs/names.ts';
import { errorMessage } from '../ops/errors.ts';
import { FULFILLMENT_RETRY } from '../retry/budget.ts';
import { workPaced } from '../shopify/paced-jobs.ts';
import { processCourierEvent, rematchEvents } from './events.ts';
import { reconcileOnce } from './reconcile.ts';
import { runFulfillmentSync, shopifyAttention } from './sync.ts';

/**
 * Courier events applied at once per process (of different deliveries). SQLite: one connection whose
 * lock passes statement by statement, so more jobs in flight keep it busy (bench:events 248 events/s at
 * 8, 314 at 32, 325–355 at 64). PostgreSQL: fetched 12 at a time by each of 2 workers, so a fetch (a
 * scan of the waiting deliveries' heads) and a settle serve 12 events, not one: on 2 cores most of the
 * app's time was socket writes, one per statement (bench:events 2000 events in 25 s at 8 × 1, 15 s at
 * 2 × 12; docs/benchmarks.md, thirteenth session).
 */
export const COURIER_EVENT_WORKERS = { sqlite: { concurrency: 32 }, postgres: { concurrency: 24, batch: 12 } } as const;

/** The ordering key of a courier event's job: one delivery's events (by the courier's id for it) run in order. */
export function courierEventOrderingKey(environmentId: string, deliveryRef: string | null, eventRowId: string): string {
  return `${environmentId}:${deliveryRef ?? `event:${eventRowId}`}`.slice(0, 200);
}

export interface FulfillmentJobOptions {
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** How often reconciliation runs (one run per interval across all instances); 0 = never. */
  reconcileIntervalMs?: number;
}

export async function registerFulfillmentJobs(ctx: AppContext, opts: FulfillmentJobOptions = {}): Promise<void> {
  const retry = { ...FULFILLMENT_RETRY, ...opts.retry };
  // One delivery's events one at a time, in arrival order (the ordering key names the delivery), so
  // none lands below what Shopify already shows; different deliveries' events run side by side.
  await ctx.queue.work<CourierEventJobData>(JOBS.courierEvents, (job) => processCourierEvent(ctx, job.data, { running: job }), { ...COURIER_EVENT_WORKERS[ctx.database.provider], ordered: true, retry });
  // Jobs enqueued by an earlier version, without ordering keys: one at a time, as they were.
  await ctx.queue.work<CourierEventJobData>(JOBS.courierEvent, (job) => processCourierEvent(ctx, job.data), { concurrency: 1, retry });
  await workPaced<DeliveryJobData>(ctx, JOBS.fulfillmentSync, (job) => runFulfillmentSync(ctx, job.data.deliveryId), {
    concurrency: 4,
    groupConcurrency: 3,
    retry,
    onExhausted: (job, error) => shopifyAttention(ctx, job.data.deliveryId, `Could not update the Shopify order: ${errorMessage(error)}`),
  });
  await ctx.queue.work<RematchJobData>(JOBS.rematch, async (job) => void (await rematchEvents(ctx, job.data)), { concurrency: 1, retry });
  const every = opts.reconcileIntervalMs ?? 60_000;
  if (every > 0) await ctx.queue.every(JOBS.reconcile, every, async () => void (await reconcileOnce(ctx)));
}
