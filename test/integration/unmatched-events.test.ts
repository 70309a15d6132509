// Unmatched courier events in front of the merchant: the admin API and the CLI
// list them (raw event, when, ids tried), attach one to a delivery (the id is
// learned and waiting events apply) or dismiss it; the deliveries list carries
// the count for the home page. Also "Check status now" and resolving duplicate
// bookings. Over real HTTP; SQLite and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminClient } from '../support/admin-client.ts';
import { cliOf } from '../support/cli.ts';
import { bookedWithAccount, postStatusEvent } from '../support/courier-events.ts';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ runtime: { fulfillment: { reconcileIntervalMs: 0 } } });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await s.courier.reset();
});

const cli = (...args: string[]) => cliOf(s)(...args);

const postEvent = async (url: string, deliveryRef: string, status: string) => (await postStatusEvent(url, { deliveryRef, status })).id;

async function unmatchedState(eventId: string) {
  return waitFor(async () => {
    const e = await s.app.db.courierEvent.findFirst({ where: { eventId } });
    return e && e.state !== 'RECEIVED' ? e : null;
  }, `event ${eventId} processed`);
}

describe('unmatched courier events', () => {
  it('are listed with the raw event and ids tried, counted, attached through the API (waiting events apply), or dismissed', async () => {
    const shop = 'orphans.myshopify.com';
    const { account, orderId, delivery: d } = await bookedWithAccount(s, shop);
    // A courier id we can never learn from an order read.
    const a = await postEvent(account.endpointUrl, 'delivery_secret_1', 'driver_assigned');
    const b = await postEvent(account.endpointUrl, 'delivery_secret_1', 'picked_up');
    const c = await postEvent(account.endpointUrl, 'delivery_noise', 'in_transit');
    for (const id of [a, b, c]) expect((await unmatchedState(id)).state).toBe('UNMATCHED');

    const api = adminClient(s.app.url, shop);
    const list = await api.get('/api/courier-events/unmatched');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(3);
    const first = list.body.events.find((e: any) => e.eventId === a);
    expect(first).toMatchObject({ environment: 'test', deliveryRef: 'delivery_secret_1', status: 'driver_assigned', raw: { id: a, data: { delivery_id: 'delivery_secret_1' } } });
    expect(first.triedIds).toContain('delivery_secret_1');
    // The booked order was read to learn its ids, once, by whichever of the three events ran first
    // (different delivery ids run concurrently; a CI run saw the noise event read it first).
    expect(list.body.events.flatMap((e: any) => e.triedIds)).toContain(d.courierOrderId);
    expect(new Date(first.receivedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await api.get('/api/deliveries')).body.unmatchedEvents).toBe(3);
    // Another shop sees none of them.
    await installShop(s, 'stranger.myshopify.com');
    expect((await adminClient(s.app.url, 'stranger.myshopify.com').get('/api/courier-events/unmatched')).body.count).toBe(0);

    const bad = await api.post(`/api/courier-events/${first.id}/attach`, {});
    expect(bad.status).toBe(422);
    expect(bad.body.errors.deliveryId).toBeDefined();
    const attached = await api.post(`/api/courier-events/${first.id}/attach`, { deliveryId: d.id });
    expect(attached.status).toBe(200);
    expect(attached.body.applied).toBe(2);
    const after = (await deliveryOf(s.app, shop, orderId))!;
    expect(after.courierStatus).toBe('picked_up');
    expect(after.status).toBe('IN_PROGRESS');
    expect(after.events.some((e) => e.kind === 'event_attached')).toBe(true);
    // The id is learned: the next event naming it matches at once.
    const next = await postEvent(account.endpointUrl, 'delivery_secret_1', 'in_transit');
    expect((await unmatchedState(next)).state).toBe('PROCESSED');

    const noise = list.body.events.find((e: any) => e.eventId === c);
    expect((await api.post(`/api/courier-events/${noise.id}/dismiss`)).status).toBe(200);
    expect((await api.post(`/api/courier-events/${noise.id}/dismiss`)).status).toBe(409);
    expect((await api.get('/api/courier-events/unmatched')).body.count).toBe(0);
    expect((await api.get('/api/deliveries')).body.unmatchedEvents).toBe(0);
  });

  it('the CLI lists, attaches by order name and dismisses, scoped to the shop', { timeout: 120_000 }, async () => {
    const shop = 'orphans-cli.myshopify.com';
    const { account, orderId, delivery: d } = await bookedWithAccount(s, shop);
    const a = await postEvent(account.endpointUrl, 'delivery_cli_1', 'driver_assigned');
    const c = await postEvent(account.endpointUrl, 'delivery_cli_noise', 'in_transit');
    await unmatchedState(a);
    await unmatchedState(c);

    const listed = await cli('unmatched', shop);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('2 unmatched courier event(s)');
    expect(listed.stdout).toContain(a);
    expect(listed.stdout).toContain('"delivery_id":"delivery_cli_1"');
    expect(listed.stdout).toContain(d.courierOrderId!);
    expect((await cli('unmatched', 'other-cli.myshopify.com')).stdout).not.toContain(a);

    const attached = await cli('attach', shop, a, d.orderName!);
    expect(attached.stderr).toBe('');
    expect(attached.stdout).toContain('1 event(s) applied');
    expect((await deliveryOf(s.app, shop, orderId))!.courierStatus).toBe('driver_assigned');
    // Another shop's order name does not reach this delivery.
    expect((await cli('attach', 'other-cli.myshopify.com', c, d.orderName!)).status).not.toBe(0);
    expect((await cli('dismiss', shop, c)).status).toBe(0);
    expect((await cli('dismiss', shop, c)).stderr).toMatch(/DISMISSED, not unmatched/);
  });
});

