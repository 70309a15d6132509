// Shopify Flow over real HTTP, on SQLite and PostgreSQL: the real app with its
// job workers, the sandbox courier sending signed status webhooks, and the
// shop simulator holding flowTriggerReceive to the trigger extensions' schema
// (dev/shop-sim/flow.ts). Flow's calls to the app are signed as Shopify signs them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireFlowAction, flowState, sendFlowLifecycle } from '../../dev/shop-sim/flow.ts';
import type { SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { FLOW_TRIGGERS } from '../../web/lifecycle/machine.ts';
import { sendQueuedTrigger } from '../../web/flow/triggers.ts';
import { OPERATION_COST } from '../../web/shopify/operation-costs.ts';
import { FLOW_KEEP_DAYS, forgetOldFlowRecords } from '../../web/flow/index.ts';
import { TEST_API_SECRET } from '../support/app.ts';
import { postStatusEvent } from '../support/courier-events.ts';
import { waitFor } from '../support/process.ts';
import { connectCourierAccount, deliveryOf, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario({
    sandbox: { webhooksEnabled: true, webhookRetryDelaysMs: [50, 100, 200] },
    runtime: { flow: { relayIntervalMs: 50 }, fulfillment: { retry: { baseDelayMs: 50, maxDelayMs: 300 }, reconcileIntervalMs: 0 } },
  });
});
afterAll(async () => {
  await s?.close();
});

const call = (sim: SimShop) => ({ appUrl: s.app.url, apiSecret: TEST_API_SECRET, shop: sim });
const received = (sim: SimShop, handle: string, orderId?: string) =>
  flowState(sim).received.filter((t) => t.handle === handle && (orderId === undefined || String(t.payload.order_id) === orderId));
const outbox = (orderId: string) => s.app.db.flowTriggerEvent.findMany({ where: { delivery: { shopifyOrderId: orderId } }, orderBy: { createdAt: 'asc' } });
/** Every outbox row of the order settled (sent, skipped or failed). */
const settled = (orderId: string, n: number, timeoutMs?: number) =>
  waitFor(async () => {
    const rows = await outbox(orderId);
    return rows.length === n && rows.every((r) => !['pending', 'queued'].includes(r.state)) ? rows : null;
  }, `${n} settled flow triggers of order ${orderId}`, timeoutMs);

/** A shop whose workflows use every trigger, test deliveries included. */
async function flowShop(domain: string, opts: { sendTestDeliveries?: boolean; triggers?: readonly string[] } = {}) {
  const sim = await installShop(s, domain, { settings: { flow: { sendTestDeliveries: opts.sendTestDeliveries ?? true } } });
  await connectCourierAccount(s, domain);
  for (const trigger of opts.triggers ?? FLOW_TRIGGERS) expect((await sendFlowLifecycle(call(sim), { trigger, enabled: true })).status).toBe(200);
  return sim;
}

