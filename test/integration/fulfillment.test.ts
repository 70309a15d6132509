// Courier status webhooks → Shopify fulfillment, over real HTTP: the sandbox
// courier sends signed webhooks to the app; Shopify is intercepted with
// MockAgent and asserted on the GraphQL it receives. SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/index.ts';
import { reconcileOnce } from '../../web/fulfillment/reconcile.ts';
import { runFulfillmentSync } from '../../web/fulfillment/sync.ts';
import { sendTestWebhook } from '../../web/fulfillment/test-webhook.ts';
import { waitFor } from '../support/process.ts';
import {
  connectCourierAccount,
  deliveryOf,
  installShop,
  placeOrder,
  startScenario,
  waitForStatus,
  WEBHOOK_SECRET,
  type Scenario,
} from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ sandbox: { webhooksEnabled: true, webhookRetryDelaysMs: [50, 100, 200] }, runtime: { fulfillment: { retry: { baseDelayMs: 50, maxDelayMs: 300 }, reconcileIntervalMs: 0 } } });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await s.courier.reset();
});

// The events a customer sees; confirmed, picked up and in transit are coalesced (web/lifecycle/progress.ts VISIBLE_EVENTS).
const FULL_PATH = ['OUT_FOR_DELIVERY', 'DELIVERED'];

async function bookedOrder(domain: string, opts: { settings?: Record<string, unknown> } = {}) {
  const sim = await installShop(s, domain, { settings: opts.settings });
  const account = await connectCourierAccount(s, domain);
  const { orderId } = await placeOrder(s, sim);
  const d = await waitForStatus(s.app, domain, orderId, 'CREATED');
  // The booking write (background priority) is done too: tests that count Shopify calls start after it.
  await waitFor(async () => (await deliveryOf(s.app, domain, orderId))?.writebackPending === false, 'the booking write');
  return { sim, account, orderId, delivery: d, courierOrderId: d.courierOrderId! };
}

const fulfillmentsOf = (sim: Awaited<ReturnType<typeof installShop>>, orderId: string) => sim.order(orderId)!.fulfillments;

