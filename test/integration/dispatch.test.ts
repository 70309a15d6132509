// Automatic dispatch end to end, over real HTTP: signed orders/paid → the app
// → the sandbox courier; Shopify intercepted with MockAgent. Runs on SQLite
// and on PostgreSQL.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, placeOrder, useScenario, waitForStatus, WEBHOOK_SECRET, type Scenario } from '../support/scenario.ts';
import { testProvider } from '../support/db.ts';
import { isEncrypted } from '../../web/security/crypto.ts';
import { recordCreated } from '../../web/dispatch/dispatcher.ts';

let s: Scenario;
useScenario((started) => (s = started));

/** The operator CLI against the scenario's database. */
const cli = (...args: string[]) =>
  runCli({ DATABASE_URL: s.app.config.databaseUrl, ENCRYPTION_KEY: s.app.env.ENCRYPTION_KEY!, LOG_LEVEL: 'error' }, ...args);

const METAFIELD = (key: string) => `$app:same_day_dispatch.${key}`;

describe('orders/paid → courier order', () => {
  it('books one courier order and stores its price and job id; the Shopify order gets metafields and a tag', async () => {
    const shop = 'happy.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');

    const [courierOrder] = await s.courier.orders({ reference: orderId });
    expect(courierOrder).toBeDefined();
    expect(d.deliveryPrice).toBe(courierOrder!.deliveryPrice);
    expect(d.dispatchJobId).toBe(courierOrder!.dispatchId);
    expect(d.courierOrderId).toBe(courierOrder!.id);
    expect(d.courierOrderStatus).toBe('VALIDATED');
    expect(d.currency).toBe('ZAR');
    expect(d.requestId).toMatch(/^req_/);
    // The request we stored is the one the courier received.
    const sent = JSON.parse(d.requestBody!);
    expect(sent).toMatchObject({ reference: orderId, amount: 1249.9, currency: 'ZAR', pickup: { storeId: 'store_sandbox_001' }, dropoff: { phone: '+27825551234' } });
    expect(d.requestBody).toContain('"amount":1249.90');
    // Written by raw statements (issue 24), the bodies are still sealed at rest as the extension seals them.
    const [atRest] = await s.app.server.services()!.database.db.$queryRawUnsafe<Array<{ requestBody: string; responseBody: string }>>(
      `SELECT "requestBody", "responseBody" FROM "Delivery" WHERE "id" = '${d.id}'`);
    for (const body of [atRest!.requestBody, atRest!.responseBody]) {
      expect(isEncrypted(body)).toBe(true);
      expect(body).not.toContain('+27825551234');
    }
    expect(JSON.parse(d.responseBody!)).toBeTruthy();

    await waitFor(async () => sim.order(orderId)!.tags.includes('same-day-dispatched'), 'the order tag');
    const m = sim.order(orderId)!.metafields;
    expect(m[METAFIELD('job_id')]?.value).toBe(courierOrder!.dispatchId);
    expect(m[METAFIELD('courier_order_id')]?.value).toBe(courierOrder!.id);
    expect(JSON.parse(m[METAFIELD('delivery_price')]!.value)).toEqual({ amount: courierOrder!.deliveryPrice, currency_code: 'ZAR' });
    const call = sim.log.find((l) => l.operationName === 'BookingWrite')!;
    expect(JSON.stringify(call.variables)).toContain(courierOrder!.dispatchId);
  });

  it('the same order delivered 3× under different webhook ids, and the same webhook 3×, books exactly one order', async () => {
    const shop = 'dupes.myshopify.com';
    const sim = await installShop(s, shop);
    const payload = paidOrder();
    sim.addOrder(payload);
    const orderId = orderIdOfPayload(payload);
    const results = await Promise.all([
      postShopifyWebhook(s.app.url, 'orders/paid', shop, payload, { webhookId: 'dup-a' }),
      postShopifyWebhook(s.app.url, 'orders/paid', shop, payload, { webhookId: 'dup-b' }),
      postShopifyWebhook(s.app.url, 'orders/paid', shop, payload, { webhookId: 'dup-c' }),
      postShopifyWebhook(s.app.url, 'orders/paid', shop, payload, { webhookId: 'dup-a' }),
      postShopifyWebhook(s.app.url, 'orders/paid', shop, payload, { webhookId: 'dup-a' }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    // Later redeliveries change nothing either.
    await postShopifyWebhook(s.app.url, 'orders/paid', shop, payload, { webhookId: 'dup-d' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect(await s.app.db.delivery.count({ where: { shopifyOrderId: orderId } })).toBe(1);
  });

  it('5xx ×3, then 429, then a dropped answer after commit: exactly one order, adopted by reference, delivery CREATED', async () => {
    const shop = 'storm.myshopify.com';
    const sim = await installShop(s, shop);
    await s.courier.addFault([
      { route: 'create', type: 'status', status: 503, count: 3 },
      { route: 'create', type: 'status', status: 429, retryAfter: '1' },
      { route: 'create', type: 'drop_after_commit' },
    ]);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED', 30_000);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    const creates = (await s.courier.requests({ route: 'create' })).filter((r) => r.idempotencyKey === d.idempotencyKey);
    // Four definite refusals retried; the dropped answer is never resent: the order is looked up and adopted.
    expect(creates.length).toBe(5);
    expect(new Set(creates.map((r) => r.bodySha256)).size).toBe(1);
    expect((await s.courier.requests({ route: 'list' })).length).toBeGreaterThanOrEqual(1);
    expect(d.events.some((e) => e.kind === 'adopted' && e.message!.includes(d.courierOrderId!))).toBe(true);
  });

  it("recordCreated's second line (the adopted line) is written only with the booking it belongs to", async () => {
    const shop = 'adopt-note.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const note = { kind: 'adopted', source: 'courier', message: 'adopted by a stale job' };
    const result = { orderId: 'ord_stale', orderStatus: 'VALIDATED', dispatchId: 'job_stale', deliveryId: '', requestId: '', deliveryPrice: '1.00', currency: 'ZAR', responseText: '{}' };
    // A job of an older generation finds the order: its booking is not stored, so neither is its line.
    await recordCreated(s.app.ctx, d.id, d.generation + 1, { environment: 'test', environmentId: 'none' }, result as never, false, undefined, note);
    const after = (await deliveryOf(s.app, shop, orderId))!;
    expect(after.courierOrderId).toBe(d.courierOrderId);
    expect(after.events.filter((e) => e.message === note.message)).toEqual([]);
  });

  it('an order the courier refuses needs attention, with the courier message, and is not retried', async () => {
    const shop = 'refused.myshopify.com';
    const sim = await installShop(s, shop, { environment: { pickupStoreId: 'store_not_ours' } });
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('courier_rejected');
    expect(d.reason).toMatch(/store/i);
    expect((await s.courier.requests({ route: 'create' })).length).toBe(1);
  });

  it('skips orders the rules exclude, with the reason', async () => {
    const shop = 'rules.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, { shipping_lines: [{ title: 'Standard', code: 'standard' }] });
    const d = await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    expect(d.reason).toBe("Shipping method 'Standard' is not one of your same-day methods (Same-day delivery)");
    expect((await s.courier.stats()).createRequests).toBe(0);
  });

  it('a cancelled order is never dispatched; one cancelled after booking is flagged for the merchant', async () => {
    const shop = 'cancel.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId, payload } = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    await postShopifyWebhook(s.app.url, 'orders/cancelled', shop, { ...payload, cancelled_at: new Date().toISOString() });
    const cancelled = (await deliveryOf(s.app, shop, orderId))!;
    expect(cancelled.reasonCode).toBe('cancelled');
    // Shopify's cancel is final: "dispatch now" (and fix, redispatch) refuses, naming why.
    const refused = await cli('dispatch', shop, cancelled.orderName!);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('the order was cancelled in Shopify; it will not be sent');
    expect((await deliveryOf(s.app, shop, orderId))!.status).toBe('SKIPPED');

    await s.app.db.shop.update({ where: { domain: shop }, data: { settings: JSON.stringify({ autoDispatch: true }) } });
    const booked = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, booked.orderId, 'CREATED');
    await postShopifyWebhook(s.app.url, 'orders/cancelled', shop, { ...booked.payload, cancelled_at: new Date().toISOString() });
    const d = await waitForStatus(s.app, shop, booked.orderId, 'CANCEL_REQUESTED_IN_SHOPIFY');
    expect(d.reason).toContain(d.dispatchJobId!);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(0);
  });
});

describe.runIf(testProvider() === 'sqlite')('the dispatch job on SQLite', () => {
  it('is completed by the transaction that stores the booking, while the reference check after it is still out', async () => {
    const shop = 'settled-with-booking.myshopify.com';
    const sim = await installShop(s, shop);
    // The reference check after the booking (GET /v1/orders?reference=) answers 3 s late.
    await s.courier.addFault({ route: 'list', type: 'latency', latencyMs: 3_000, count: 1 });
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await waitFor(async () => (await s.courier.requests({ route: 'list' })).length === 1, 'the reference check sent');
    const db = s.app.server.services()!.database.db;
    const jobOf = async () => (await db.$queryRawUnsafe<Array<{ state: string; attempts: number | bigint }>>(
      `SELECT "state", "attempts" FROM "Job" WHERE "queue" = 'dispatch' AND "payload" LIKE ?`, `%${d.id}%`))[0]!;
    expect((await jobOf()).state).toBe('completed');
    // The check's answer ends the handler: nothing runs again, and the reference was checked once.
    await waitFor(async () => (await s.courier.requests({ route: 'list' })).every((r) => r.status === 200), 'the reference check answered');
    await new Promise((r) => setTimeout(r, 200));
    expect(await jobOf()).toMatchObject({ state: 'completed' });
    expect(Number((await jobOf()).attempts)).toBe(1);
    expect(await s.courier.requests({ route: 'list' })).toHaveLength(1);
  });
});

describe('dispatch rules that need Shopify or the courier', () => {
  it('a quote above the maximum delivery price holds the order, with both prices, and books nothing', async () => {
    const shop = 'maxprice.myshopify.com';
    const sim = await installShop(s, shop, { settings: { maxDeliveryPrice: '10.00' } });
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('price_above_max');
    expect(d.reason).toMatch(/^Quoted price \d+\.\d{2} ZAR is above your maximum of 10\.00 ZAR$/);
    expect((await s.courier.requests({ route: 'quote' })).length).toBe(1);
    expect((await s.courier.stats()).createRequests).toBe(0);
  });

  it('the fulfilling Shopify location picks the pickup store', async () => {
    const shop = 'locations.myshopify.com';
    const sim = await installShop(s, shop, { environment: { locationStores: { '71000000002': 'store_sandbox_002' } } });
    const payload = paidOrder();
    sim.addOrder(payload, { locationId: '71000000002' });
    await postShopifyWebhook(s.app.url, 'orders/paid', shop, payload);
    const d = await waitForStatus(s.app, shop, orderIdOfPayload(payload), 'CREATED');
    expect(JSON.parse(d.requestBody!).pickup.storeId).toBe('store_sandbox_002');
    expect(sim.log.some((l) => l.operationName === 'OrderFulfillmentOrdersForDispatch')).toBe(true);
  });
});

describe('merchant-fixable problems', () => {
  it.each([
    ['missing coordinates', { shipping_address: { latitude: null, longitude: null } }, 'missing_coordinates', 'Shipping address has no coordinates', ['--lat=-26.1076', '--lng=28.0567']],
    ['a bad phone', { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } }, 'invalid_phone', "Phone '0825' is not a valid ZA number", ['--phone', '082 555 1234']],
    ['no shipping address', { shipping_address: null }, 'no_shipping_address', 'No shipping address', null],
  ] as const)('%s → NEEDS_ATTENTION, zero courier calls; fixed through the CLI → CREATED', async (_name, changes, code, reason, fix) => {
    const shop = `fix-${code.replace(/_/g, '-')}.myshopify.com`;
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, changes as Record<string, unknown>);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe(code);
    expect(d.reason).toBe(reason);
    expect((await s.courier.stats()).createRequests).toBe(0);
    if (!fix) return;

    const r = await cli('fix', shop, d.orderName!, ...fix);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Corrected and queued/);
    s.app.ctx.queue.notify();
    const done = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect(done.generation).toBe(1); // nothing was ever sent, so the first key is still unused
  });

  it('dispatch now sends a skipped order; show masks the secrets', async () => {
    const shop = 'dispatch-now.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { orderId } = await placeOrder(s, sim);
    const skipped = await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const r = await cli('dispatch', shop, skipped.orderName!);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/Queued .* for dispatch/);
    s.app.ctx.queue.notify();
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);

    const shown = await cli('show', shop);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(/client secret\s+set \(••••\w{4}\)/);
    expect(shown.stdout).not.toContain('sandbox-client-secret');
    expect(shown.stdout).not.toContain(WEBHOOK_SECRET);
  }, 90_000); // CLI child processes, each starting Node and Prisma

  it('the CLI names what is wrong in one line and exits non-zero', async () => {
    const r = await cli('fix', 'nowhere.myshopify.com', '#1');
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe("error: no delivery '#1' for nowhere.myshopify.com");
  });
});

