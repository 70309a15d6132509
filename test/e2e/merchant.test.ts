// End to end, black box: the sandbox courier, the shop simulator and the app run
// as child processes; this file talks to them over HTTP only (control APIs and
// the app's endpoints) and acts as the merchant through the operator CLI.
// Each test uses its own shop and courier account on the one stack.
import { describe, expect, it } from 'vitest';
import {
  accountFor, collectOrders, FIXTURE_EXPECTATIONS, FIXTURE_ORDER, onboardShop, SANDBOX_ACCOUNT, shopDomain, waitUntil,
} from '../../dev/demo/merchant.ts';
import { signDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';
import { appDelivery, expectOrder, placeFresh, useStack, waitAppStatus, waitDeliveredInShopify } from './support.ts';

// Every booked delivery moves one courier status per step, as in the demo.
const stack = useStack('merchant', { stepIntervalMs: 400 });

describe('a merchant on Same-Day Dispatch', () => {
  it('every fixture order, end to end: delivered and fulfilled once, or held with the reason', async () => {
    const s = stack();
    const shop = shopDomain('e2e-happy');
    const { checks } = await onboardShop(s, shop, SANDBOX_ACCOUNT, { checks: true });
    expect(checks[0]).toMatch(/^OK: the test courier issued a token/);
    expect(checks[1]).toMatch(/^OK: Received and verified a test webhook/);

    expect((await s.sim.fixtures()).sort()).toEqual([...FIXTURE_ORDER].sort());
    const ids = new Map<string, string>();
    for (const fixture of FIXTURE_ORDER) {
      const r = await s.sim.placeOrder(shop, { fixture });
      expect(r.webhook?.attempts[0]?.status, `orders/paid for ${fixture}`).toBe(200);
      ids.set(fixture, r.order.id);
    }
    for (const [fixture, orderId] of ids) {
      const exp = FIXTURE_EXPECTATIONS[fixture]!;
      if (exp.outcome === 'DELIVERED') await waitDeliveredInShopify(s, shop, orderId);
      else await waitAppStatus(s, shop, orderId, exp.outcome);
    }
    for (const [fixture, orderId] of ids) await expectOrder(s, shop, orderId, FIXTURE_EXPECTATIONS[fixture]!);

    // Across the three systems: one courier order and one fulfillment per dispatched order, nothing else.
    const delivered = FIXTURE_ORDER.filter((f) => FIXTURE_EXPECTATIONS[f]!.outcome === 'DELIVERED');
    const courierOrders = (await s.courier.orders()).filter((c) => c.clientId === SANDBOX_ACCOUNT.clientId);
    expect(courierOrders.map((c) => c.reference).sort()).toEqual(delivered.map((f) => ids.get(f)!).sort());
    const creates = (await s.sim.operations(shop, 'FulfillmentCreate')).filter((op) => op.outcome === 'ok');
    expect(creates).toHaveLength(delivered.length);
    const states = await collectOrders(s, shop);
    expect(states).toHaveLength(FIXTURE_ORDER.length);
    // The test order went to the test environment, like the rest (never live).
    expect(states.find((x) => x.orderId === ids.get('test-order'))!.delivery!.environment).toBe('test');
  });

  it('duplicate orders/paid (a redelivery with the same webhook id, and new ids at once): one delivery, one courier order', async () => {
    const s = stack();
    const shop = shopDomain('e2e-dupes');
    await onboardShop(s, shop, accountFor(shop));
    const placed = await placeFresh(s, shop, 'sandton-same-day');
    const orderId = placed.order.id;
    expect(placed.webhook!.attempts[0]!.status).toBe(200);

    // Shopify's duplicate (same webhook id and bytes), and two more orders/paid under new ids, all at once.
    const repeats = await Promise.all([
      s.sim.redeliver(placed.webhook!.seq, { wait: true }),
      s.sim.sendWebhook(shop, { topic: 'orders/paid', orderId, wait: true }),
      s.sim.sendWebhook(shop, { topic: 'orders/paid', orderId, wait: true }),
    ]);
    expect(repeats[0]!.webhookId).toBe(placed.webhook!.webhookId);
    expect(new Set(repeats.map((r) => r.webhookId)).size).toBe(3);

    await waitDeliveredInShopify(s, shop, orderId);
    await expectOrder(s, shop, orderId, { outcome: 'DELIVERED' });
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    const held = (await s.cliJson<Array<{ shopifyOrderId: string }>>(['deliveries', shop])).filter((d) => d.shopifyOrderId === orderId);
    expect(held).toHaveLength(1);
    // Every copy was eventually acknowledged (a racing copy may have been retried by the simulator).
    const paid = await s.sim.webhooks({ shop, topic: 'orders/paid', orderId });
    expect(paid).toHaveLength(4);
    await waitUntilAllDelivered(() => s.sim.webhooks({ shop, topic: 'orders/paid', orderId }));
  });

  it('a merchant-fixable problem: needs attention, fixed with the CLI, then dispatched and delivered once', async () => {
    const s = stack();
    const shop = shopDomain('e2e-fix');
    await onboardShop(s, shop, accountFor(shop));
    const { order } = await placeFresh(s, shop, 'no-coordinates');
    const held = await waitAppStatus(s, shop, order.id, 'NEEDS_ATTENTION');
    expect(held.reasonCode).toBe('missing_coordinates');
    expect(held.reason).toBe('Shipping address has no coordinates');
    expect(await s.courier.ordersCreatedFor(order.id)).toBe(0);

    // Half a fix is refused with one line, and changes nothing.
    const half = await s.cli(['fix', shop, order.id, '--lat=-25.7545']);
    expect(half.code).toBe(1);
    expect(half.stderr.trim()).toBe('error: --lat and --lng go together');
    expect((await appDelivery(s, shop, order.id)).status).toBe('NEEDS_ATTENTION');

    const fixed = await s.cliOk(['fix', shop, order.name, '--lat=-25.7545', '--lng=28.2314']);
    expect(fixed.trim()).toBe(`Corrected and queued ${order.name} again.`);
    await waitDeliveredInShopify(s, shop, order.id);
    await expectOrder(s, shop, order.id, { outcome: 'DELIVERED' });
    expect(await s.courier.ordersCreatedFor(order.id)).toBe(1);
    const timeline = (await appDelivery(s, shop, order.id)).events.map((e) => e.kind);
    expect(timeline).toEqual(expect.arrayContaining(['received', 'attention', 'requeued', 'created']));
  });

  it('uninstall, then shop/redact: the courier endpoint closes, then everything of the shop is gone', async () => {
    const s = stack();
    const shop = shopDomain('e2e-bye');
    const account = accountFor(shop);
    const { webhookUrl } = await onboardShop(s, shop, account);
    // Signed with the shop's secret, so only the endpoint decides (unsigned requests get 401 before any lookup).
    const signedPost = () => {
      const body = JSON.stringify({ id: 'evt_bye', type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: 'dlv_bye', status: 'accepted' } });
      const headers = signDeliveryWebhook({ secret: account.webhookSecret, body, timestampSec: Math.floor(Date.now() / 1000), eventId: 'evt_bye', type: 'delivery.status.updated' });
      return fetch(webhookUrl, { method: 'POST', headers, body });
    };
    const { order } = await placeFresh(s, shop, 'cape-town-same-day');
    await waitDeliveredInShopify(s, shop, order.id);
    await expectOrder(s, shop, order.id, { outcome: 'DELIVERED' });

    const uninstalled = await s.sim.uninstall(shop, { wait: true });
    expect(uninstalled.attempts.at(-1)!.status).toBe(200);
    const shops = await s.cliJson<Array<{ domain: string; uninstalledAt: string | null; deliveries: number }>>(['shops']);
    expect(shops.find((x) => x.domain === shop)).toMatchObject({ uninstalledAt: expect.any(String), deliveries: 1 });
    // The courier's webhooks for an uninstalled shop are refused (the endpoint id is unknown now).
    expect((await signedPost()).status).toBe(404);

    const redact = await s.sim.sendWebhook(shop, { topic: 'shop/redact', wait: true });
    expect(redact.attempts.at(-1)!.status).toBe(200);
    const after = (await s.cliJson<Array<{ domain: string }>>(['shops'])).map((x) => x.domain);
    // Gone, and only this shop: the other shops on the same app are untouched.
    expect(after).toEqual(shops.map((x) => x.domain).filter((d) => d !== shop));
    const show = await s.cli(['show', shop]);
    expect(show.code).toBe(1);
    expect(show.stderr.trim()).toBe(`error: shop ${shop} is not installed`);
    expect(await s.cliJson<unknown[]>(['deliveries', shop])).toEqual([]);
    // Shopify may send shop/redact again: still 200, nothing else happens.
    expect((await s.sim.redeliver(redact.seq, { wait: true })).attempts.at(-1)!.status).toBe(200);
    expect((await signedPost()).status).toBe(404);
  });
});

async function waitUntilAllDelivered(list: () => Promise<Array<{ state: string; attempts: Array<{ status: number | null }> }>>) {
  const all = await waitUntil(async () => {
    const w = await list();
    return w.every((x) => x.state === 'delivered') ? w : null;
  }, 'every orders/paid copy to be acknowledged', { timeoutMs: 30_000, describe: async () => JSON.stringify(await list()) });
  for (const w of all) expect(w.attempts.at(-1)!.status).toBe(200);
}