describe('status webhooks → Shopify', () => {
  it('driver_assigned … delivered: one fulfillment with the tracking number, then the visible events in order, in five paid calls', async () => {
    const domain = 'progress.myshopify.com';
    const { sim, orderId, courierOrderId, delivery } = await bookedOrder(domain, {
      settings: { fulfillment: { courierName: 'Swift Couriers', trackingUrlTemplate: 'https://track.example.com/{jobId}', notifyCustomer: false } },
    });
    await s.courier.advance(courierOrderId, { to: 'delivered' });
    const d = await waitForStatus(s.app, domain, orderId, 'DELIVERED');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[0]?.events.length === FULL_PATH.length, 'the visible fulfillment events').catch((e) => {
      console.error(JSON.stringify(fulfillmentsOf(sim, orderId)), JSON.stringify(sim.log.map((l) => [l.operationName, l.outcome])));
      throw e;
    });

    const fulfillments = fulfillmentsOf(sim, orderId);
    expect(fulfillments).toHaveLength(1);
    expect(fulfillments[0]!.trackingInfo).toEqual({ company: 'Swift Couriers', number: delivery.dispatchJobId, url: `https://track.example.com/${delivery.dispatchJobId}` });
    expect(fulfillments[0]!.notifyCustomer).toBe(false);
    expect(fulfillments[0]!.events.map((e) => e.status)).toEqual(FULL_PATH);
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentCreate')).toHaveLength(1);
    // No metafield write per courier status: the booking's status stays; the events carry the progress.
    expect(sim.order(orderId)!.metafields['$app:same_day_dispatch.status']?.value).not.toBe('delivered');
    expect(sim.log.filter((l) => l.outcome === 'ok').map((l) => l.operationName)).toEqual([
      'OrderFulfillmentOrdersForDispatch', 'BookingWrite', 'FulfillmentCreate', 'FulfillmentEventCreate', 'FulfillmentEventCreate',
    ]);
    // Points: booking 20, fulfillment 10, two events 20, the read 7 (no line items, whatever their number).
    expect(sim.order(orderId)!.fulfillmentOrders[0]!.lineItems.length).toBeGreaterThan(0);
    expect(sim.bucket.spent).toBe(50 + 7);
    expect(d.courierStatus).toBe('delivered');
    // The whole history is kept, with event and receive times.
    const timeline = (await deliveryOf(s.app, domain, orderId))!.events.filter((e) => e.kind === 'courier_status');
    expect(timeline.map((e) => e.status).sort()).toEqual(['accepted', 'delivered', 'driver_assigned', 'in_transit', 'out_for_delivery', 'picked_up']);
    expect(timeline.every((e) => e.occurredAt instanceof Date && e.receivedAt instanceof Date)).toBe(true);
  });

  it('every webhook twice and the progression shuffled: the same final state and exactly one fulfillment', async () => {
    const domain = 'shuffled.myshopify.com';
    await s.courier.updateSettings({ duplicateSends: true, outOfOrder: true, outOfOrderBatchSize: 6 });
    const { sim, orderId, courierOrderId } = await bookedOrder(domain);
    await s.courier.advance(courierOrderId, { to: 'delivered' });
    await s.courier.flushWebhooks();
    const d = await waitForStatus(s.app, domain, orderId, 'DELIVERED');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[0]?.events.at(-1)?.status === 'DELIVERED', 'DELIVERED event');
    await waitFor(async () => (await s.app.db.courierEvent.count({ where: { state: 'PROCESSED', deliveryId: d.id } })) === 6, 'six events processed');
    expect(fulfillmentsOf(sim, orderId)).toHaveLength(1);
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentCreate')).toHaveLength(1);
    expect(d.courierStatus).toBe('delivered');
    // Duplicates were stored once per event id.
    expect(await s.app.db.courierEvent.count({ where: { deliveryId: d.id } })).toBe(6);
    const events = fulfillmentsOf(sim, orderId)[0]!.events.map((e) => e.status);
    expect(new Set(events).size).toBe(events.length);
  });

  it('a courier failure needs attention and reports FAILURE to Shopify; re-dispatch books a new order under a new key, whose tracking and events go onto the same fulfillment through DELIVERED', async () => {
    const domain = 'failure.myshopify.com';
    const { sim, orderId, courierOrderId, delivery, account } = await bookedOrder(domain, { settings: { fulfillment: { trackingUrlTemplate: 'https://track.example.com/{jobId}' } } });
    await s.courier.advance(courierOrderId, { to: 'picked_up' });
    await waitFor(async () => (await deliveryOf(s.app, domain, orderId))?.courierStatus === 'picked_up' && fulfillmentsOf(sim, orderId).length === 1, 'picked up, fulfilled');
    await s.courier.advance(courierOrderId, { outcome: 'failed', to: 'failed' });
    const d = await waitForStatus(s.app, domain, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('courier_failed');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[0]?.events.at(-1)?.status === 'FAILURE', 'FAILURE event');

    const { redispatch } = await import('../../web/dispatch/service.ts');
    await s.app.db.$transaction((tx) => redispatch(tx, s.app.ctx.queue, domain, d.id));
    s.app.ctx.queue.notify();
    const again = await waitForStatus(s.app, domain, orderId, 'CREATED');
    expect(again.generation).toBe(2);
    expect(again.idempotencyKey).not.toBe(delivery.idempotencyKey);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(2);
    // The fulfillment is kept across generations.
    const first = fulfillmentsOf(sim, orderId)[0]!;
    expect(again.fulfillmentId).toBe(`gid://shopify/Fulfillment/${first.id}`);

    // The new booking's courier progress: the same fulfillment takes its tracking, then its events.
    // The earlier courier order still reports (a late "returned"): history of the old booking, applied nowhere.
    const oldOrder = await s.courier.order(courierOrderId);
    const late = JSON.stringify({ id: `evt_${randomUUID()}`, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: oldOrder.deliveryId, status: 'returned' } });
    const lateId = JSON.parse(late).id;
    const sent = await fetch(account.endpointUrl, { method: 'POST', headers: signDeliveryWebhook({ secret: WEBHOOK_SECRET, body: late, timestampSec: Math.floor(Date.now() / 1000), eventId: lateId, type: 'delivery.status.updated' }), body: late });
    expect(sent.status).toBe(200);
    await waitFor(async () => (await s.app.db.deliveryEvent.findFirst({ where: { courierEventId: lateId } })) ?? null, 'the late status of the earlier booking recorded');
    expect(await s.app.db.deliveryEvent.findFirst({ where: { courierEventId: lateId } })).toMatchObject({ applied: false, generation: 1, message: expect.stringMatching(/earlier booking/) });
    expect(await deliveryOf(s.app, domain, orderId)).toMatchObject({ status: 'CREATED', courierStatusRank: 0 });

    const before = first.events.map((e) => e.status);
    expect(before.at(-1)).toBe('FAILURE');
    await s.courier.advance(again.courierOrderId!, { to: 'delivered' });
    await waitForStatus(s.app, domain, orderId, 'DELIVERED');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[0]?.events.at(-1)?.status === 'DELIVERED', 'DELIVERED on the same fulfillment').catch((e) => {
      console.error(JSON.stringify(fulfillmentsOf(sim, orderId)), JSON.stringify(sim.log.map((l) => [l.operationName, l.outcome])));
      throw e;
    });
    const fulfillments = fulfillmentsOf(sim, orderId);
    expect(fulfillments).toHaveLength(1);
    expect(fulfillments[0]!.status).toBe('SUCCESS');
    expect(fulfillments[0]!.trackingInfo).toMatchObject({ number: again.dispatchJobId, url: `https://track.example.com/${again.dispatchJobId}` });
    expect(again.dispatchJobId).not.toBe(delivery.dispatchJobId);
    expect(fulfillments[0]!.events.map((e) => e.status)).toEqual([...before, ...FULL_PATH]);
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentCreate')).toHaveLength(1);
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentTrackingInfoUpdate' && l.outcome === 'ok')).toHaveLength(1);
    expect(sim.log.some((l) => l.operationName === 'FulfillmentCancel')).toBe(false);
    const done = (await deliveryOf(s.app, domain, orderId))!;
    expect(done).toMatchObject({ fulfillmentId: again.fulfillmentId, fulfillmentGeneration: 2, shopifyRank: 100 });
    // The earlier courier order (failed) is history, not a duplicate booking.
    expect(done.reasonCode).not.toBe('duplicate_courier_orders');
  });

  // Where the existing fulfillment cannot take the new tracking: cancel it (unless Shopify already has) and create a new one.
  it.each([
    ['the merchant cancelled the old fulfillment in Shopify', (sim: Awaited<ReturnType<typeof installShop>>, fulfillmentId: string) => expect(sim.cancelFulfillment(fulfillmentId)).toBeNull(), 0],
    ['Shopify refuses the tracking update', (sim: Awaited<ReturnType<typeof installShop>>) => void sim.failNext.set('FulfillmentTrackingInfoUpdate', 'Fulfillment tracking cannot be updated.'), 1],
  ] as const)('re-dispatch after a fulfillment, %s: a new fulfillment for the new booking, through DELIVERED', async (label, breakIt, cancels) => {
    const domain = `refulfil-${cancels}.myshopify.com`;
    const { sim, orderId, courierOrderId } = await bookedOrder(domain);
    await s.courier.advance(courierOrderId, { to: 'picked_up' });
    await waitFor(async () => (await deliveryOf(s.app, domain, orderId))?.courierStatus === 'picked_up' && fulfillmentsOf(sim, orderId).length === 1, 'picked up, fulfilled');
    await s.courier.advance(courierOrderId, { outcome: 'failed', to: 'failed' });
    const d = await waitForStatus(s.app, domain, orderId, 'NEEDS_ATTENTION');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[0]?.events.at(-1)?.status === 'FAILURE', 'FAILURE event');
    breakIt(sim, d.fulfillmentId!);

    const { redispatch } = await import('../../web/dispatch/service.ts');
    await s.app.db.$transaction((tx) => redispatch(tx, s.app.ctx.queue, domain, d.id));
    s.app.ctx.queue.notify();
    const again = await waitForStatus(s.app, domain, orderId, 'CREATED');
    await s.courier.advance(again.courierOrderId!, { to: 'delivered' });
    await waitForStatus(s.app, domain, orderId, 'DELIVERED');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[1]?.events.at(-1)?.status === 'DELIVERED', `DELIVERED on a new fulfillment (${label})`).catch((e) => {
      console.error(JSON.stringify(fulfillmentsOf(sim, orderId)), JSON.stringify(sim.log.map((l) => [l.operationName, l.outcome])));
      throw e;
    });
    const [old, fresh] = fulfillmentsOf(sim, orderId);
    expect(old!.status).toBe('CANCELLED');
    expect(old!.trackingInfo.number).toBe(d.dispatchJobId);
    expect(fresh!.status).toBe('SUCCESS');
    expect(fresh!.trackingInfo.number).toBe(again.dispatchJobId);
    expect(fresh!.events.map((e) => e.status)).toEqual(FULL_PATH);
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentCancel' && l.outcome === 'ok')).toHaveLength(cancels);
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentCreate' && l.outcome === 'ok')).toHaveLength(2);
    // The order's items were given back by the cancellation and fulfilled again.
    expect(sim.order(orderId)!.fulfillmentOrders.every((f) => f.status === 'CLOSED')).toBe(true);
    const done = (await deliveryOf(s.app, domain, orderId))!;
    expect(done).toMatchObject({ status: 'DELIVERED', fulfillmentId: `gid://shopify/Fulfillment/${fresh!.id}`, fulfillmentGeneration: 2 });
    expect(done.events.some((e) => e.kind === 'fulfilled' && /could not take the new tracking/.test(e.message ?? ''))).toBe(true);
  });

  it('an unknown status is recorded and shown, applied nowhere, and sends nothing to Shopify', async () => {
    const domain = 'unknown.myshopify.com';
    const { sim, orderId, courierOrderId, account } = await bookedOrder(domain);
    await s.courier.advance(courierOrderId, { to: 'driver_assigned' });
    await waitFor(async () => (await deliveryOf(s.app, domain, orderId))?.courierStatus === 'driver_assigned' && fulfillmentsOf(sim, orderId).length === 1, 'fulfilled at driver_assigned');
    await new Promise((r) => setTimeout(r, 1_000)); // the sync's delay (SYNC_DELAY_MS) and its run
    const calls = sim.log.length;
    const order = await s.courier.order(courierOrderId);
    const body = JSON.stringify({ id: `evt_${randomUUID()}`, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: order.deliveryId, status: 'teleported' } });
    const id = JSON.parse(body).id;
    const res = await fetch(account.endpointUrl, { method: 'POST', headers: signDeliveryWebhook({ secret: WEBHOOK_SECRET, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' }), body });
    expect(res.status).toBe(200);
    await waitFor(async () => (await s.app.db.deliveryEvent.findFirst({ where: { courierEventId: id } })) ?? null, 'the unknown status recorded');
    const e = (await s.app.db.deliveryEvent.findFirst({ where: { courierEventId: id } }))!;
    expect(e).toMatchObject({ status: 'teleported', applied: false });
    expect(e.message).toMatch(/unknown/);
    expect((await deliveryOf(s.app, domain, orderId))!.courierStatus).toBe('driver_assigned');
    await new Promise((r) => setTimeout(r, 200));
    expect(sim.log.length).toBe(calls);
  });
});

describe('the endpoint refuses what it cannot trust', () => {
  it('forged, wrong secret, stale, test-environment event at the live endpoint, another shop\'s endpoint: 401/404, nothing stored, no Shopify call', async () => {
    const a = 'guard-a.myshopify.com';
    const b = 'guard-b.myshopify.com';
    const { sim, orderId, courierOrderId, account } = await bookedOrder(a);
    await installShop(s, b, { environment: { webhookSecret: 'whsec_shop_b_secret_value' } });
    // A live endpoint with its own secret.
    const { updateEnvironment } = await import('../../web/settings/store.ts');
    await updateEnvironment(s.app.db, s.app.server.services()!.box, a, 'live', { webhookSecret: 'whsec_live_secret_value_a' });
    const shopA = await s.app.db.shop.findUniqueOrThrow({ where: { domain: a }, include: { environments: true } });
    const shopB = await s.app.db.shop.findUniqueOrThrow({ where: { domain: b }, include: { environments: true } });
    const live = shopA.environments.find((e) => e.environment === 'live')!;
    const deliveryRef = (await s.courier.order(courierOrderId)).deliveryId;
    const calls = sim.log.length;

    const event = (status = 'driver_assigned') => {
      const id = `evt_${randomUUID()}`;
      const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: deliveryRef, status } });
      return { id, body };
    };
    const post = async (url: string, secret: string, opts: { ts?: number; tamper?: boolean } = {}) => {
      const { id, body } = event();
      const headers = signDeliveryWebhook({ secret, body, timestampSec: opts.ts ?? Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
      const res = await fetch(url, { method: 'POST', headers, body: opts.tamper ? body.replace('driver_assigned', 'delivered') : body });
      return { status: res.status, body: (await res.json()) as any, id };
    };
    const base = `${s.app.url}/webhooks/delivery`;
    const cases = [
      ['forged body', await post(account.endpointUrl, WEBHOOK_SECRET, { tamper: true }), 401],
      ['wrong secret', await post(account.endpointUrl, 'whsec_guessed_secret'), 401],
      ['stale timestamp', await post(account.endpointUrl, WEBHOOK_SECRET, { ts: Math.floor(Date.now() / 1000) - 3600 }), 401],
      ['test event at the live endpoint', await post(`${base}/${live.endpointId}`, WEBHOOK_SECRET), 401],
      ["shop A's event at shop B's endpoint", await post(`${base}/${shopB.environments.find((e) => e.environment === 'test')!.endpointId}`, WEBHOOK_SECRET), 401],
      ['unknown endpoint', await post(`${base}/ep_doesnotexist000000000000`, WEBHOOK_SECRET), 404],
    ] as const;
    for (const [name, r, status] of cases) {
      expect(r.status, name).toBe(status);
      expect(await s.app.db.courierEvent.count({ where: { eventId: r.id } }), name).toBe(0);
    }
    const missing = await fetch(account.endpointUrl, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).reason).toBe('missing_header');
    const huge = await fetch(account.endpointUrl, { method: 'POST', body: 'x'.repeat(100_000) });
    expect(huge.status).toBe(413);

    // The endpoint remembers the last rejection so the merchant can see it (written within a second).
    await waitFor(async () => /missing_header/.test((await s.app.db.courierEnvironment.findUniqueOrThrow({ where: { endpointId: account.endpointId } })).lastRejectionReason ?? ''), 'the last rejection to be recorded', 5_000);
    expect((await deliveryOf(s.app, a, orderId))!.courierStatus).toBeNull();
    expect(sim.log.length).toBe(calls);
  });

  it('a valid signature on a body that is not JSON gets 400', async () => {
    const domain = 'badjson.myshopify.com';
    await installShop(s, domain);
    const { endpointUrl } = await connectCourierAccount(s, domain);
    const body = '{"id": "evt_1", not json';
    const res = await fetch(endpointUrl, { method: 'POST', headers: signDeliveryWebhook({ secret: WEBHOOK_SECRET, body, timestampSec: Math.floor(Date.now() / 1000), eventId: 'evt_1', type: 'delivery.status.updated' }), body });
    expect(res.status).toBe(400);
  });
});