describe('flow triggers', () => {
  it('booked and delivered: each sent once, with the order reference and the extension\'s fields, even when the courier repeats its webhooks', async () => {
    const shop = 'flow-happy.myshopify.com';
    const sim = await flowShop(shop);
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await waitFor(async () => received(sim, 'delivery-booked', orderId).length === 1 || null, 'the booked trigger');
    expect(received(sim, 'delivery-booked', orderId)[0]!.payload).toEqual({
      order_id: Number(orderId), 'Delivery price': booked.deliveryPrice, Currency: booked.currency, 'Job id': booked.dispatchJobId,
      'Pickup location id': booked.locationId ? `gid://shopify/Location/${booked.locationId}` : '',
    });
    await s.courier.advance(booked.courierOrderId!, { to: 'delivered' });
    const delivered = await waitForStatus(s.app, shop, orderId, 'DELIVERED');
    // The courier says "delivered" again, under a new event id: recorded, no new transition, no new trigger.
    const env = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shop: { domain: shop }, environment: 'test' } });
    await postStatusEvent(`${s.app.url}/webhooks/delivery/${env.endpointId}`, { deliveryRef: booked.courierOrderId!, status: 'delivered' });
    const rows = await settled(orderId, 2);
    expect(rows.map((r) => [r.trigger, r.state, r.snapshot])).toEqual([['delivery-booked', 'sent', null], ['delivery-delivered', 'sent', null]]);
    const [d] = received(sim, 'delivery-delivered', orderId);
    expect(d!.payload).toMatchObject({ order_id: Number(orderId), 'Delivered at': delivered.courierStatusAt!.toISOString(), 'Job id': booked.dispatchJobId });
    expect(d!.payload['Minutes from paid to delivered']).toBe(Math.round((delivered.courierStatusAt!.getTime() - delivered.createdAt.getTime()) / 60_000));
    expect(received(sim, 'delivery-booked', orderId)).toHaveLength(1);
    expect(received(sim, 'delivery-delivered', orderId)).toHaveLength(1);
    expect(flowState(sim).refused).toEqual([]);
  });

  it('a courier failure: needs attention (reason, what the merchant can do) and failed by courier, once each', async () => {
    const shop = 'flow-failure.myshopify.com';
    const sim = await flowShop(shop);
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await s.courier.advance(booked.courierOrderId!, { to: 'picked_up' });
    await s.courier.advance(booked.courierOrderId!, { outcome: 'failed', to: 'failed' });
    await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    const rows = await settled(orderId, 3);
    expect(rows.map((r) => r.trigger).sort()).toEqual(['delivery-booked', 'delivery-courier-failed', 'delivery-needs-attention']);
    expect(received(sim, 'delivery-needs-attention', orderId).map((t) => t.payload)).toEqual([
      { order_id: Number(orderId), 'Reason code': 'courier_failed', Reason: expect.stringMatching(/courier/i), 'What you can do': 'Retry, Fix and retry, Re-dispatch' },
    ]);
    expect(received(sim, 'delivery-courier-failed', orderId).map((t) => t.payload)).toEqual([{ order_id: Number(orderId), 'Courier status': 'failed', 'Job id': booked.dispatchJobId }]);
  });

  it('Shopify refusing for a while (throttled): the trigger waits, spending no attempt, and is received once', async () => {
    const shop = 'flow-throttled.myshopify.com';
    const sim = await flowShop(shop, { triggers: ['delivery-booked'] });
    sim.throttleOnly = ['FlowTriggerReceive'];
    sim.throttleNext = 2;
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    const [row] = await settled(orderId, 1);
    // THROTTLED is never a failure (docs/shopify-rate-limits.md): the job deferred twice, and sent once.
    expect(row).toMatchObject({ state: 'sent', attempts: 1 });
    expect(sim.log.filter((l) => l.operationName === 'FlowTriggerReceive').map((l) => l.outcome)).toEqual(['throttled', 'throttled', 'ok']);
    expect(received(sim, 'delivery-booked', orderId)).toHaveLength(1);
  });

  it("a shop whose Admin API bucket is empty: the trigger waits for the shop's budget (deferred, not failed), then is received once and paid for", async () => {
    const shop = 'flow-empty-bucket.myshopify.com';
    const sim = await flowShop(shop, { triggers: ['delivery-delivered'] });
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await waitFor(async () => (await deliveryOf(s.app, shop, orderId))?.writebackPending === false || null, 'the booking written back');
    // A small bucket, empty, restoring 10 points a second. The app learns it from Shopify's answers to the
    // out-for-delivery writes.
    const drain = () => {
      sim.bucket.setLimits({ maximumAvailable: 100, restoreRate: 10 });
      sim.bucket.available = 0;
    };
    drain();
    await s.courier.advance(booked.courierOrderId!, { to: 'out_for_delivery' });
    await waitFor(async () => sim.order(orderId)!.fulfillments[0]?.events.some((e) => e.status === 'OUT_FOR_DELIVERY') || null, 'out for delivery in Shopify');
    // A trigger is background work: it waits until the bucket also holds the share kept for customer-visible
    // writes (here the whole bucket, 10 s), so its job gives back its worker and comes back later.
    drain();
    await s.courier.advance(booked.courierOrderId!, { to: 'delivered' });
    await waitForStatus(s.app, shop, orderId, 'DELIVERED');
    const [row] = await settled(orderId, 1, 30_000);
    expect(row).toMatchObject({ trigger: 'delivery-delivered', state: 'sent', attempts: 1 });
    expect(received(sim, 'delivery-delivered', orderId)).toHaveLength(1);
    const sends = sim.log.filter((l) => l.operationName === 'FlowTriggerReceive');
    // Paced, not refused over and over: at most the one THROTTLED answer that told the app its bucket was empty.
    expect(sends.filter((l) => l.outcome === 'ok')).toHaveLength(1);
    expect(sends.filter((l) => l.outcome === 'throttled').length).toBeLessThanOrEqual(1);
    expect(sends.find((l) => l.outcome === 'ok')!.cost).toBe(OPERATION_COST.FlowTriggerReceive);
    // The job gave back its worker and came back when the budget paid: no failed attempt.
    expect(s.app.logs.some((l) => /Shopify API budget is spent/.test(l) && /flow-trigger/.test(l))).toBe(true);
    expect(s.app.logs.some((l) => /job failed/.test(l) && /flow-trigger/.test(l))).toBe(false);
  });

  it('a send job run again after its trigger went out (a crash and a retry) sends nothing more', async () => {
    const shop = 'flow-rerun.myshopify.com';
    const sim = await flowShop(shop, { triggers: ['delivery-booked'] });
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    const [row] = await settled(orderId, 1);
    await sendQueuedTrigger(s.app.ctx, row!.id);
    await s.app.db.flowTriggerEvent.update({ where: { id: row!.id }, data: { state: 'queued' } }); // even if it looked queued: no snapshot left to send
    await sendQueuedTrigger(s.app.ctx, row!.id);
    expect(received(sim, 'delivery-booked', orderId)).toHaveLength(1);

    // Settled rows are forgotten after FLOW_KEEP_DAYS; a row still waiting to be sent never is.
    await s.app.db.flowTriggerEvent.update({ where: { id: row!.id }, data: { state: 'sent' } });
    const pending = await s.app.db.flowTriggerEvent.create({ data: { deliveryId: row!.deliveryId, shopId: row!.shopId, trigger: 'delivery-delivered', generation: 1, state: 'pending', snapshot: '{}' } });
    expect((await forgetOldFlowRecords(s.app.ctx, s.app.ctx.now() + (FLOW_KEEP_DAYS - 1) * 86_400_000)).triggers).toBe(0);
    expect((await forgetOldFlowRecords(s.app.ctx, s.app.ctx.now() + (FLOW_KEEP_DAYS + 1) * 86_400_000)).triggers).toBeGreaterThanOrEqual(1);
    expect(await s.app.db.flowTriggerEvent.findMany({ where: { deliveryId: row!.deliveryId }, select: { id: true } })).toEqual([{ id: pending.id }]);
  });

  it('nothing for shops whose workflows do not use the trigger, nor for test deliveries unless the merchant asks', async () => {
    const unused = 'flow-unused.myshopify.com';
    const simUnused = await installShop(s, unused);
    const a = await placeOrder(s, simUnused);
    await waitForStatus(s.app, unused, a.orderId, 'CREATED');
    expect(await outbox(a.orderId)).toEqual([]);

    const testOnly = 'flow-test-deliveries.myshopify.com';
    const simTest = await flowShop(testOnly, { sendTestDeliveries: false, triggers: ['delivery-booked'] });
    const b = await placeOrder(s, simTest);
    await waitForStatus(s.app, testOnly, b.orderId, 'CREATED');
    expect((await settled(b.orderId, 1)).map((r) => [r.state, r.outcome])).toEqual([['skipped', 'a test delivery, and the shop does not send triggers for test deliveries']]);

    // Disabled later (a newer callback); an older callback arriving late changes nothing.
    const disabled = 'flow-disabled.myshopify.com';
    const simOff = await flowShop(disabled, { triggers: ['delivery-booked'] });
    expect((await sendFlowLifecycle(call(simOff), { trigger: 'delivery-booked', enabled: false })).status).toBe(200);
    expect((await sendFlowLifecycle(call(simOff), { trigger: 'delivery-booked', enabled: true, timestamp: new Date(Date.now() - 60_000).toISOString() })).status).toBe(200);
    const c = await placeOrder(s, simOff);
    await waitForStatus(s.app, disabled, c.orderId, 'CREATED');
    expect(await outbox(c.orderId)).toEqual([]);
    for (const sim of [simUnused, simTest, simOff]) expect(flowState(sim).received).toEqual([]);
  });

  it('a lifecycle callback with a bad signature gets 401 and records nothing; a bad body gets 400 naming the field', async () => {
    const shop = 'flow-forged-callback.myshopify.com';
    const sim = await installShop(s, shop);
    const forged = await sendFlowLifecycle(call(sim), { trigger: 'delivery-booked', enabled: true, secret: 'not-the-app-secret' });
    expect(forged.status).toBe(401);
    expect(await s.app.db.flowTriggerUsage.count({ where: { shop: { domain: shop } } })).toBe(0);
  });
});

