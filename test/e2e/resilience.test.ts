// End to end, black box, when things go wrong: a courier 5xx storm, courier
// webhooks duplicated and shuffled, and the app SIGKILLed mid-run and restarted on
// the same database. Every order must still end exactly once: one courier order,
// one Shopify fulfillment, events only forward. The tests share one stack and run
// in order (the sandbox's faults and switches are global).
import { afterEach, describe, expect, it } from 'vitest';
import { accountFor, onboardShop, shopDomain, waitUntil } from '../../dev/demo/merchant.ts';
import type { Stack } from '../../dev/demo/stack.ts';
import { appDelivery, describeOrder, expectOrder, placeFresh, useStack, waitDeliveredInShopify } from './support.ts';

const STEP_MS = 400;
const stack = useStack('resilience', { stepIntervalMs: STEP_MS });

afterEach(async () => {
  // Back to a well-behaved courier for the next test.
  const s = stack();
  await s.courier.clearFaults();
  await s.courier.updateSettings({ duplicateSends: false, outOfOrder: false, stepIntervalMs: STEP_MS });
  await s.courier.flushWebhooks();
});

async function courierOrderOf(s: Stack, orderId: string) {
  return waitUntil(async () => (await s.courier.orders({ reference: orderId }))[0], `a courier order for ${orderId}`, { timeoutMs: 60_000 });
}

