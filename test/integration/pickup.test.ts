// The pickup store and eligibility come from the order's fulfillment orders at
// dispatch time (web/dispatch/dispatcher.ts decidePickup), never the REST
// location_id or words in shipping-line titles. Real app, real sandbox courier,
// the Shopify simulator's fulfillment orders; SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { postShopifyWebhook } from '../support/shopify.ts';
import { paidOrder, orderIdOfPayload, type OrderPayload } from '../support/orders.ts';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, useScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import type { SimOrder, SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { fixAndRetry } from '../../web/dispatch/service.ts';
import { ROUTING_RECHECK_MS } from '../../web/dispatch/pickup.ts';
import { readFulfillmentOrderIds } from '../../web/db/json-columns.ts';

let s: Scenario;
useScenario((started) => (s = started));

// The simulator's two locations: 71000000001 Rosebank warehouse (first), 71000000002 Cape Town store.
const STORES = { '71000000001': 'store_sandbox_001', '71000000002': 'store_sandbox_002' };

/** Shopify holds the order (fulfillment order at `locationId`), `prepare` changes it, then orders/paid arrives. */
async function pay(shop: string, sim: SimShop, changes: OrderPayload, opts: { locationId?: string; prepare?: (o: SimOrder) => void } = {}) {
  const payload = paidOrder(changes);
  const order = sim.addOrder(payload, opts.locationId ? { locationId: opts.locationId } : {});
  opts.prepare?.(order);
  const r = await postShopifyWebhook(s.app.url, 'orders/paid', shop, payload);
  expect(r.status).toBe(200);
  return { orderId: orderIdOfPayload(payload), order };
}

const storeOf = (d: { requestBody: string | null }) => JSON.parse(d.requestBody!).pickup.storeId;

describe('the pickup store is the fulfillment order’s assigned location', () => {
  it('a multi-location order whose REST location_id is another store is booked from the assigned location', async () => {
    const shop = 'multi-location.myshopify.com';
    const sim = await installShop(s, shop, { environment: { locationStores: STORES } });
    // location_id is the point-of-sale location; Shopify's routing assigned the Cape Town store.
    const { orderId, order } = await pay(shop, sim, { location_id: 71000000001 }, { locationId: '71000000002' });
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(storeOf(d)).toBe('store_sandbox_002');
    expect(d.locationId).toBe('71000000002');
    expect(readFulfillmentOrderIds(d)).toEqual([`gid://shopify/FulfillmentOrder/${order.fulfillmentOrders[0]!.id}`]);
    expect(sim.log.some((l) => l.operationName === 'OrderFulfillmentOrdersForDispatch')).toBe(true);
  });

  it('a fulfillment order moved to another location before booking is booked from the new one, and the move is on the timeline', async () => {
    const shop = 'moved-before-booking.myshopify.com';
    const sim = await installShop(s, shop, { environment: { locationStores: STORES } });
    const { orderId, order } = await pay(shop, sim, { shipping_address: { latitude: null, longitude: null } });
    const held = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(held.reasonCode).toBe('missing_coordinates');
    expect(held.locationId).toBe('71000000001');

    const moved = sim.moveFulfillmentOrder(order.fulfillmentOrders[0]!.id, '71000000002');
    await s.app.db.$transaction((tx) => fixAndRetry(tx, s.app.ctx.queue, shop, held.id, { latitude: -26.1076, longitude: 28.0567 }));
    s.app.ctx.queue.notify();
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(storeOf(d)).toBe('store_sandbox_002');
    expect(d.locationId).toBe('71000000002');
    expect(readFulfillmentOrderIds(d)).toEqual([`gid://shopify/FulfillmentOrder/${moved.id}`]);
    expect(d.events.find((e) => e.kind === 'location_moved')?.message).toMatch(/moved from location 71000000001 to Cape Town store/);
  });
});

describe('the Shopify fulfillment covers exactly the booked fulfillment orders', () => {
  it('another open fulfillment order at the same location is left open', async () => {
    const shop = 'exact-fulfillment-orders.myshopify.com';
    const sim = await installShop(s, shop, { settings: { fulfillment: { trigger: 'accepted' } } });
    const { orderId, order } = await pay(shop, sim, {});
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const [booked] = readFulfillmentOrderIds(d);
    // Added in Shopify after booking (an edit added an item): not part of this delivery.
    const first = order.fulfillmentOrders[0]!;
    order.fulfillmentOrders.unshift({ ...first, id: '777000001', lineItems: first.lineItems.map((li) => ({ ...li, id: '777000002', remainingQuantity: 1 })) });
    s.app.ctx.queue.notify();
    await waitFor(async () => order.fulfillments.length === 1, 'the Shopify fulfillment', 10_000);
    expect(order.fulfillments[0]!.fulfillmentOrderIds).toEqual([booked!.split('/').pop()]);
    expect(order.fulfillmentOrders[0]).toMatchObject({ id: '777000001', status: 'OPEN' });
  });
});

describe('pickup, holds and schedules come from the fulfillment order, with the reason', () => {
  it.each<[string, OrderPayload, (o: SimOrder) => void, string, RegExp]>([
    ['local pickup (delivery method PICK_UP)', { shipping_lines: [{ title: 'Local Pickup', code: 'Pickup', price: '0.00' }] }, () => {}, 'local_pickup', /^Local pickup: the customer collects the order$/],
    ['on hold', {}, (o) => { o.fulfillmentOrders[0]!.status = 'ON_HOLD'; o.fulfillmentOrders[0]!.holds = [{ reason: 'INCORRECT_ADDRESS', reasonNotes: null }]; }, 'fulfillment_on_hold', /^Fulfillment is on hold in Shopify: Incorrect address$/],
    ['scheduled', {}, (o) => { o.fulfillmentOrders[0]!.status = 'SCHEDULED'; o.fulfillmentOrders[0]!.fulfillAt = '2026-12-01T08:00:00Z'; }, 'fulfillment_scheduled', /^Fulfillment is scheduled for 2026-12-01T08:00:00Z/],
  ])('%s → SKIPPED at dispatch, nothing booked', async (name, changes, prepare, code, reason) => {
    const shop = `fo-${code.replace(/_/g, '-')}.myshopify.com`;
    // No shipping-method rule: the title alone decides nothing.
    const sim = await installShop(s, shop, { settings: { eligibility: { shippingLines: [] } } });
    const { orderId } = await pay(shop, sim, changes, { prepare });
    const d = await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    expect(d.reasonCode, name).toBe(code);
    expect(d.reason).toMatch(reason);
    expect(d.events.some((e) => e.kind === 'skipped' && reason.test(e.message ?? ''))).toBe(true);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(0);
  });

  it('a same-day title with "collect" in it is delivered (no words matched)', async () => {
    const shop = 'collect-title.myshopify.com';
    const sim = await installShop(s, shop, { settings: { eligibility: { shippingLines: [] } } });
    const { orderId } = await pay(shop, sim, { shipping_lines: [{ title: 'Same-day: we collect from our store and deliver', code: 'same-day', price: '80.00' }] });
    await waitForStatus(s.app, shop, orderId, 'CREATED');
  });
});

describe("Shopify's order routing", () => {
  it('a fresh order waits for fulfillment_orders/order_routing_complete, then books from where routing put it', async () => {
    const shop = 'routing.myshopify.com';
    const sim = await installShop(s, shop, { environment: { locationStores: STORES } });
    const { orderId, order } = await pay(shop, sim, { created_at: new Date().toISOString() });
    // The job looked, found routing unfinished, and queued a re-check instead of failing an attempt.
    await waitFor(async () => sim.log.some((l) => l.operationName === 'OrderFulfillmentOrdersForDispatch'), 'the dispatch job to read the fulfillment orders', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const waiting = (await deliveryOf(s.app, shop, orderId))!;
    expect(waiting.status).toBe('PENDING');
    expect(waiting.requestBody).toBeNull();
    expect(waiting.lastError).toBeNull();
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(0);

    // Routing finishes at the Cape Town store; the webhook names only the fulfillment order.
    const moved = sim.moveFulfillmentOrder(order.fulfillmentOrders[0]!.id, '71000000002');
    const r = await postShopifyWebhook(s.app.url, 'fulfillment_orders/order_routing_complete', shop, { fulfillment_order: { id: `gid://shopify/FulfillmentOrder/${moved.id}`, status: 'open' } });
    expect(r.status).toBe(200);
    // Woken by the webhook, well before the periodic re-check (ROUTING_RECHECK_MS after the first look).
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED', ROUTING_RECHECK_MS - 1_500);
    expect(storeOf(d)).toBe('store_sandbox_002');
    expect(d.routingCompleteAt).not.toBeNull();
    expect(d.events.some((e) => e.kind === 'routing_complete')).toBe(true);
    expect(sim.log.some((l) => l.operationName === 'FulfillmentOrderOrder')).toBe(true);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
  });

  it('the routing webhook for an order we do not hold does nothing', async () => {
    const shop = 'routing-unknown.myshopify.com';
    const sim = await installShop(s, shop);
    const order = sim.addOrder(paidOrder());
    const r = await postShopifyWebhook(s.app.url, 'fulfillment_orders/order_routing_complete', shop, { fulfillment_order: { id: `gid://shopify/FulfillmentOrder/${order.fulfillmentOrders[0]!.id}`, status: 'open' } });
    expect(r.status).toBe(200);
    await waitFor(async () => sim.log.some((l) => l.operationName === 'FulfillmentOrderOrder'), 'the routing job to look the order up', 10_000);
    expect(await deliveryOf(s.app, shop, order.id)).toBeNull();
  });
});
