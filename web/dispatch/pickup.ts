// Where (and whether) the dispatch job books: the order's fulfillment orders read
// at dispatch time (the pure decision is web/dispatch/fulfillment-orders.ts).
import type { AppContext } from '../context.ts';
import { enqueueDispatch } from '../transitions/effects.ts';
import { transition } from '../transitions/transition.ts';
import { fetchFulfillmentOrdersForDispatch } from '../shopify/operations.ts';
import { decideFromFulfillmentOrders, decisionForDispatch, type FulfillmentOrderDecision } from './fulfillment-orders.ts';
import { orderGidOf, type OrderSnapshot } from '../order/snapshot.ts';
import type { ReasonCode } from './status.ts';

/** How soon a delivery waiting for Shopify's order routing looks again (the routing webhook wakes it sooner). */
export const ROUTING_RECHECK_MS = 5_000;

/**
 * Where to pick up, read from the order's fulfillment orders now (never the REST
 * location_id, which is the point-of-sale location). Pure decision in fulfillment-orders.ts.
 */
export async function decidePickup(
  ctx: AppContext, shopDomain: string, order: OrderSnapshot,
  o: { routingSeen: boolean; previousLocationId?: string | null; rebooking?: { locationId: string; fulfillmentOrderIds: string[] } | null },
): Promise<FulfillmentOrderDecision> {
  const read = await fetchFulfillmentOrdersForDispatch(ctx.admin, shopDomain, orderGidOf(order));
  if (!read) return { kind: 'attention', code: 'no_assigned_location', message: 'Shopify no longer has this order' };
  const created = Date.parse(read.createdAt);
  const orderAgeMs = Number.isFinite(created) ? ctx.now() - created : Number.POSITIVE_INFINITY;
  const decision = decideFromFulfillmentOrders(read.fulfillmentOrders, { webhookSeen: o.routingSeen, orderAgeMs }, { previousLocationId: o.previousLocationId ?? null });
  return decisionForDispatch(decision, { orderAgeMs, rebooking: o.rebooking ?? null });
}

/**
 * Routing not done: this job ends successfully (no failed attempt is spent) and
 * a re-check job is queued for later; fulfillment_orders/order_routing_complete
 * queues one at once (web/dispatch/routing.ts).
 */
export async function waitForRouting(ctx: AppContext, d: { id: string; generation: number }, message: string): Promise<void> {
  const now = ctx.now();
  await ctx.db.$transaction((tx) => enqueueDispatch(tx, ctx.queue, d.id, d.generation, {
    recheck: true, startAfterMs: ROUTING_RECHECK_MS, singletonKey: `dispatch-routing:${d.id}:${d.generation}:${Math.floor(now / ROUTING_RECHECK_MS)}`,
  }));
  ctx.log.info({ deliveryId: d.id }, `${message}; looking again in ${ROUTING_RECHECK_MS} ms`);
}

export async function skipAtDispatch(ctx: AppContext, d: { id: string; generation: number; reasonCode: string | null; courierOrderId: string | null; tries: number }, code: ReasonCode, message: string) {
  await ctx.db.$transaction((tx) =>
    transition(tx, null, { ...d, status: 'PENDING' }, {
      event: 'dispatch_skipped', data: { reasonCode: code, reason: message }, timeline: { kind: 'skipped', source: 'shopify', message },
    }));
  ctx.log.info({ deliveryId: d.id, reason: code }, `delivery skipped: ${message}`);
}