describe('when things go wrong', () => {
  it('a courier 5xx storm (503s, a dropped answer after the order was made, 500s): each order booked exactly once, retries byte-identical', async () => {
    const s = stack();
    const shop = shopDomain('e2e-storm');
    await onboardShop(s, shop, accountFor(shop));
    await s.courier.addFault([
      { route: 'token', type: 'status', status: 503, count: 2 },
      { route: 'create', type: 'status', status: 503, count: 4 },
      { route: 'create', type: 'drop_after_commit', count: 1 },
      { route: 'create', type: 'status', status: 500, count: 3 },
    ]);
    const orders = [(await placeFresh(s, shop, 'sandton-same-day')).order, (await placeFresh(s, shop, 'durban-same-day')).order];
    for (const o of orders) await waitDeliveredInShopify(s, shop, o.id, 90_000);
    const keys = new Set<string>();
    for (const o of orders) {
      const { courierOrders } = await expectOrder(s, shop, o.id, { outcome: 'DELIVERED' });
      expect(await s.courier.ordersCreatedFor(o.id)).toBe(1);
      keys.add(courierOrders[0]!.idempotencyKey);
    }
    expect(await s.courier.faults()).toEqual([]);
    // Every create for an order carried the same Idempotency-Key and the same bytes.
    const creates = (await s.courier.requests({ route: 'create' })).filter((r) => keys.has(r.idempotencyKey ?? ''));
    // 4 × 503, the dropped answer (never resent: looked up by reference), 3 × 500, then the other order's booking.
    expect(creates.length).toBeGreaterThanOrEqual(1 + 8);
    expect(creates.map((r) => r.status)).toEqual(expect.arrayContaining([503, 0, 500]));
    expect(new Set(creates.map((r) => r.idempotencyKey)).size).toBe(2);
    for (const key of keys) {
      const bodies = new Set(creates.filter((r) => r.idempotencyKey === key).map((r) => r.bodySha256));
      expect(bodies.size, `bodies sent under ${key}`).toBe(1);
    }
    // The answer lost after the order was made was recovered by looking the order up, not by sending it again.
    expect(creates.filter((r) => r.status === 0)).toHaveLength(1);
    expect((await s.courier.requests({ route: 'list' })).length).toBeGreaterThanOrEqual(1);
  });

  it('courier webhooks sent twice and shuffled: one fulfillment each, events only forward, ending DELIVERED', async () => {
    const s = stack();
    const shop = shopDomain('e2e-shuffle');
    await onboardShop(s, shop, accountFor(shop));
    await s.courier.updateSettings({ duplicateSends: true, outOfOrder: true, outOfOrderBatchSize: 4 });
    const orders: Array<{ id: string; name: string }> = [];
    for (const f of ['sandton-same-day', 'cape-town-same-day', 'local-phone']) orders.push((await placeFresh(s, shop, f)).order);
    // The courier finishes every delivery; then it sends what it still holds back.
    await waitUntil(async () => {
      const c = await Promise.all(orders.map((o) => s.courier.orders({ reference: o.id })));
      return c.every((x) => x[0]?.deliveryStatus === 'delivered');
    }, 'the courier to deliver all three', { timeoutMs: 60_000 });
    await s.courier.flushWebhooks();
    for (const o of orders) await waitDeliveredInShopify(s, shop, o.id);
    for (const o of orders) {
      await expectOrder(s, shop, o.id, { outcome: 'DELIVERED' }, { anyEventSubsequence: true });
      expect(await s.courier.ordersCreatedFor(o.id)).toBe(1);
    }
    const courierIds = new Set((await Promise.all(orders.map((o) => s.courier.orders({ reference: o.id })))).flat().map((x) => x.id));
    const log = (await s.courier.webhookLog()).filter((w) => w.orderId !== null && courierIds.has(w.orderId));
    expect(log.some((w) => w.duplicate && w.result === 'delivered')).toBe(true);
    expect(log.some((w) => w.result === 'held')).toBe(true);
    expect((await s.sim.operations(shop, 'FulfillmentCreate')).filter((op) => op.outcome === 'ok')).toHaveLength(orders.length);
  });

  it('the app SIGKILLed mid-run (one booking in flight, deliveries half-way) and restarted: everything ends exactly once', async () => {
    const s = stack();
    const shop = shopDomain('e2e-crash');
    await onboardShop(s, shop, accountFor(shop));
    await s.courier.updateSettings({ stepIntervalMs: 0 }); // statuses move on command only: we choose the moment of the crash

    // A is half-way (picked up; its fulfillment with tracking is in Shopify); B is booked and waiting for a driver.
    const a = (await placeFresh(s, shop, 'sandton-same-day')).order;
    const b = (await placeFresh(s, shop, 'cape-town-same-day')).order;
    const [ca, cb] = [await courierOrderOf(s, a.id), await courierOrderOf(s, b.id)];
    await s.courier.advance(ca.id, { to: 'picked_up' });
    await waitUntil(async () => {
      const [oa, ob] = await Promise.all([s.sim.order(shop, a.id), s.sim.order(shop, b.id)]);
      // Picked up is coalesced into the next event a customer sees: the app holds it, Shopify has the fulfillment.
      if (oa.fulfillments.length !== 1 || !ob.tags.includes('same-day-dispatched')) return false;
      return (await appDelivery(s, shop, a.id)).courierStatus === 'picked_up';
    }, 'A picked up in Shopify and B written back', { timeoutMs: 30_000, describe: async () => `${await describeOrder(s, shop, a.id)} | ${await describeOrder(s, shop, b.id)}` });

    // C: the courier makes the order, then takes 4 s to answer. The app dies while it waits.
    await s.courier.addFault({ route: 'create', type: 'delay_after_commit', latencyMs: 4_000 });
    const c = (await placeFresh(s, shop, 'durban-same-day')).order;
    const cc = await courierOrderOf(s, c.id);
    await s.killApp();
    expect(s.appRunning()).toBe(false);

    // While it is down: A and B move on (their webhooks fail and are retried), and D is paid (orders/paid retried).
    await s.courier.advance(ca.id, { to: 'delivered' });
    await s.courier.advance(cb.id, { to: 'in_transit' });
    const d = (await placeFresh(s, shop, 'local-phone')).order;
    expect((await s.sim.webhooks({ shop, topic: 'orders/paid', orderId: d.id }))[0]!.attempts[0]!.status).not.toBe(200);

    await s.startApp();
    const cd = await courierOrderOf(s, d.id);
    for (const x of [cb, cc, cd]) await s.courier.advance(x.id, { to: 'delivered' });
    for (const o of [a, b, c, d]) await waitDeliveredInShopify(s, shop, o.id, 90_000);
    for (const o of [a, b, c, d]) {
      await expectOrder(s, shop, o.id, { outcome: 'DELIVERED' }, { anyEventSubsequence: true });
      expect(await s.courier.ordersCreatedFor(o.id), `courier orders for ${o.name}`).toBe(1);
    }
    // C's booking was recovered by looking it up by reference after the restart, not sent again.
    const cCreates = (await s.courier.requests({ route: 'create' })).filter((r) => r.idempotencyKey === cc.idempotencyKey);
    expect(cCreates).toHaveLength(1);
    expect((await s.sim.operations(shop, 'FulfillmentCreate')).filter((op) => op.outcome === 'ok')).toHaveLength(4);
    const held = await s.cliJson<Array<{ shopifyOrderId: string; status: string }>>(['deliveries', shop]);
    expect(held.map((x) => x.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED', 'DELIVERED']);
  });
});