describe.runIf(testProvider() === 'postgres')('several app instances on one PostgreSQL database', () => {
  it('200 orders sent to two instances book exactly 200 courier orders', async () => {
    const { startTestApp } = await import('../support/app.ts');
    const second = await startTestApp({ ...s.app.env, PORT: '0' }, { databaseUrl: s.app.config.databaseUrl, keepDatabase: true });
    try {
      const shop = 'scale.myshopify.com';
      const sim = await installShop(s, shop);
      // A Plus bucket: 200 orders' Shopify calls on a standard one take a minute of restore (docs/shopify-rate-limits.md).
      sim.bucket.setLimits({ maximumAvailable: 20_000, restoreRate: 1_000 });
      const orders = Array.from({ length: 200 }, () => paidOrder());
      for (const o of orders) sim.addOrder(o);
      const targets = [s.app.url, second.url];
      for (let i = 0; i < orders.length; i += 20) {
        await Promise.all(orders.slice(i, i + 20).map((o, j) => postShopifyWebhook(targets[(i + j) % 2]!, 'orders/paid', shop, o)));
      }
      await waitFor(async () => (await s.app.db.delivery.count({ where: { shop: { domain: shop }, status: 'CREATED' } })) === 200, '200 deliveries CREATED', 60_000);
      const stats = await s.courier.stats();
      expect(stats.ordersCreated).toBe(200);
      expect(Object.values(stats.ordersByReference).every((n) => n === 1)).toBe(true);
    } finally {
      await second.close();
    }
  }, 90_000);
});
