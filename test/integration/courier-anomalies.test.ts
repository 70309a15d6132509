// Couriers that behave differently from our sandbox while staying within the
// spec, over real HTTP: a create slower than our timeout, a courier that does
// not dedupe keys in flight, extra bookings for one reference, events whose
// ids we cannot match, the courier's test webhook, `pending` before any event.
// SQLite and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryClient, serializeCreateOrder, TokenCache } from '../../web/delivery/index.ts';
import { rematchEvents } from '../../web/fulfillment/events.ts';
import { checkDeliveryNow } from '../../web/fulfillment/reconcile.ts';
import { sendTestWebhook } from '../../web/fulfillment/test-webhook.ts';
import { adminClient } from '../support/admin-client.ts';
import { cliOf } from '../support/cli.ts';
import { bookedWithAccount, postStatusEvent } from '../support/courier-events.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { waitFor } from '../support/process.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { connectCourierAccount, deliveryOf, installShop, placeOrder, SANDBOX_CLIENT, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  // Our request timeout (600 ms) is shorter than the slow courier's answer (1.5 s).
  s = await startScenario({ runtime: { courier: { retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100, deadlineMs: 10_000 }, requestTimeoutMs: 600 }, inFlightMs: 2_000, fulfillment: { reconcileIntervalMs: 0 } } });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await s.courier.reset();
});

const creates = async (key: string | null) => (await s.courier.requests({ route: 'create' })).filter((r) => r.idempotencyKey === key);

describe('no second order from an unknown outcome', () => {
  it.each([
    ['that does not dedupe keys in flight', false],
    ['that dedupes keys in flight', true],
  ])('a create slower than our timeout, at a courier %s: one courier order, adopted by reference', async (_n, dedupeInFlight) => {
    await s.courier.updateSettings({ createHoldMs: 1_500, dedupeInFlight });
    const shop = `slow-${dedupeInFlight}.myshopify.com`;
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'CREATED', 30_000);
    // The adopted line is written just after the status (dispatcher.ts): wait for it, not only for CREATED.
    const d = await waitFor(async () => {
      const x = await deliveryOf(s.app, shop, orderId);
      return x?.events.some((e) => e.kind === 'adopted') ? x : null;
    }, 'the adopted line on the timeline');
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    // Never a second create while the first may still be in flight: the order was looked up instead.
    expect(await creates(d.idempotencyKey)).toHaveLength(1);
    const [order] = await s.courier.orders({ reference: orderId });
    expect(d.courierOrderId).toBe(order!.id);
    expect(d.dispatchJobId).toBe(order!.dispatchId);
    expect(d.events.map((e) => e.kind)).toContain('adopted');
    expect(d.reasonCode).toBeNull();
  });

  it('when the courier holds a second order for the reference, the delivery lists both order and job ids', async () => {
    const shop = 'twice.myshopify.com';
    const sim = await installShop(s, shop);
    const payload = paidOrder();
    const reference = orderIdOfPayload(payload);
    // An earlier create the courier booked after all (e.g. after our timeout, under another key).
    const other = await new DeliveryClient({ baseUrl: s.sandbox.url, ...SANDBOX_CLIENT, tokenCache: new TokenCache() }).createOrder({
      idempotencyKey: 'an-earlier-attempt',
      body: serializeCreateOrder({
        reference, channel: 'web', serviceType: 'SAME_DAY', pickup: { storeId: 'store_sandbox_001' },
        dropoff: { name: 'A', phone: '+27821234567', addressLine1: '1 Main Rd', city: 'Johannesburg', country: 'ZA', latitude: -26.1, longitude: 28.0 },
        package: { size: 'SMALL', weightKg: '1' }, amount: '10.00', currency: 'ZAR',
      }),
    });
    sim.addOrder(payload);
    await postShopifyWebhook(s.app.url, 'orders/paid', shop, payload);
    const d = await waitFor(async () => {
      const x = await deliveryOf(s.app, shop, reference);
      return x?.reasonCode === 'duplicate_courier_orders' ? x : null;
    }, 'the duplicate flagged');
    expect(d.status).toBe('CREATED');
    for (const id of [d.courierOrderId!, d.dispatchJobId!, other.orderId, other.dispatchId]) expect(d.reason).toContain(id);
    expect(JSON.parse(d.courierOrders!).map((o: { orderId: string }) => o.orderId)).toEqual([d.courierOrderId, other.orderId]);
    expect(d.events.some((e) => e.kind === 'duplicate_orders')).toBe(true);
    // Visible in the admin API, with the action to mark it resolved once the extra is cancelled.
    const summary = (await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).reasonCode;
    expect(summary).toBe('duplicate_courier_orders');
  });
});