describe('an event that arrives while its booking is being stored', () => {
  it('is matched by a pass shortly after, without reconciliation (reconcile is off here)', async () => {
    const shop = 'late-booking.myshopify.com';
    const { account, orderId, delivery: d } = await bookedWithAccount(s, shop);
    // The courier names an id of a booking whose transaction has not committed yet: kept UNMATCHED.
    const id = await postEvent(account.endpointUrl, 'ord_late_1', 'driver_assigned');
    expect((await unmatchedState(id)).state).toBe('UNMATCHED');
    // Now the booking commits. Its own check for waiting events ran before the event was kept,
    // so it queued no pass: only its ref appears.
    await s.app.db.courierRef.create({ data: { deliveryId: d.id, shopId: d.shopId, environment: d.environment!, generation: d.generation, kind: 'delivery', value: 'ord_late_1' } });
    await waitFor(async () => (await s.app.db.courierEvent.findFirst({ where: { eventId: id } }))?.state === 'PROCESSED' || null, 'the late event matched', 15_000);
    expect((await deliveryOf(s.app, shop, orderId))!.events.some((e) => e.courierEventId === id)).toBe(true);
  });
});

describe('check status now and duplicate bookings', () => {
  it('the API reads the courier at once; the CLI reconcile <shop> <order> too', async () => {
    const shop = 'checknow.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const api = adminClient(s.app.url, shop);
    expect((await api.get(`/api/deliveries/${d.id}`)).body.delivery.actions).toContain('check');
    const r = await api.post(`/api/deliveries/${d.id}/check`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ result: 'changed', message: 'Courier status: pending' });
    await s.courier.advance(d.courierOrderId!, { to: 'picked_up' });
    const out = await cli('reconcile', shop, d.orderName!);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('courier status picked_up (changed)');
    expect((await deliveryOf(s.app, shop, orderId))!.status).toBe('IN_PROGRESS');
    await installShop(s, 'nosy.myshopify.com');
    expect((await adminClient(s.app.url, 'nosy.myshopify.com').post(`/api/deliveries/${d.id}/check`)).status).toBe(404);
  });

  it('a delivery flagged with duplicate courier orders can be marked resolved once the extras are cancelled', async () => {
    const shop = 'resolve.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await s.app.db.delivery.update({ where: { id: d.id }, data: { reasonCode: 'duplicate_courier_orders', reason: 'The courier holds 2 orders', courierOrders: '[]' } });
    const api = adminClient(s.app.url, shop);
    const view = (await api.get(`/api/deliveries/${d.id}`)).body.delivery;
    expect(view.attention.title).toMatch(/more than once/);
    expect(view.actions).toEqual(['check', 'resolve']);
    expect((await api.get('/api/deliveries')).body.duplicateBookings).toBe(1);
    expect((await api.post(`/api/deliveries/${d.id}/resolve`)).status).toBe(200);
    expect((await api.post(`/api/deliveries/${d.id}/resolve`)).status).toBe(409);
    expect((await api.get('/api/deliveries')).body.duplicateBookings).toBe(0);
    const after = (await deliveryOf(s.app, shop, orderId))!;
    expect(after.reasonCode).toBeNull();
    expect(after.events.some((e) => e.kind === 'duplicates_resolved')).toBe(true);
  });
});
