// Shopify's calculated-cost limits, end to end (docs/shopify-rate-limits.md): the app
// paces its Admin calls per shop, a THROTTLED answer never spends a job attempt, one
// shop's empty bucket does not hold another shop's orders, and on PostgreSQL two
// instances share one budget per shop. SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { FAST_RUNTIME, type TestApp } from '../support/app.ts';
import { dropDatabase, freshDatabaseUrl, testProvider } from '../support/db.ts';
import { paidOrder } from '../support/orders.ts';
import { waitFor } from '../support/process.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { connectCourierAccount, deliveryOf, installShop, placeOrder, useScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { OPERATION_COST } from '../../web/shopify/operation-costs.ts';

let s: Scenario;
useScenario((started) => (s = started), {
  sandbox: { webhooksEnabled: true, webhookRetryDelaysMs: [50, 100, 200] },
  runtime: { fulfillment: { retry: { baseDelayMs: 50, maxDelayMs: 300 }, reconcileIntervalMs: 0 } },
});

/** How long the dispatch job's whole attempt budget lasts in this app (FAST_RUNTIME): every backoff, uncapped by jitter. */
function attemptBudgetMs(): number {
  const r = FAST_RUNTIME.dispatchRetry!;
  let total = 0;
  for (let n = 1; n < r.maxAttempts!; n++) total += Math.min(r.maxDelayMs!, r.baseDelayMs! * 2 ** (n - 1));
  return total;
}

const paid = (sim: { log: Array<{ outcome: string }> }) => sim.log.filter((l) => l.outcome === 'ok' || l.outcome === 'user_errors').length;

describe('a shop throttled for longer than a job\'s whole attempt budget', () => {
  it('every order still ends fulfilled and delivered: nothing parked, no duplicates', async () => {
    const domain = 'sale-throttled.myshopify.com';
    const sim = await installShop(s, domain);
    await connectCourierAccount(s, domain);
    // Shopify refuses every call for three attempt budgets' time.
    const throttleForMs = 3 * attemptBudgetMs() + 1_000;
    sim.throttleNext = 1_000_000;
    const started = Date.now();
    const orders = await Promise.all(Array.from({ length: 4 }, () => placeOrder(s, sim)));
    await new Promise((r) => setTimeout(r, throttleForMs));
    const refused = sim.log.filter((l) => l.outcome === 'throttled').length;
    sim.throttleNext = 0;
    expect(Date.now() - started).toBeGreaterThan(attemptBudgetMs());
    // More THROTTLED answers than the jobs have attempts: had they counted, the orders would be parked.
    expect(refused).toBeGreaterThan(FAST_RUNTIME.dispatchRetry!.maxAttempts! * orders.length);

    for (const { orderId } of orders) {
      const d = await waitForStatus(s.app, domain, orderId, 'CREATED', 30_000);
      await s.courier.advance(d.courierOrderId!, { to: 'delivered' });
    }
    for (const { orderId } of orders) {
      await waitForStatus(s.app, domain, orderId, 'DELIVERED', 30_000);
      await waitFor(async () => sim.order(orderId)!.fulfillments[0]?.events.at(-1)?.status === 'DELIVERED', `order ${orderId} delivered in Shopify`, 30_000);
    }
    for (const { orderId } of orders) {
      const d = (await deliveryOf(s.app, domain, orderId))!;
      expect(d.events.filter((e) => e.kind === 'attention' || e.kind === 'writeback_failed' || e.kind === 'failed')).toEqual([]);
      expect(sim.order(orderId)!.fulfillments).toHaveLength(1);
      // The booking write is background priority: it may land after the visible events.
      await waitFor(async () => sim.order(orderId)!.tags.includes('same-day-dispatched'), `order ${orderId} tagged`, 30_000);
      expect(sim.order(orderId)!.tags).toEqual(['same-day-dispatched']);
      expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    }
    const jobs = await s.app.db.delivery.count({ where: { shop: { domain }, status: { in: ['NEEDS_ATTENTION', 'FAILED'] } } });
    expect(jobs).toBe(0);
  }, 90_000);
});

describe('fairness across shops', () => {
  it('a shop whose bucket is empty does not hold another shop\'s order', async () => {
    const busy = 'busy-shop.myshopify.com';
    const quiet = 'quiet-shop.myshopify.com';
    const busySim = await installShop(s, busy);
    const quietSim = await installShop(s, quiet);
    // The busy shop's bucket restores 1 point a second: its dispatch reads wait long; its jobs give back their workers.
    busySim.bucket.setLimits({ maximumAvailable: 600, restoreRate: 1 });
    busySim.bucket.available = 0;
    const busyOrders = await Promise.all(Array.from({ length: 20 }, () => placeOrder(s, busySim)));
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const { orderId } = await placeOrder(s, quietSim);
    await waitForStatus(s.app, quiet, orderId, 'CREATED', 10_000);
    const quietMs = Date.now() - t0;
    expect(quietMs).toBeLessThan(5_000);
    // The busy shop's orders wait for its budget (their jobs deferred, no attempt spent), none failed or parked.
    for (const o of busyOrders) expect((await deliveryOf(s.app, busy, o.orderId))!.status).toBe('PENDING');
    // Only the first calls, sent before Shopify had reported this shop's bucket, could be refused.
    expect(busySim.bucket.throttled).toBeLessThanOrEqual(8);
    expect(s.app.logs.some((l) => /Shopify API budget is spent/.test(l))).toBe(true);
  }, 60_000);
});

