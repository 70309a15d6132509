// Address and phone edits in Shopify (orders/updated) over real HTTP, on SQLite
// and PostgreSQL: a staff edit in the simulated shop, the signed webhook, the
// app, and the sandbox courier. Before booking the stored order changes and
// the booking carries it; after booking the delivery is flagged and nothing is
// sent again; an older payload is ignored; HMAC and dedupe as for every topic.
import { describe, expect, it } from 'vitest';
import type { SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { adminClient } from '../support/admin-client.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { waitFor } from '../support/process.ts';
import type { OrderPayload } from '../support/orders.ts';
import { deliveryOf, installShop, placeOrder, useScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
useScenario((started) => (s = started));

const NEW_ADDRESS = { address1: '1 Fredman Drive', address2: null, city: 'Sandton', zip: '2196', latitude: -26.1045, longitude: 28.0521 };

/** A staff edit in Shopify, then the orders/updated Shopify sends for it. */
async function editInShopify(sim: SimShop, orderId: string, edit: Parameters<SimShop['editOrderAddress']>[1], opts: { webhookId?: string } = {}) {
  const o = sim.editOrderAddress(orderId, edit);
  return postShopifyWebhook(s.app.url, 'orders/updated', sim.domain, o.payload, opts);
}

const kinds = async (shop: string, orderId: string) => (await deliveryOf(s.app, shop, orderId))!.events.map((e) => e.kind);

describe('orders/updated before booking', () => {
  it('an address without coordinates, then edited with them: the stored order changes and the booking carries the new address', async () => {
    const shop = 'edit-before.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, { shipping_address: { latitude: null, longitude: null } });
    await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect((await deliveryOf(s.app, shop, orderId))!.reasonCode).toBe('missing_coordinates');

    const r = await editInShopify(sim, orderId, { shippingAddress: NEW_ADDRESS, phone: '+27821234567' });
    expect(r.status).toBe(200);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const sent = JSON.parse(d.requestBody!);
    expect(sent.dropoff).toMatchObject({ addressLine1: '1 Fredman Drive', latitude: -26.1045, longitude: 28.0521 });
    expect(d.requestBody).not.toContain('Sandhurst');
    expect(JSON.parse(d.orderJson).shipping_address).toMatchObject({ address1: '1 Fredman Drive' });
    // The courier got one create, with the new address.
    const [courierOrder] = await s.courier.orders({ reference: orderId });
    expect(courierOrder).toBeDefined();
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect(await kinds(shop, orderId)).toContain('address_updated');
  });

  it('a skipped order edited in Shopify is sent with the new details when dispatched later', async () => {
    const shop = 'edit-skipped.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    expect((await editInShopify(sim, orderId, { shippingAddress: NEW_ADDRESS })).status).toBe(200);
    const d = (await deliveryOf(s.app, shop, orderId))!;
    expect(d.status).toBe('SKIPPED');
    expect(JSON.parse(d.orderJson).shipping_address).toMatchObject({ address1: '1 Fredman Drive', latitude: -26.1045 });
    expect(d.events.find((e) => e.kind === 'address_updated')!.message).toMatch(/address1/);

    expect((await adminClient(s.app.url, shop).post(`/api/deliveries/${d.id}/dispatch`)).status).toBe(200);
    const sent = JSON.parse((await waitForStatus(s.app, shop, orderId, 'CREATED')).requestBody!);
    expect(sent.dropoff).toMatchObject({ addressLine1: '1 Fredman Drive', latitude: -26.1045, longitude: 28.0521 });
  });
});

describe('orders/updated while the dispatch job builds the request', () => {
  it('the job notices the order changed before it stores the request, and builds it again from the new order', async () => {
    const shop = 'edit-racing.myshopify.com';
    // The price check runs between building the request and storing it: make it slow.
    const sim = await installShop(s, shop, { settings: { maxDeliveryPrice: '10000.00' } });
    await s.courier.addFault({ route: 'quote', type: 'latency', latencyMs: 2_000, count: 1 });
    const { orderId } = await placeOrder(s, sim);
    await waitFor(async () => (await s.courier.requests({ route: 'quote' })).length === 1, 'the first quote in flight');
    expect((await editInShopify(sim, orderId, { shippingAddress: NEW_ADDRESS })).status).toBe(200);

    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(JSON.parse(d.requestBody!).dropoff).toMatchObject({ addressLine1: '1 Fredman Drive', latitude: -26.1045 });
    expect((await s.courier.requests({ route: 'quote' })).length).toBe(2);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect(d.generation).toBe(1);
  });
});

describe('orders/updated after booking', () => {
  it('flags the delivery, keeps its status and sends nothing again; a later unchanged update adds nothing', async () => {
    const shop = 'edit-after.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const creates = (await s.courier.stats()).createRequests;

    expect((await editInShopify(sim, orderId, { shippingAddress: NEW_ADDRESS })).status).toBe(200);
    const d = (await deliveryOf(s.app, shop, orderId))!;
    expect(d.status).toBe('CREATED');
    expect(d.reasonCode).toBe('address_changed');
    expect(d.reason).toMatch(/shipping address and coordinates changed in Shopify after the courier was booked/);
    expect(d.requestBody).toBe(booked.requestBody);
    expect(d.generation).toBe(booked.generation);
    expect((await s.courier.stats()).createRequests).toBe(creates);

    // Shopify sends orders/updated again for our own tag write: same address, nothing new.
    expect((await editInShopify(sim, orderId, {})).status).toBe(200);
    expect((await kinds(shop, orderId)).filter((k) => k === 'address_changed')).toHaveLength(1);
    expect((await s.courier.stats()).createRequests).toBe(creates);
  });
});

describe('ordering, HMAC and dedupe', () => {
  it('a payload older than the stored one is ignored', async () => {
    const shop = 'edit-stale.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId, payload } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const older = structuredClone(payload);
    expect((await editInShopify(sim, orderId, { shippingAddress: NEW_ADDRESS })).status).toBe(200);
    // An edit made before the one above, delivered after it.
    older.shipping_address.address1 = '99 Old Street';
    older.updated_at = new Date(Date.parse(sim.order(orderId)!.payload.updated_at) - 60_000).toISOString();
    const r = await postShopifyWebhook(s.app.url, 'orders/updated', shop, older);
    expect(r).toMatchObject({ status: 200, body: { ignored: true, reason: 'orders/updated not newer than the order stored' } });
    expect(JSON.parse((await deliveryOf(s.app, shop, orderId))!.orderJson).shipping_address.address1).toBe('1 Fredman Drive');
  });

  it('an edit undone in Shopify, delivered out of order, leaves the order as Shopify has it now', async () => {
    const shop = 'edit-undone.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId, payload } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const moved: OrderPayload = { ...structuredClone(payload), updated_at: '2026-11-23T10:00:00Z' };
    moved.shipping_address.address1 = '1 Fredman Drive';
    const back = { ...structuredClone(payload), updated_at: '2026-11-23T10:01:00Z' };
    // The later payload (address back as stored) arrives first and changes nothing, but counts as seen.
    expect((await postShopifyWebhook(s.app.url, 'orders/updated', shop, back)).body).toEqual({ ok: true });
    expect((await postShopifyWebhook(s.app.url, 'orders/updated', shop, moved)).body).toMatchObject({ ignored: true });
    expect(JSON.parse((await deliveryOf(s.app, shop, orderId))!.orderJson).shipping_address.address1).toBe('12 Rivonia Road');
  });

  it('a wrong HMAC gets 401 and changes nothing; the same webhook id twice has one effect', async () => {
    const shop = 'edit-hmac.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const o = sim.editOrderAddress(orderId, { phone: '+27821234567' });
    const forged = await postShopifyWebhook(s.app.url, 'orders/updated', shop, o.payload, { webhookId: 'wh-upd-forged', secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    expect(JSON.parse((await deliveryOf(s.app, shop, orderId))!.orderJson).phone).not.toBe('+27821234567');

    const first = await postShopifyWebhook(s.app.url, 'orders/updated', shop, o.payload, { webhookId: 'wh-upd-1' });
    const again = await postShopifyWebhook(s.app.url, 'orders/updated', shop, o.payload, { webhookId: 'wh-upd-1' });
    expect(first.status).toBe(200);
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await s.app.db.webhookReceipt.count({ where: { webhookId: 'wh-upd-1', topic: 'ORDERS_UPDATED' } })).toBe(1);
    expect(JSON.parse((await deliveryOf(s.app, shop, orderId))!.orderJson).phone).toBe('+27821234567');
    expect((await kinds(shop, orderId)).filter((k) => k === 'address_updated')).toHaveLength(1);
  });
});