describe('nothing is lost', () => {
  it('a webhook that arrives before the create response was stored is matched later, not lost', async () => {
    const domain = 'early.myshopify.com';
    const sim = await installShop(s, domain);
    await connectCourierAccount(s, domain);
    await s.courier.addFault({ route: 'create', type: 'delay_after_commit', latencyMs: 1_500 });
    const { orderId } = await placeOrder(s, sim);
    const [courierOrder] = await waitFor(async () => {
      const o = await s.courier.orders({ reference: orderId });
      return o.length ? o : null;
    }, 'the courier order to exist');
    await s.courier.advance(courierOrder!.id, { to: 'driver_assigned' });
    // Our create call is still waiting for its answer: the event cannot match yet.
    await waitFor(async () => (await s.app.db.courierEvent.count({ where: { state: 'UNMATCHED' } })) > 0 || null, 'an UNMATCHED event');
    const d = await waitFor(async () => {
      const x = await deliveryOf(s.app, domain, orderId);
      return x?.courierStatus === 'driver_assigned' ? x : null;
    }, 'driver_assigned applied');
    expect(d.status).toBe('IN_PROGRESS');
    await waitFor(async () => fulfillmentsOf(sim, orderId).length === 1, 'the fulfillment');
    expect(await s.app.db.courierEvent.count({ where: { deliveryId: d.id, state: 'PROCESSED' } })).toBe(2);
  });

  it('with webhooks switched off, reconciliation brings the delivery to its final state', async () => {
    const domain = 'quiet.myshopify.com';
    const { sim, orderId, courierOrderId } = await bookedOrder(domain);
    await s.courier.updateSettings({ webhooksEnabled: false });
    await s.courier.advance(courierOrderId, { to: 'delivered' });
    expect((await reconcileOnce(s.app.ctx)).changed).toBe(0); // not quiet long enough yet
    const r = await reconcileOnce(s.app.ctx, { now: Date.now() + 16 * 60_000 });
    expect(r.changed).toBeGreaterThanOrEqual(1);
    const d = await waitForStatus(s.app, domain, orderId, 'DELIVERED');
    expect(d.courierStatus).toBe('delivered');
    await waitFor(async () => fulfillmentsOf(sim, orderId)[0]?.events.at(-1)?.status === 'DELIVERED', 'DELIVERED in Shopify');
    const last = (await deliveryOf(s.app, domain, orderId))!.events.filter((e) => e.kind === 'courier_status').at(-1)!;
    expect(last.source).toBe('reconcile');
  });

  it('two syncs of one delivery in one process run one after the other, without meeting the cross-instance lease', async () => {
    const domain = 'twice.myshopify.com';
    const { sim, orderId, courierOrderId, delivery } = await bookedOrder(domain);
    await s.courier.updateSettings({ webhooksEnabled: false });
    await s.courier.advance(courierOrderId, { to: 'driver_assigned' });
    await reconcileOnce(s.app.ctx, { now: Date.now() + 16 * 60_000 });
    await waitForStatus(s.app, domain, orderId, 'IN_PROGRESS');
    await expect(Promise.all([runFulfillmentSync(s.app.ctx, delivery.id), runFulfillmentSync(s.app.ctx, delivery.id)])).resolves.toBeDefined();
    await waitFor(async () => fulfillmentsOf(sim, orderId).length === 1, 'one fulfillment');
  });
});

