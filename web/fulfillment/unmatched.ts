// Courier events that match no delivery, in front of the merchant: listed with
// the raw event, when it came and the ids tried; attached to a delivery (the
// id is learned, and every waiting event naming it applies) or dismissed.
// Shared by the admin API and the CLI.
import type { AppContext } from '../context.ts';
import { addCourierRefs } from './refs.ts';
import { allowedActions, BOOKED, factsOf, type DeliveryStatus } from '../lifecycle/machine.ts';
import { addEvent } from '../transitions/timeline.ts';
import { ActionError } from '../transitions/transition.ts';
import { applyEvent } from './events.ts';
import { readExchange, readTriedIds } from '../db/json-columns.ts';

export async function countUnmatched(ctx: AppContext, shopDomain: string): Promise<number> {
  return ctx.db.courierEvent.count({ where: { state: 'UNMATCHED', environment: { shop: { domain: shopDomain } } } });
}

export async function listUnmatched(ctx: AppContext, shopDomain: string, opts: { limit?: number } = {}) {
  const rows = await ctx.db.courierEvent.findMany({
    where: { state: 'UNMATCHED', environment: { shop: { domain: shopDomain } } },
    include: { environment: { select: { environment: true } } },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(opts.limit ?? 100, 1), 500),
  });
  return {
    count: await countUnmatched(ctx, shopDomain),
    events: rows.map((e) => ({
      id: e.id,
      eventId: e.eventId,
      environment: e.environment.environment,
      type: e.type,
      deliveryRef: e.deliveryRef,
      status: e.status,
      occurredAt: e.occurredAt,
      receivedAt: e.receivedAt,
      attempts: e.attempts,
      nextAttemptAt: e.nextAttemptAt,
      triedIds: readTriedIds(e.triedIds) ?? (e.deliveryRef ? [e.deliveryRef] : []),
      lastError: e.lastError,
      raw: readExchange(e.payload),
    })),
  };
}

async function loadUnmatched(ctx: AppContext, shopDomain: string, eventRowId: string) {
  const ev = await ctx.db.courierEvent.findFirst({
    where: { OR: [{ id: eventRowId }, { eventId: eventRowId }], environment: { shop: { domain: shopDomain } } },
    include: { environment: true },
  });
  if (!ev) throw new ActionError(`courier event ${eventRowId} not found`, 404);
  if (ev.state !== 'UNMATCHED') throw new ActionError(`courier event ${ev.eventId} is ${ev.state}, not unmatched`);
  return ev;
}

/**
 * The merchant says which delivery an event belongs to. Its courier id becomes
 * a ref of that delivery, so this event and every other waiting one naming the
 * same id apply, in arrival order, and later ones match directly.
 */
export async function attachEvent(ctx: AppContext, shopDomain: string, eventRowId: string, deliveryId: string): Promise<{ applied: number }> {
  const ev = await loadUnmatched(ctx, shopDomain, eventRowId);
  // A delivery id, a Shopify order id or an order name (#1001), within this shop.
  const name = deliveryId.startsWith('#') ? deliveryId : `#${deliveryId}`;
  const d = await ctx.db.delivery.findFirst({ where: { shopId: ev.environment.shopId, OR: [{ id: deliveryId }, { shopifyOrderId: deliveryId }, { orderName: name }] } });
  if (!d) throw new ActionError(`delivery ${deliveryId} not found`, 404);
  if ((d.environment ?? 'test') !== ev.environment.environment) throw new ActionError(`the event came from the ${ev.environment.environment} courier; the delivery was booked with ${d.environment}`, 422);
  if (!d.courierOrderId || (!BOOKED.includes(d.status as DeliveryStatus) && d.status !== 'NEEDS_ATTENTION')) {
    throw new ActionError(`delivery is ${d.status} with no courier order; only a booked delivery can take courier events`, 422);
  }
  if (!ev.deliveryRef || !ev.status) throw new ActionError('the event names no delivery id or status', 422);
  const owner = await ctx.db.courierRef.findFirst({ where: { shopId: d.shopId, environment: ev.environment.environment, value: ev.deliveryRef } });
  if (owner && owner.deliveryId !== d.id) throw new ActionError(`courier id ${ev.deliveryRef} already belongs to another delivery`, 409);
  const waiting = () => ctx.db.courierEvent.findMany({
    where: { environmentId: ev.environmentId, state: 'UNMATCHED', deliveryRef: ev.deliveryRef },
    orderBy: [{ occurredAt: 'asc' }, { receivedAt: 'asc' }],
  });
  const now = new Date(ctx.now());
  const apply = async (events: Awaited<ReturnType<typeof waiting>>) => {
    for (const w of events) {
      await applyEvent(ctx, w.id, d.id, now, w.id === ev.id ? { message: `Courier event ${ev.eventId} (courier id ${ev.deliveryRef}) attached by the merchant` } : {}, { generation: d.generation });
    }
    return events.length;
  };
  // Applied before the id is learned: until then neither the live path nor a rematch pass can match
  // these events, so the merchant's attach applies every one of them, in order, with its own line.
  const before = await apply(await waiting());
  await addCourierRefs(ctx.db, d.id, d.shopId, ev.environment.environment, d.generation, [['delivery', ev.deliveryRef]]);
  if (!d.courierDeliveryId) await ctx.db.delivery.update({ where: { id: d.id }, data: { courierDeliveryId: ev.deliveryRef } });
  // Any that arrived while it was being learned (a rematch pass may take them first; the claim lets one win).
  return { applied: before + (await apply(await waiting())) };
}

export async function dismissEvent(ctx: AppContext, shopDomain: string, eventRowId: string): Promise<void> {
  const ev = await loadUnmatched(ctx, shopDomain, eventRowId);
  await ctx.db.courierEvent.update({ where: { id: ev.id }, data: { state: 'DISMISSED', processedAt: new Date(ctx.now()), nextAttemptAt: null } });
}

/** The merchant cancelled the extra courier orders: the delivery carries on with the one this app tracks. */
export async function resolveDuplicates(ctx: AppContext, shopDomain: string, deliveryId: string): Promise<void> {
  const d = await ctx.db.delivery.findFirst({ where: { id: deliveryId, shop: { domain: shopDomain } } });
  if (!d) throw new ActionError(`delivery ${deliveryId} not found`, 404);
  if (!allowedActions(factsOf(d)).includes('resolve')) throw new ActionError('this delivery has no duplicate courier orders to resolve');
  const entry = d.reasonCode === 'address_changed'
    ? { kind: 'address_change_resolved', message: 'Marked resolved: the courier was given the new address' }
    : { kind: 'duplicates_resolved', message: `Marked resolved: the extra courier orders were cancelled; tracking ${d.courierOrderId}` };
  await ctx.db.$transaction(async (tx) => {
    await tx.delivery.update({ where: { id: d.id }, data: { reasonCode: null, reason: null } });
    await addEvent(tx, d.id, { ...entry, source: 'merchant' });
  });
}
