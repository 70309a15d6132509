// Sends the Flow triggers the lifecycle wrote to its outbox (FlowTriggerEvent,
// web/transitions/flow-outbox.ts). A relay polls for pending rows and queues one
// `flow-trigger` job per row (the row moves to `queued` in the job's own
// transaction); the job sends it with flowTriggerReceive through the Admin API
// client every other Shopify call uses, then marks it sent and drops its snapshot.
//
// Guarantees:
// - One row per transition, so one send per transition: a row already sent,
//   skipped or failed is never sent again, and a job that crashed before the
//   call runs again and sends it once.
// - Not covered: the process dying after Shopify accepted the call and before
//   the row is marked sent. Shopify offers no idempotency key for
//   flowTriggerReceive, so that one window can send a trigger twice.
// - Shopify's refusal (userErrors, 4xx) fails the row with the reason; other
//   failures are retried by the job queue, then fail the row.
import type { AppContext } from '../context.ts';
import { JOBS, type FlowTriggerJobData } from '../jobs/names.ts';
import type { FlowTrigger } from '../lifecycle/machine.ts';
import type { FlowSnapshot } from '../transitions/flow-outbox.ts';
import { errorMessage } from '../ops/errors.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { sendFlowTrigger } from '../shopify/operations.ts';
import { workPaced } from '../shopify/paced-jobs.ts';
import { PollLoop } from '../jobs/poll-loop.ts';
import { buildTriggerPayload, skipReason } from './payloads.ts';

export const FLOW_TRIGGER_RETRY = { maxAttempts: 8, baseDelayMs: 2_000, maxDelayMs: 5 * 60_000 };
/** How often the relay looks for triggers written since (one indexed read), while passes find some; see FLOW_RELAY_IDLE_LIMIT. */
export const FLOW_RELAY_INTERVAL_MS = 1_000;
const RELAY_BATCH = 50;
/** While passes find nothing, the relay reads at most this many intervals apart (1 s → 4 s). */
const FLOW_RELAY_IDLE_LIMIT = 4;

/** Queues a send job for each pending outbox row; returns how many. */
export async function relayFlowTriggers(ctx: AppContext): Promise<number> {
  const due = await ctx.db.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "FlowTriggerEvent" WHERE "state" = 'pending' ORDER BY "createdAt" LIMIT ${RELAY_BATCH}`;
  let queued = 0;
  for (const { id } of due) {
    await ctx.db.$transaction(async (tx) => {
      const claimed = await tx.flowTriggerEvent.updateMany({ where: { id, state: 'pending' }, data: { state: 'queued' } });
      if (!claimed.count) return; // another instance's relay took it
      await ctx.queue.enqueue<FlowTriggerJobData>(tx, JOBS.flowTrigger, { eventId: id }, { singletonKey: `flow-trigger:${id}` });
      queued++;
    });
  }
  if (queued) ctx.queue.notify();
  return queued;
}

/** The relay loop of a worker process; stop() waits for a pass under way. */
export function startFlowRelay(ctx: AppContext, intervalMs = FLOW_RELAY_INTERVAL_MS): { stop(): Promise<void> } {
  const loop = new PollLoop({
    baseMs: intervalMs,
    limit: FLOW_RELAY_IDLE_LIMIT, // a quiet outbox is read less often
    pass: async () => (await relayFlowTriggers(ctx)) > 0,
    onError: (e) => ctx.log.error({ err: errorMessage(e) }, 'flow triggers: relay pass failed'),
    unref: true,
  });
  loop.start();
  return loop;
}

async function finish(ctx: AppContext, id: string, state: 'sent' | 'skipped' | 'failed', outcome: string | null): Promise<void> {
  await ctx.db.flowTriggerEvent.updateMany({
    where: { id, state: 'queued' },
    data: { state, outcome, snapshot: null, ...(state === 'sent' ? { sentAt: new Date(ctx.now()) } : {}) },
  });
}

/** Sends one queued trigger (the `flow-trigger` job). */
export async function sendQueuedTrigger(ctx: AppContext, eventId: string): Promise<void> {
  const e = await ctx.db.flowTriggerEvent.findUnique({
    where: { id: eventId },
    include: { delivery: { select: { shop: { select: { id: true, domain: true, settings: true, uninstalledAt: true } } } } },
  });
  if (!e || e.state !== 'queued' || !e.snapshot) return;
  const shop = e.delivery.shop;
  const log = ctx.log.child({ component: 'flow', shop: shop.domain, trigger: e.trigger, deliveryId: e.deliveryId });
  const snapshot = JSON.parse(e.snapshot) as FlowSnapshot;
  const used = await ctx.db.flowTriggerUsage.count({ where: { shopId: shop.id, enabled: true, trigger: { in: [e.trigger, '*'] } } });
  const skip = skipReason({
    installed: !shop.uninstalledAt,
    used: used > 0,
    testDelivery: snapshot.environment === 'test',
    sendTestDeliveries: parseStoredSettings(shop.settings).flow.sendTestDeliveries,
  });
  if (skip) {
    await finish(ctx, e.id, 'skipped', skip);
    log.info({ reason: skip }, 'flow trigger not sent');
    return;
  }
  let payload: Record<string, unknown>;
  try {
    payload = buildTriggerPayload(e.trigger as FlowTrigger, snapshot);
  } catch (err) {
    await finish(ctx, e.id, 'failed', errorMessage(err));
    log.error({ err: errorMessage(err) }, 'flow trigger could not be built');
    return;
  }
  // Counted before the call, so a crash during it still counts; a deferral takes it back (registerFlowTriggerJobs).
  await ctx.db.flowTriggerEvent.update({ where: { id: e.id }, data: { attempts: { increment: 1 } }, select: { id: true } });
  await sendFlowTrigger(ctx.admin, shop.domain, e.trigger, payload);
  await finish(ctx, e.id, 'sent', null);
  log.info('flow trigger sent');
}

export async function registerFlowTriggerJobs(ctx: AppContext): Promise<void> {
  await workPaced<FlowTriggerJobData>(ctx, JOBS.flowTrigger, (job) => sendQueuedTrigger(ctx, job.data.eventId), {
    // Deferred for the shop's API budget: not an attempt. Only the Shopify call defers, after the count.
    onDeferred: async (tx, job) => {
      await tx.flowTriggerEvent.update({ where: { id: job.data.eventId }, data: { attempts: { decrement: 1 } }, select: { id: true } });
    },
    concurrency: 2,
    retry: FLOW_TRIGGER_RETRY,
    onExhausted: async (job, error) => {
      await finish(ctx, job.data.eventId, 'failed', `Shopify did not take the trigger: ${errorMessage(error)}`);
      ctx.log.error({ component: 'flow', eventId: job.data.eventId, err: errorMessage(error) }, 'flow trigger failed');
    },
  });
}
