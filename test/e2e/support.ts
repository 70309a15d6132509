// Black-box end-to-end support: one stack (sandbox courier, shop simulator, app as
// child processes; dev/demo/stack.ts) per test file, and waits that read only the
// simulator's and the sandbox's control APIs and the operator CLI.
//
// SQLite by default. A postgres:// E2E_DATABASE_URL (or DATABASE_URL) runs the
// app and the CLI on a fresh database created on that server and dropped after.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  checkOrder, collectOrder, shopDomain, shopifyShowsDelivered, waitUntil, type AppDelivery, type Expectation,
} from '../../dev/demo/merchant.ts';
import { postgresFromEnv, ROOT, startStack, type Stack, type StackOptions } from '../../dev/demo/stack.ts';
import type { PlaceOrderResult, SimOrderView } from '../../dev/shop-sim/control.ts';

/** Starts a stack before the file's tests and stops it after; keeps its logs when a test failed (or E2E_KEEP=1). */
export function useStack(name: string, opts: StackOptions = {}): () => Stack {
  let stack: Stack | undefined;
  let failed = false;
  beforeAll(async () => {
    const dir = join(ROOT, 'test-output', 'e2e', `${name}-${Date.now().toString(36)}`);
    stack = await startStack({ dir, postgresUrl: postgresFromEnv(), ...opts });
  }, 90_000);
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });
  afterAll(async () => {
    if (!stack) return;
    const keep = failed || process.env.E2E_KEEP === '1';
    await stack.stop({ removeDir: !keep });
    if (keep) console.log(`e2e ${name}: logs and database kept in ${stack.dir}`);
  }, 60_000);
  return () => {
    if (!stack) throw new Error('the e2e stack did not start (see the beforeAll error)');
    return stack;
  };
}

/** Places a fixture under fresh ids (a new order id and name), so orders never collide across shops on one sandbox. */
export async function placeFresh(stack: Stack, shop: string, fixture: string, extra: { wait?: boolean; overrides?: Record<string, unknown> } = {}): Promise<PlaceOrderResult> {
  return stack.sim.placeOrder(shopDomain(shop), { fixture, ids: 'fresh', ...extra });
}

/** A short, readable account of an order across the three systems, for timeout messages. */
export async function describeOrder(stack: Stack, shop: string, orderId: string): Promise<string> {
  const [o, c] = await Promise.all([stack.sim.order(shopDomain(shop), orderId).catch((e) => e as Error), stack.courier.orders({ reference: orderId }).catch(() => [])]);
  const shopify = o instanceof Error ? o.message : `shopify ${o.fulfillmentStatus}, fulfillments ${JSON.stringify(o.fulfillments.map((f) => f.events.map((e) => e.status)))}, tags ${o.tags.join(',')}`;
  return `order ${orderId}: ${shopify}; courier ${JSON.stringify(c.map((x) => x.deliveryStatus))}; logs in ${stack.dir}`;
}

/** Until Shopify shows the order delivered: FULFILLED, with a DELIVERED fulfillment event, tagged, with the status metafield. */
export async function waitDeliveredInShopify(stack: Stack, shop: string, orderId: string, timeoutMs = 60_000): Promise<SimOrderView> {
  return waitUntil(
    async () => {
      const o = await stack.sim.order(shopDomain(shop), orderId);
      return shopifyShowsDelivered(o) ? o : null;
    },
    `order ${orderId} to be delivered in Shopify`,
    { timeoutMs, describe: () => describeOrder(stack, shop, orderId) },
  );
}

/** The app's delivery for an order, by the CLI (`delivery <shop> <order id> --json`). */
export async function appDelivery(stack: Stack, shop: string, orderId: string): Promise<AppDelivery & { events: Array<{ kind: string; status: string | null; message: string | null }> }> {
  return stack.cliJson(['delivery', shopDomain(shop), orderId]);
}

export async function waitAppStatus(stack: Stack, shop: string, orderId: string, status: string, timeoutMs = 60_000) {
  return waitUntil(
    async () => {
      const d = await appDelivery(stack, shop, orderId);
      return d.status === status ? d : null;
    },
    `the app's delivery of order ${orderId} to reach ${status}`,
    { timeoutMs, intervalMs: 500, describe: async () => `${JSON.stringify(await appDelivery(stack, shop, orderId).then((d) => ({ status: d.status, reason: d.reason })).catch((e) => (e as Error).message))}; ${await describeOrder(stack, shop, orderId)}` },
  );
}

/** Asserts an order's final state across the app, the courier and Shopify (dev/demo/merchant.ts checkOrder). */
export async function expectOrder(stack: Stack, shop: string, orderId: string, exp: Pick<Expectation, 'outcome' | 'reason'>, opts: { anyEventSubsequence?: boolean } = {}) {
  const state = await collectOrder(stack, shop, orderId);
  expect(checkOrder(state, exp, opts), `order ${state.shopify.name} (${orderId})`).toEqual([]);
  return state;
}