describe.runIf(testProvider() === 'postgres')('two instances on one PostgreSQL database, one shop', () => {
  it('share one budget: the shop\'s bucket is never overdrawn by more than one call\'s cost', async () => {
    const { startTestApp } = await import('../support/app.ts');
    const second = await startTestApp({ ...s.app.env, PORT: '0' }, { databaseUrl: s.app.config.databaseUrl, keepDatabase: true });
    try {
      const shop = 'shared-budget.myshopify.com';
      const sim = await installShop(s, shop);
      // A small bucket: 600 points restoring 50/s. The 40 orders' reads (28 asked, 7 spent) and booking writes (20)
      // ask 40 × 48 points at once from two instances, three times the bucket, and spend about 40 × 27: some 10 s of restore.
      sim.bucket.setLimits({ maximumAvailable: 600, restoreRate: 50 });
      const orders = Array.from({ length: 40 }, () => paidOrder());
      for (const o of orders) sim.addOrder(o);
      const targets = [s.app.url, second.url];
      await Promise.all(orders.map((o, i) => postShopifyWebhook(targets[i % 2]!, 'orders/paid', shop, o)));
      await waitFor(async () => (await s.app.db.delivery.count({ where: { shop: { domain: shop }, status: 'CREATED' } })) === orders.length, 'every delivery CREATED', 90_000);
      await waitFor(async () => (await s.app.db.delivery.count({ where: { shop: { domain: shop }, writebackPending: false } })) === orders.length, 'every booking written back', 90_000);
      // The largest call of this sale: a booking write carrying up to six orders (web/dispatch/writeback.ts).
      const largest = Math.max(...Object.entries(OPERATION_COST).filter(([k]) => /^(OrderFulfillmentOrdersForDispatch|Bookings?Write\d*)$/.test(k)).map(([, v]) => v));
      expect(sim.bucket.lowestDemand).toBeGreaterThanOrEqual(-largest);
      expect(sim.bucket.throttled).toBeLessThanOrEqual(1);
      // One read per order, and each order in exactly one booking write (the two instances never write one twice).
      const ok = sim.log.filter((l) => l.outcome === 'ok');
      expect(ok.filter((l) => l.operationName === 'OrderFulfillmentOrdersForDispatch')).toHaveLength(orders.length);
      const written = ok.filter((l) => /^Bookings?Write\d*$/.test(l.operationName)).flatMap((l) => Object.entries(l.variables).filter(([k]) => /^id\d*$/.test(k)).map(([, v]) => String(v).split('/').pop()));
      expect(written.sort()).toEqual(orders.map((o) => String(o.id)).sort());
      expect(paid(sim)).toBe(ok.length);
    } finally {
      await second.close();
    }
  }, 180_000);
});

describe('an app restarted while a shop\'s jobs are parked for its budget', () => {
  it('writes the parked booking soon after the start, not after the park\'s 10-minute fallback', async () => {
    const { startTestApp } = await import('../support/app.ts');
    const url = await freshDatabaseUrl();
    const env = { ...s.app.env, PORT: '0', DATABASE_URL: url };
    const shop = 'parked-restart.myshopify.com';
    let first: TestApp | undefined = await startTestApp(env, { databaseUrl: url, keepDatabase: true });
    let second: TestApp | undefined;
    try {
      const sim = await installShop(s, shop, { app: first });
      // Enough for the order's visible calls, not for the background booking write (it leaves half the bucket to visible ones).
      sim.bucket.setLimits({ maximumAvailable: 1_000, restoreRate: 1 });
      sim.bucket.available = 250;
      const { orderId } = await placeOrder(s, sim, {}, { appUrl: first.url });
      await waitForStatus(first, shop, orderId, 'CREATED', 20_000);
      await waitFor(async () => first!.logs.some((l) => /Shopify API budget is spent/.test(l) && /"parked":true/.test(l)), 'the booking write to be parked', 20_000);
      expect(sim.order(orderId)!.tags).toEqual([]);
      await first.close();
      first = undefined;

      // The next process starts as if 10 minutes later by its clock: Shopify's bucket has refilled, and so has the
      // budget the app stored for it (PostgreSQL). The wake the first process would have sent is gone with it,
      // and the queue's own time for the parked job (real time) is still 10 minutes away.
      sim.bucket.available = 1_000;
      second = await startTestApp(env, { databaseUrl: url, keepDatabase: true, runtime: { clock: { now: () => Date.now() + 10 * 60_000 } } });
      await waitFor(async () => sim.order(orderId)!.tags.includes('same-day-dispatched'), 'the parked booking write to tag the order', 20_000);
      expect(second.logs.some((l) => /waiting for a wake of an earlier process: due now/.test(l) && /"count":1/.test(l))).toBe(true);
      expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    } finally {
      await first?.close();
      await second?.close();
      await dropDatabase(url);
    }
  }, 90_000);
});