describe('Shopify errors', () => {
  it('throttling is waited out and retried', async () => {
    const domain = 'throttled.myshopify.com';
    const { sim, orderId, courierOrderId } = await bookedOrder(domain);
    sim.throttleNext = 3;
    await s.courier.advance(courierOrderId, { to: 'driver_assigned' });
    await waitFor(async () => fulfillmentsOf(sim, orderId).length === 1, 'the fulfillment despite throttling', 30_000);
    expect(sim.log.filter((l) => l.outcome === 'throttled').length).toBe(3);
    expect((await deliveryOf(s.app, domain, orderId))!.status).toBe('IN_PROGRESS');
  });

  it('userErrors put the delivery in NEEDS_ATTENTION with Shopify\'s message; a retry writes it again', async () => {
    const domain = 'usererrors.myshopify.com';
    const { sim, orderId, courierOrderId } = await bookedOrder(domain);
    // The merchant holds the fulfillment order: the create from the booked ids is refused, and the
    // order read that follows shows why.
    const fo = sim.order(orderId)!.fulfillmentOrders[0]!;
    sim.failNext.set('FulfillmentCreate', 'Fulfillment order is on hold.');
    fo.status = 'ON_HOLD';
    await s.courier.advance(courierOrderId, { to: 'driver_assigned' });
    const d = await waitForStatus(s.app, domain, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('shopify_error');
    expect(d.reason).toMatch(/on hold/);
    expect(fulfillmentsOf(sim, orderId)).toHaveLength(0);
    fo.status = 'OPEN';

    const { retryDelivery } = await import('../../web/dispatch/service.ts');
    await s.app.db.$transaction((tx) => retryDelivery(tx, s.app.ctx.queue, domain, d.id));
    s.app.ctx.queue.notify();
    await waitForStatus(s.app, domain, orderId, 'IN_PROGRESS');
    await waitFor(async () => fulfillmentsOf(sim, orderId).length === 1, 'the fulfillment after retry');
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
  });

  it('no open fulfillment order at the pickup location needs attention with that reason', async () => {
    const domain = 'nofo.myshopify.com';
    const { sim, orderId, courierOrderId } = await bookedOrder(domain);
    for (const fo of sim.order(orderId)!.fulfillmentOrders) fo.status = 'CLOSED';
    await s.courier.advance(courierOrderId, { to: 'driver_assigned' });
    const d = await waitForStatus(s.app, domain, orderId, 'NEEDS_ATTENTION');
    expect(d.reason).toMatch(/no open fulfillment order at the pickup location/);
  });
});

describe('portal set-up checks', () => {
  it('send test webhook: received and verified; with the wrong secret in the portal: received, rejected, with the reason', async () => {
    const domain = 'portal.myshopify.com';
    await installShop(s, domain);
    const account = await connectCourierAccount(s, domain);
    const ok = await sendTestWebhook(s.app.ctx, domain, 'test');
    expect(ok).toMatchObject({ sent: true, received: true, verified: true });
    const env = await s.app.db.courierEnvironment.findUniqueOrThrow({ where: { endpointId: account.endpointId } });
    expect(env.lastWebhookAt).toBeInstanceOf(Date);

    await s.courier.setWebhook(account.clientId, { url: account.endpointUrl, secret: 'whsec_typo_in_the_portal' });
    const bad = await sendTestWebhook(s.app.ctx, domain, 'test');
    expect(bad).toMatchObject({ sent: true, received: true, verified: false });
    expect(bad.message).toMatch(/signature/);
  });
});