describe('fair, bounded rematching', () => {
  async function bookedWithEnv(shop: string) {
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const env = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shop: { domain: shop }, environment: 'test' } });
    return { orderId, d, env };
  }

  it('a new event matches even with 10,000 older unmatched ones', async () => {
    const { orderId, d, env } = await bookedWithEnv('backlog.myshopify.com');
    const old = Date.now() - 3600_000;
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      environmentId: env.id, eventId: `evt_old_${i}`, type: 'delivery.status.updated', deliveryRef: `delivery_gone_${i}`, status: 'driver_assigned',
      payload: '{}', state: 'UNMATCHED', attempts: 1, receivedAt: new Date(old + i),
    }));
    for (let i = 0; i < rows.length; i += 2_000) await s.app.db.courierEvent.createMany({ data: rows.slice(i, i + 2_000) });
    // It arrived just before its booking was stored, and is backing off.
    const [order] = await s.courier.orders({ reference: orderId });
    const fresh = await s.app.db.courierEvent.create({
      data: {
        environmentId: env.id, eventId: 'evt_new', type: 'delivery.status.updated', deliveryRef: order!.deliveryId, status: 'driver_assigned',
        payload: JSON.stringify({ id: 'evt_new', data: { delivery_id: order!.deliveryId, status: 'driver_assigned' } }), state: 'UNMATCHED', attempts: 1,
        nextAttemptAt: new Date(Date.now() + 30_000),
      },
    });
    const report = await rematchEvents(s.app.ctx, { environmentId: env.id });
    expect(report.reads).toBe(1);
    expect((await s.app.db.courierEvent.findUniqueOrThrow({ where: { id: fresh.id } })).state).toBe('PROCESSED');
    expect((await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).courierStatus).toBe('driver_assigned');
  });

  it('each courier order is read at most once per pass, and not again until its backoff expires', async () => {
    const shop = 'chatter.myshopify.com';
    const booked = [await bookedWithEnv(shop)];
    const sim = await installShop(s, shop);
    for (let i = 0; i < 2; i++) {
      const { orderId } = await placeOrder(s, sim);
      await waitForStatus(s.app, shop, orderId, 'CREATED');
    }
    const env = booked[0]!.env;
    // The courier cannot be read: nothing is learned, so every booking stays a candidate.
    await s.courier.addFault({ route: 'get', type: 'status', status: 404, count: 1000 });
    await s.app.db.courierEvent.createMany({
      data: Array.from({ length: 12 }, (_, i) => ({ environmentId: env.id, eventId: `evt_x_${i}`, type: 'delivery.status.updated', deliveryRef: `delivery_x_${i}`, status: 'in_transit', payload: '{}', state: 'UNMATCHED', attempts: 1 })),
    });
    const gets = async () => (await s.courier.requests({ route: 'get' })).length;
    const first = await rematchEvents(s.app.ctx, { environmentId: env.id });
    expect(first.reads).toBe(3);
    expect(await gets()).toBe(3);
    const second = await rematchEvents(s.app.ctx, { environmentId: env.id });
    expect(second.reads).toBe(0);
    expect(await gets()).toBe(3);
    // Each event backs off on its own.
    const events = await s.app.db.courierEvent.findMany({ where: { environmentId: env.id, eventId: { startsWith: 'evt_x_' } } });
    expect(events.every((e) => e.state === 'UNMATCHED' && e.nextAttemptAt! > new Date())).toBe(true);
    await s.courier.clearFaults();
  });
});

describe('the courier test webhook', () => {
  it('is recognised by the ids POST /v1/webhooks/test returned, without data.test, and never stored as UNMATCHED', async () => {
    await s.courier.updateSettings({ markTestEvents: false });
    const shop = 'testhook.myshopify.com';
    await installShop(s, shop);
    await connectCourierAccount(s, shop);
    const r = await sendTestWebhook(s.app.ctx, shop, 'test', { waitMs: 5_000 });
    expect(r.verified).toBe(true);
    const ev = await waitFor(async () => {
      const e = await s.app.db.courierEvent.findFirst({ where: { environment: { shop: { domain: shop } } } });
      return e && e.state !== 'RECEIVED' ? e : null;
    }, 'the test event processed');
    expect(ev.state).toBe('TEST');
    expect(JSON.parse(ev.payload).data.test).toBeUndefined();
    expect(await s.courier.requests({ route: 'get' })).toHaveLength(0);
  });
});

