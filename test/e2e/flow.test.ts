// Shopify Flow end to end, black box (the sandbox courier, the shop simulator and
// the app as child processes; SQLite, or PostgreSQL with E2E_DATABASE_URL): each
// trigger reaches Shopify once per transition, also when the app is SIGKILLed
// while a trigger waits to be sent and restarted; Flow's action runs are signed,
// replay-safe and refused with the lifecycle table's reason.
import { describe, expect, it } from 'vitest';
import { accountFor, onboardShop, shopDomain, waitUntil } from '../../dev/demo/merchant.ts';
import type { Stack } from '../../dev/demo/stack.ts';
import { FLOW_TRIGGERS } from '../../web/lifecycle/machine.ts';
import { appDelivery, placeFresh, useStack, waitAppStatus } from './support.ts';

const stack = useStack('flow', { stepIntervalMs: 400 });

async function flowShop(s: Stack, name: string) {
  const shop = shopDomain(name);
  await onboardShop(s, shop, accountFor(shop), { configure: ['--settings', JSON.stringify({ flow: { sendTestDeliveries: true } })] });
  for (const t of FLOW_TRIGGERS) expect((await s.sim.flowLifecycle(shop, t, true)).status).toBe(200);
  return shop;
}

const courierOrderOf = (s: Stack, orderId: string) =>
  waitUntil(async () => (await s.courier.orders({ reference: orderId }))[0], `a courier order for ${orderId}`, { timeoutMs: 60_000 });
const triggersOf = async (s: Stack, shop: string, orderId: string) =>
  (await s.sim.flowTriggers(shop)).received.filter((t) => String(t.payload.order_id) === orderId).map((t) => t.handle);

describe('Shopify Flow', () => {
  it('booked and delivered reach Flow once each, although the app was killed while the delivered trigger waited for Shopify', async () => {
    const s = stack();
    const shop = await flowShop(s, 'e2e-flow-crash');
    await s.courier.updateSettings({ stepIntervalMs: 0 }); // statuses move on command only
    const order = (await placeFresh(s, shop, 'sandton-same-day')).order;
    const co = await courierOrderOf(s, order.id);
    await waitUntil(async () => (await triggersOf(s, shop, order.id)).includes('delivery-booked') || null, 'the booked trigger', { timeoutMs: 60_000 });

    // Shopify answers the trigger THROTTLED (only it: write-back goes first when a shop is behind, so a
    // throttle on every call would keep the trigger deferred, never attempted); the delivery is delivered.
    await s.sim.throttle(shop, 10_000, ['FlowTriggerReceive']);
    await s.courier.advance(co.id, { to: 'delivered' });
    await waitAppStatus(s, shop, order.id, 'DELIVERED');
    await waitUntil(async () => (await s.sim.operations(shop, 'FlowTriggerReceive')).some((op) => op.outcome === 'throttled') || null, 'a throttled attempt at the delivered trigger', { timeoutMs: 60_000 });
    await s.killApp();
    await s.sim.throttle(shop, 0);
    await s.startApp();

    await waitUntil(async () => (await triggersOf(s, shop, order.id)).includes('delivery-delivered') || null, 'the delivered trigger after the restart', { timeoutMs: 90_000 });
    await new Promise((r) => setTimeout(r, 3_000)); // anything sent twice would have arrived by now
    expect((await triggersOf(s, shop, order.id)).sort()).toEqual(['delivery-booked', 'delivery-delivered']);
    expect((await s.sim.flowTriggers(shop)).refused).toEqual([]);
  }, 240_000);

  it('actions: a forged run gets 401 and changes nothing; one the delivery\'s state forbids is refused with the reason', async () => {
    const s = stack();
    const shop = await flowShop(s, 'e2e-flow-refused');
    const order = (await placeFresh(s, shop, 'sandton-same-day')).order;
    const booked = await waitAppStatus(s, shop, order.id, 'CREATED');
    const forged = await s.sim.flowAction(shop, { handle: 'redispatch-order', orderId: order.id, secret: 'not-the-app-secret' });
    expect(forged.status).toBe(401);
    const refused = await s.sim.flowAction(shop, { handle: 'dispatch-order', orderId: order.id });
    expect(refused).toMatchObject({ status: 409, body: { message: 'delivery is CREATED; nothing to retry', code: 'not_allowed' } });
    expect((await appDelivery(s, shop, order.id)).generation).toBe(booked.generation);
    expect(await s.courier.ordersCreatedFor(order.id)).toBe(1);
  }, 240_000);

  it('re-dispatch after a courier failure runs once per action_run_id: Flow\'s retry of the run books nothing more', async () => {
    const s = stack();
    const shop = await flowShop(s, 'e2e-flow-actions');
    await s.courier.updateSettings({ stepIntervalMs: 0 });
    const order = (await placeFresh(s, shop, 'sandton-same-day')).order;
    const co = await courierOrderOf(s, order.id);
    await waitAppStatus(s, shop, order.id, 'CREATED');
    await s.courier.advance(co.id, { outcome: 'failed', to: 'failed' });
    const failed = await waitAppStatus(s, shop, order.id, 'NEEDS_ATTENTION');
    const run = await s.sim.flowAction(shop, { handle: 'redispatch-order', orderId: order.id });
    expect(run.status).toBe(202);
    await waitUntil(async () => (await s.courier.orders({ reference: order.id })).length === 2 || null, 'the second courier order', { timeoutMs: 90_000 });
    const done = await waitUntil(async () => {
      const again = await s.sim.flowAction(shop, { handle: 'redispatch-order', orderId: order.id, actionRunId: run.actionRunId });
      return again.status === 200 ? again : null;
    }, 'the run done', { timeoutMs: 90_000, intervalMs: 1_000 });
    expect(done.body).toMatchObject({ message: 'Queued for a new delivery' });
    expect(await s.courier.ordersCreatedFor(order.id)).toBe(2);
    expect((await appDelivery(s, shop, order.id)).generation).toBe(failed.generation + 1);
    // The relay sends triggers asynchronously (its idle poll backs off to 4 s), so wait for this one.
    const needsAttention = async () => (await triggersOf(s, shop, order.id)).filter((h) => h === 'delivery-needs-attention');
    await waitUntil(async () => (await needsAttention()).length > 0 || null, 'the needs-attention trigger', { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 3_000)); // anything sent twice would have arrived by now
    expect(await needsAttention()).toHaveLength(1);
  }, 240_000);
});
