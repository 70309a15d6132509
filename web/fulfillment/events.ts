// Stored courier events → delivery status. Never drops an event: one that
// matches no delivery yet stays UNMATCHED and is matched again later (when a
// create response is stored, and by reconciliation).
//
// Matching: the spec does not say how data.delivery_id relates to order.id or
// dispatch.id, so every courier id we hold is a CourierRef (order, dispatch,
// delivery), and when nothing matches we ask the courier (GET /v1/orders/:id)
// about our recent bookings whose delivery id we have not learned yet.
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { addCourierRefs } from '../dispatch/refs.ts';
import { errorMessage } from '../ops/errors.ts';
import { addEvent } from '../dispatch/service.ts';
import type { DeliveryStatus } from '../dispatch/status.ts';
import { JOBS, type CourierEventJobData, type DeliveryJobData, type RematchJobData } from '../jobs/names.ts';
import { courierAccessFromRow } from '../settings/store.ts';
import { decideEvent, normaliseStatus } from './progress.ts';

/** Bookings asked about per unmatched event, newest first. */
const LEARN_LIMIT = 25;

const WHY_TEXT = {
  unknown_status: 'unknown courier status: recorded, not applied',
  stale: 'arrived after a later status: recorded, not applied',
  duplicate: 'same step as the current status: recorded, not applied',
  after_terminal: 'arrived after a final status: recorded, not applied',
} as const;

export interface StatusInput {
  status: string;
  occurredAt: Date;
  source: 'webhook' | 'reconcile';
  courierEventId?: string | null;
}

/**
 * Records one courier status on the delivery's timeline and applies it when it
 * moves the delivery forward. The rank guard in the UPDATE makes concurrent
 * events safe: a lower rank can never overwrite a higher one.
 */
export async function applyCourierStatus(tx: Tx, deliveryId: string, input: StatusInput, now: Date): Promise<boolean> {
  const d = await tx.delivery.findUniqueOrThrow({ where: { id: deliveryId } });
  const status = normaliseStatus(input.status);
  const decision = decideEvent({ status: d.status as DeliveryStatus, courierStatus: d.courierStatus, courierStatusRank: d.courierStatusRank }, status);
  let applied = false;
  if (decision.apply) {
    const n = await tx.delivery.updateMany({
      where: { id: deliveryId, courierStatusRank: { lt: decision.rank } },
      data: {
        courierStatus: decision.courierStatus,
        courierStatusRank: decision.rank,
        courierStatusAt: input.occurredAt,
        lastEventAt: now,
        status: decision.status,
        ...(decision.attention ? { reasonCode: decision.attention.code, reason: decision.attention.message } : {}),
      },
    });
    applied = n.count === 1;
  }
  if (!applied) await tx.delivery.update({ where: { id: deliveryId }, data: { lastEventAt: now } });
  await addEvent(tx, deliveryId, {
    kind: 'courier_status',
    status,
    applied,
    source: input.source === 'webhook' ? 'courier' : 'reconcile',
    courierEventId: input.courierEventId ?? null,
    occurredAt: input.occurredAt,
    message: applied ? (decision.apply && decision.attention ? decision.attention.message : null) : WHY_TEXT[decision.apply ? 'stale' : decision.why],
  });
  return applied;
}

export async function matchDelivery(ctx: AppContext, envId: string, ref: string): Promise<string | null> {
  const env = await ctx.db.courierEnvironment.findUniqueOrThrow({ where: { id: envId }, include: { shop: true } });
  const lookup = async () =>
    (await ctx.db.courierRef.findFirst({ where: { shopId: env.shopId, environment: env.environment, value: ref }, orderBy: { generation: 'desc' } }))?.deliveryId ?? null;
  const known = await lookup();
  if (known) return known;

  const candidates = await ctx.db.delivery.findMany({
    where: {
      shopId: env.shopId,
      environment: env.environment,
      courierOrderId: { not: null },
      refs: { none: { kind: 'delivery' } },
      status: { in: ['CREATED', 'IN_PROGRESS', 'CANCEL_REQUESTED_IN_SHOPIFY', 'NEEDS_ATTENTION'] },
    },
    orderBy: { dispatchedAt: 'desc' },
    take: LEARN_LIMIT,
  });
  // A concurrent event may have just learned this id (and so emptied our candidate list).
  if (!candidates.length) return lookup();
  const client = ctx.courier.for(env.shop.domain, courierAccessFromRow(env, ctx.box, ctx.config.courierBaseUrls));
  for (const d of candidates) {
    let view;
    try {
      view = await client.getOrder(d.courierOrderId!);
    } catch (e) {
      ctx.log.warn({ deliveryId: d.id, err: errorMessage(e) }, 'could not read a courier order while matching an event');
      continue;
    }
    await addCourierRefs(ctx.db, d.id, env.shopId, env.environment, d.generation, [
      ['delivery', view.deliveryId],
      ['dispatch', view.dispatchId],
    ]);
    if ([view.id, view.deliveryId, view.dispatchId].includes(ref)) return d.id;
  }
  return lookup();
}