describe('pending and check now', () => {
  it('pending is a known status: a fresh delivery is read at once, stays CREATED, and a second check adds no timeline line', async () => {
    const shop = 'pending.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const r = await checkDeliveryNow(s.app.ctx, shop, d.id);
    expect(r).toEqual({ result: 'changed', courierStatus: 'pending' });
    const lines = async () => (await deliveryOf(s.app, shop, orderId))!.events.filter((e) => e.kind === 'courier_status');
    expect((await lines()).map((e) => [e.status, e.applied])).toEqual([['pending', true]]);
    expect((await deliveryOf(s.app, shop, orderId))!.status).toBe('CREATED');
    expect((await checkDeliveryNow(s.app.ctx, shop, d.id)).result).toBe('unchanged');
    expect(await lines()).toHaveLength(1);
    // Another shop cannot check it.
    await expect(checkDeliveryNow(s.app.ctx, 'other.myshopify.com', d.id)).rejects.toThrow(/not found/);
  });
});

describe('every error the merchant can fix is shown and fixable', () => {
  it('a name longer than our request allows: NEEDS_ATTENTION naming the field and limit, no courier call; Fix through the API books it', async () => {
    const shop = 'longname.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, { shipping_address: { name: 'N'.repeat(301) } });
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('invalid_field');
    expect(d.reason).toBe('dropoff.name is 301 characters; the limit is 255; correct the name with Fix');
    expect(await s.courier.requests({ route: 'create' })).toHaveLength(0);
    const api = adminClient(s.app.url, shop);
    const view = (await api.get(`/api/deliveries/${d.id}`)).body.delivery;
    expect(view.attention).toMatchObject({ code: 'invalid_field', title: 'A field is too long or not valid' });
    expect(view.actions).toContain('fix');
    const tooLong = await api.post(`/api/deliveries/${d.id}/fix`, { name: 'N'.repeat(256) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors.name).toBe('recipient name may be at most 255 characters');
    expect((await api.post(`/api/deliveries/${d.id}/fix`, { name: 'Thandi Nkosi' })).status).toBe(200);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(JSON.parse(booked.requestBody!).dropoff.name).toBe('Thandi Nkosi');
  });

  it('a 256-character address2 is fixed through the CLI; the CLI refuses a phone invalid for the destination up front', async () => {
    const shop = 'longaddr.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, { shipping_address: { address2: 'A'.repeat(256) } });
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reason).toMatch(/^dropoff\.addressLine2 is 256 characters; the limit is 255/);
    const cli = cliOf(s);
    const refused = await cli('fix', shop, d.id, '--phone', '12345');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("--phone: Phone '12345' is not a valid ZA number");
    expect((await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).overridesJson).toBe('{}');
    const fixed = await cli('fix', shop, d.id, '--address2', 'Sandhurst');
    expect(fixed.stderr).toBe('');
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(JSON.parse(booked.requestBody!).dropoff.addressLine2).toBe('Sandhurst');
  }, 90_000);

  it('a courier 422 with several details shows every one of them', async () => {
    const shop = 'details.myshopify.com';
    const sim = await installShop(s, shop);
    await s.courier.addFault({
      route: 'create', type: 'status', status: 422,
      body: JSON.stringify({ error: { code: 'validation_error', message: 'The order has 2 problems', details: [{ field: 'dropoff.name', message: 'must not contain digits' }, { field: 'dropoff.addressLine2', message: 'is not a known suburb' }] } }),
    });
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('courier_rejected');
    expect(d.reason).toContain('dropoff.name: must not contain digits');
    expect(d.reason).toContain('dropoff.addressLine2: is not a known suburb');
  });
});

describe('final means final', () => {
  it('a lower status dated after DELIVERED is kept on the timeline and never written to Shopify', async () => {
    const shop = 'final.myshopify.com';
    const { sim, account, orderId, delivery: d } = await bookedWithAccount(s, shop);
    const t0 = Date.now();
    // Within one sync batch: DELIVERED, then a driver_assigned dated after it.
    await postStatusEvent(account.endpointUrl, { id: 'evt_final_1', deliveryRef: d.courierOrderId!, status: 'delivered', createdAt: t0 });
    await postStatusEvent(account.endpointUrl, { id: 'evt_final_2', deliveryRef: d.courierOrderId!, status: 'driver_assigned', createdAt: t0 + 5_000 });
    await waitForStatus(s.app, shop, orderId, 'DELIVERED');
    await waitFor(async () => (sim.order(orderId)!.fulfillments[0]?.events.at(-1)?.status === 'DELIVERED' ? true : null), 'DELIVERED in Shopify');
    await waitFor(async () => ((await deliveryOf(s.app, shop, orderId))!.events.some((e) => e.courierEventId === 'evt_final_2') ? true : null), 'the late status recorded');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(sim.order(orderId)!.fulfillments[0]!.events.map((e) => e.status)).toEqual(['DELIVERED']);
    const late = (await deliveryOf(s.app, shop, orderId))!.events.find((e) => e.courierEventId === 'evt_final_2')!;
    expect(late).toMatchObject({ status: 'driver_assigned', applied: false });
    expect(late.message).toMatch(/after a final status/);
  });
});
