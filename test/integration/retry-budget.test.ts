// The worst cases stated in web/retry/budget.ts, against doubles that always
// fail: the requests counted until the delivery gives up are within the stated
// bound, and equal to one per job attempt where that is deterministic (each call
// retried in one layer only). SQLite and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DISPATCH_RETRY, MAX_COURIER_CREATES_PER_GENERATION, MAX_SHOPIFY_CALLS_PER_WRITEBACK, maxCourierCreates, maxShopifyRequests, WRITEBACK_SHOPIFY_CALLS } from '../../web/retry/budget.ts';
import { FAST_RUNTIME } from '../support/app.ts';
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

/** The dispatch and write-back jobs' attempts in this app (FAST_RUNTIME over DISPATCH_RETRY). */
const attempts = FAST_RUNTIME.dispatchRetry?.maxAttempts ?? DISPATCH_RETRY.maxAttempts;
const settle = () => new Promise((r) => setTimeout(r, 500));

describe('stated bounds', () => {
  it('follow from the policies', () => {
    expect(MAX_COURIER_CREATES_PER_GENERATION).toBe(maxCourierCreates(DISPATCH_RETRY.maxAttempts));
    expect(MAX_COURIER_CREATES_PER_GENERATION).toBe(24);
    expect(MAX_SHOPIFY_CALLS_PER_WRITEBACK).toBe(maxShopifyRequests(DISPATCH_RETRY.maxAttempts, WRITEBACK_SHOPIFY_CALLS));
    expect(MAX_SHOPIFY_CALLS_PER_WRITEBACK).toBe(48);
  });
});

describe('a courier that always fails', () => {
  it.each([
    ['503', { status: 503 }],
    ['429 with Retry-After', { status: 429, retryAfter: '0.2' }],
  ])('answering %s gets one POST /v1/orders per dispatch attempt, then the delivery is FAILED', async (name, fault) => {
    const shop = `always-${name.slice(0, 3)}.myshopify.com`;
    const sim = await installShop(s, shop);
    await s.courier.addFault({ route: 'create', type: 'status', count: 10_000, ...fault });
    const { orderId } = await placeOrder(s, sim);
    const failed = await waitForStatus(s.app, shop, orderId, 'FAILED', 30_000);
    await settle();
    const creates = (await s.courier.requests({ route: 'create' })).filter((r) => r.idempotencyKey === failed.idempotencyKey);
    expect(creates.length).toBeLessThanOrEqual(maxCourierCreates(attempts));
    expect(creates.length).toBe(attempts);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(0);
  }, 40_000);
});

// A Shopify that keeps answering THROTTLED spends no attempt at all: test/integration/shopify-budget.test.ts.