function isTestEvent(payload: string): boolean {
  try {
    return JSON.parse(payload)?.data?.test === true;
  } catch {
    return false;
  }
}

export async function processCourierEvent(ctx: AppContext, job: CourierEventJobData): Promise<void> {
  const ev = await ctx.db.courierEvent.findUnique({ where: { id: job.eventId } });
  if (!ev || ev.state === 'PROCESSED' || ev.state === 'IGNORED') return;
  const log = ctx.log.child({ courierEventId: ev.eventId, environmentId: ev.environmentId });
  const now = new Date(ctx.now());
  if (ev.type !== 'delivery.status.updated' || !ev.deliveryRef || !ev.status || isTestEvent(ev.payload)) {
    await ctx.db.courierEvent.update({ where: { id: ev.id }, data: { state: 'IGNORED', processedAt: now } });
    log.info({ type: ev.type }, 'courier event recorded; nothing to apply');
    return;
  }
  const deliveryId = await matchDelivery(ctx, ev.environmentId, ev.deliveryRef);
  if (!deliveryId) {
    await ctx.db.courierEvent.update({
      where: { id: ev.id },
      data: { state: 'UNMATCHED', attempts: { increment: 1 }, lastError: `no delivery has courier id ${ev.deliveryRef} yet` },
    });
    log.warn({ deliveryRef: ev.deliveryRef }, 'courier event matches no delivery yet; kept UNMATCHED');
    return;
  }
  const applied = await ctx.db.$transaction(async (tx) => {
    const fresh = await tx.courierEvent.findUniqueOrThrow({ where: { id: ev.id } });
    if (fresh.state === 'PROCESSED') return false;
    const ok = await applyCourierStatus(tx, deliveryId, { status: ev.status!, occurredAt: ev.occurredAt ?? ev.receivedAt, source: 'webhook', courierEventId: ev.eventId }, now);
    await tx.courierEvent.update({ where: { id: ev.id }, data: { state: 'PROCESSED', deliveryId, processedAt: now, attempts: { increment: 1 }, lastError: null } });
    if (ok) await enqueueSync(ctx, tx, deliveryId);
    return ok;
  });
  if (applied) ctx.queue.notify();
}

/**
 * Statuses often arrive in bursts and are processed concurrently, so one may
 * be recorded a moment after a later one. Waiting briefly lets a burst be
 * written to Shopify together, in progression order, instead of a late lower
 * status falling below what Shopify already shows.
 */
export const SYNC_DELAY_MS = 750;

export async function enqueueSync(ctx: AppContext, tx: Tx, deliveryId: string): Promise<void> {
  // No singleton key: a sync queued while another runs must not be dropped; the lease in sync.ts serialises them.
  await ctx.queue.enqueue<DeliveryJobData>(tx, JOBS.fulfillmentSync, { deliveryId }, { startAfterMs: SYNC_DELAY_MS });
}

/** Matches again the UNMATCHED events of one environment (after new courier ids were stored). */
export async function rematchEvents(ctx: AppContext, job: RematchJobData, limit = 100): Promise<number> {
  const events = await ctx.db.courierEvent.findMany({
    where: { environmentId: job.environmentId, state: 'UNMATCHED' },
    orderBy: { receivedAt: 'asc' },
    take: limit,
  });
  for (const e of events) await processCourierEvent(ctx, { eventId: e.id });
  return events.length;
}

export async function enqueueRematch(ctx: AppContext, tx: Tx, environmentId: string): Promise<void> {
  const pending = await tx.courierEvent.count({ where: { environmentId, state: 'UNMATCHED' } });
  if (pending) await ctx.queue.enqueue<RematchJobData>(tx, JOBS.rematch, { environmentId }, { singletonKey: `rematch:${environmentId}` });
}