describe('flow actions', () => {
  it('a forged action request gets 401 and changes nothing', async () => {
    const shop = 'flow-forged.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId } = await placeOrder(s, sim);
    const before = await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const r = await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId, secret: 'not-the-app-secret' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: 'HMAC validation failed: X-Shopify-Hmac-Sha256 must sign the body with the app secret' });
    // An unsigned copy of a real body, and a body changed after signing, fare the same.
    const unsigned = await fetch(`${s.app.url}/flow/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unsigned.status).toBe(401);
    await new Promise((res) => setTimeout(res, 300));
    expect(await deliveryOf(s.app, shop, orderId)).toEqual(before);
    expect(await s.app.db.flowActionRun.count({ where: { shop: { domain: shop } } })).toBe(0);
  });

  it('dispatch: 202 while its job runs, then done; the same action_run_id again does nothing and answers 200', async () => {
    const shop = 'flow-dispatch.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const first = await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId });
    expect(first.status).toBe(202);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await waitFor(async () => (await s.app.db.flowActionRun.findUnique({ where: { actionRunId: first.actionRunId } }))?.state === 'done' || null, 'the run done');
    // The booking's own Shopify write adds its timeline line in a job of its own: wait for it first.
    const timeline = (await waitFor(async () => {
      const d = await deliveryOf(s.app, shop, orderId);
      return d!.events.some((e) => e.kind === 'writeback') ? d : null;
    }, 'the booking written to Shopify'))!.events.length;
    const again = await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId, actionRunId: first.actionRunId });
    expect(again).toMatchObject({ status: 200, body: { message: 'Queued for dispatch', action_run_id: first.actionRunId } });
    await new Promise((res) => setTimeout(res, 300));
    const after = await deliveryOf(s.app, shop, orderId);
    expect(after!.events.length).toBe(timeline);
    expect(after!.generation).toBe(booked.generation);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect(await s.app.db.flowActionRun.count({ where: { actionRunId: first.actionRunId } })).toBe(1);
  });

  it('an order Shopify holds that the app never received is recorded and dispatched', async () => {
    const shop = 'flow-never-received.myshopify.com';
    const sim = await installShop(s, shop);
    const { paidOrder, orderIdOfPayload } = await import('../support/orders.ts');
    const payload = paidOrder();
    sim.addOrder(payload);
    const orderId = orderIdOfPayload(payload);
    expect((await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId })).status).toBe(202);
    await waitForStatus(s.app, shop, orderId, 'CREATED');
  });

  it('an action the delivery\'s state forbids is refused with the reason, and nothing changes', async () => {
    const shop = 'flow-refused.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    // Settled: the booking's own Shopify write (a job of its own) has added its timeline line.
    const booked = await waitFor(async () => {
      const d = await deliveryOf(s.app, shop, orderId);
      return d!.events.some((e) => e.kind === 'writeback') && !d!.writebackPending ? d! : null;
    }, 'the booking written to Shopify');
    const dispatch = await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId });
    expect(dispatch).toMatchObject({ status: 409, body: { message: 'delivery is CREATED; nothing to retry', code: 'not_allowed' } });
    const redispatch = await fireFlowAction(call(sim), { handle: 'redispatch-order', orderId });
    expect(redispatch).toMatchObject({ status: 409, body: { message: 'delivery is CREATED; only skipped, attention or failed deliveries can be re-dispatched', code: 'not_allowed' } });
    const unknown = await fireFlowAction(call(sim), { handle: 'redispatch-order', orderId: '424242' });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    // A replay of a refused run gets the same refusal.
    expect(await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId, actionRunId: dispatch.actionRunId })).toMatchObject({ status: 409, body: dispatch.body });
    const after = await deliveryOf(s.app, shop, orderId);
    expect({ ...after, events: after!.events.length }).toEqual({ ...booked, events: booked.events.length, updatedAt: after!.updatedAt, writebackPending: after!.writebackPending });
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
  });

  it('re-dispatch after a courier failure books a new delivery under a new generation', async () => {
    const shop = 'flow-redispatch.myshopify.com';
    const sim = await installShop(s, shop);
    await connectCourierAccount(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await s.courier.advance(booked.courierOrderId!, { outcome: 'failed', to: 'failed' });
    await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    const r = await fireFlowAction(call(sim), { handle: 'redispatch-order', orderId });
    expect(r.status).toBe(202);
    const again = await waitFor(async () => {
      const d = await deliveryOf(s.app, shop, orderId);
      return d?.status === 'CREATED' && d.generation === 2 ? d : null;
    }, 'the new booking');
    expect(again.courierOrderId).not.toBe(booked.courierOrderId);
    expect(await s.app.db.flowActionRun.findUnique({ where: { actionRunId: r.actionRunId } })).toMatchObject({ state: 'done', httpStatus: 200, message: 'Queued for a new delivery' });
    // The new booking fails too. Flow's retry of the first run must not re-dispatch again: only a new run may.
    await s.courier.advance(again.courierOrderId!, { outcome: 'failed', to: 'failed' });
    await waitFor(async () => ((await deliveryOf(s.app, shop, orderId))?.status === 'NEEDS_ATTENTION' ? true : null), 'the second failure');
    const replay = await fireFlowAction(call(sim), { handle: 'redispatch-order', orderId, actionRunId: r.actionRunId });
    expect(replay).toMatchObject({ status: 200, body: { message: 'Queued for a new delivery' } });
    await new Promise((res) => setTimeout(res, 500));
    expect(await deliveryOf(s.app, shop, orderId)).toMatchObject({ status: 'NEEDS_ATTENTION', generation: 2 });
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(2);
  });

  it('a bad body gets 400 naming the field', async () => {
    const shop = 'flow-bad-body.myshopify.com';
    const sim = await installShop(s, shop);
    const r = await fireFlowAction(call(sim), { handle: 'dispatch-order', orderId: '1', rawBody: JSON.stringify({ shopify_domain: shop, action_run_id: 'r1', handle: 'dispatch-order', properties: {} }) });
    expect(r).toMatchObject({ status: 400, body: { field: 'properties.order_id' } });
  });
});
