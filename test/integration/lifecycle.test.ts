// The lifecycle's I/O (web/transitions/transition.ts) on a real database, and the
// Re-dispatch rule for skipped orders over the admin API (issue 15).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionError, merchantTransition, transition, transitionLatest } from '../../web/transitions/transition.ts';
import { adminClient } from '../support/admin-client.ts';
import { installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

async function skippedDelivery(shop: string, changes: Record<string, unknown> = { shipping_lines: [{ title: 'Standard', code: 'standard' }] }) {
  const sim = await installShop(s, shop);
  const { orderId } = await placeOrder(s, sim, changes);
  return { orderId, delivery: await waitForStatus(s.app, shop, orderId, 'SKIPPED') };
}

const timeline = (id: string) => s.app.db.deliveryEvent.findMany({ where: { deliveryId: id }, orderBy: { receivedAt: 'asc' } });

describe('one conditional update per transition', () => {
  it('the intake writes a new delivery with its timeline: the order paid, and why it was skipped', async () => {
    const { delivery } = await skippedDelivery('lc-intake-timeline.myshopify.com');
    const lines = await timeline(delivery.id);
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: 'received', source: 'shopify', message: `Order ${delivery.orderName} paid`, generation: 1 }),
      expect.objectContaining({ kind: 'skipped', source: 'app', message: delivery.reason, generation: 1 }),
    ]));
    expect(lines[0]!.occurredAt).toEqual(lines[1]!.occurredAt);
  });

  it('writes the status, its fields and the timeline entry together', async () => {
    const { delivery } = await skippedDelivery('lc-apply.myshopify.com');
    const r = await s.app.db.$transaction((tx) =>
      transition(tx, null, delivery, { event: 'shopify_cancelled', data: { reasonCode: 'cancelled', reason: 'gone' }, timeline: { kind: 'shopify_cancelled', message: 'gone' } }));
    expect(r).toMatchObject({ applied: true, to: 'SKIPPED' });
    expect(await s.app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'SKIPPED', reasonCode: 'cancelled', reason: 'gone' });
    expect((await timeline(delivery.id)).at(-1)).toMatchObject({ kind: 'shopify_cancelled', message: 'gone' });
  });

  it('a decision made on a stale row writes nothing', async () => {
    const { delivery } = await skippedDelivery('lc-stale.myshopify.com');
    const before = (await timeline(delivery.id)).length;
    // Someone else moved it meanwhile (another generation).
    await s.app.db.delivery.update({ where: { id: delivery.id }, data: { generation: 2 } });
    const r = await s.app.db.$transaction((tx) =>
      transition(tx, null, delivery, { event: 'shopify_cancelled', data: { reasonCode: 'cancelled' }, timeline: { kind: 'shopify_cancelled' } }));
    expect(r).toMatchObject({ applied: false, conflict: true });
    expect(await s.app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'SKIPPED', reasonCode: 'shipping_method' });
    expect(await timeline(delivery.id)).toHaveLength(before);
    // A merchant acting on that stale row is told to reload.
    await expect(s.app.db.$transaction((tx) => merchantTransition(tx, s.app.ctx.queue, delivery, { event: 'fix', data: {} })))
      .rejects.toThrow(new ActionError('the delivery changed meanwhile; reload and try again'));
  });

  it('an illegal transition writes nothing; a merchant is told which states allow it', async () => {
    const { delivery } = await skippedDelivery('lc-illegal.myshopify.com');
    const before = (await timeline(delivery.id)).length;
    const r = await s.app.db.$transaction((tx) => transition(tx, null, delivery, { event: 'booking_failed', data: { reasonCode: 'courier_unavailable' }, timeline: { kind: 'failed' } }));
    expect(r).toMatchObject({ applied: false, conflict: false, decision: { ok: false } });
    await expect(s.app.db.$transaction((tx) => merchantTransition(tx, s.app.ctx.queue, delivery, { event: 'retry' })))
      .rejects.toThrow('delivery was skipped; use dispatch now to send it');
    expect(await s.app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'SKIPPED', reasonCode: 'shipping_method' });
    expect(await timeline(delivery.id)).toHaveLength(before);
  });

  it('transitionLatest decides again on the fresh row after a concurrent change', async () => {
    const { delivery } = await skippedDelivery('lc-latest.myshopify.com');
    const seen: string[] = [];
    const r = await transitionLatest(s.app.db, null, delivery.id, (d) => {
      seen.push(`${d.status}/${d.generation}`);
      return { event: 'shopify_cancelled', data: { reasonCode: 'cancelled' }, timeline: { kind: 'shopify_cancelled' }, where: seen.length === 1 ? { shopifyOrderId: 'not-this-order' } : {} };
    });
    // The first attempt's extra condition matched nothing (as a concurrent change would): read and decided again.
    expect(seen).toEqual(['SKIPPED/1', 'SKIPPED/1']);
    expect(r).toMatchObject({ applied: true, to: 'SKIPPED' });
  });
});

describe('Re-dispatch of a skipped order (one rule for the admin, the API and the CLI)', () => {
  it('is offered and books it, under the same key when nothing was sent', async () => {
    const shop = 'lc-redispatch.myshopify.com';
    const { orderId, delivery } = await skippedDelivery(shop);
    const api = adminClient(s.app.url, shop);
    expect((await api.get(`/api/deliveries/${delivery.id}`)).body.delivery.actions).toEqual(['dispatch', 'fix', 'redispatch']);
    const r = await api.post(`/api/deliveries/${delivery.id}/redispatch`);
    expect(r.status).toBe(200);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(booked.generation).toBe(1);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect((await api.get(`/api/deliveries/${delivery.id}`)).body.delivery.actions).toEqual(['check']);
    const again = await api.post(`/api/deliveries/${delivery.id}/redispatch`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('delivery is CREATED; only skipped, attention or failed deliveries can be re-dispatched');
  });

  it('runs the same checks as dispatch now: an order with nothing to ship is refused, and stays skipped', async () => {
    const shop = 'lc-noship.myshopify.com';
    const { orderId, delivery } = await skippedDelivery(shop, { line_items: [{ id: 1, title: 'Gift card', quantity: 1, price: '10.00', requires_shipping: false, grams: 0 }] });
    expect(delivery.reasonCode).toBe('nothing_to_ship');
    const api = adminClient(s.app.url, shop);
    const r = await api.post(`/api/deliveries/${delivery.id}/redispatch`);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/Nothing to ship/);
    expect((await api.post(`/api/deliveries/${delivery.id}/dispatch`)).body.error).toBe(r.body.error);
    expect(await s.app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'SKIPPED', generation: 1 });
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(0);
  });
});
