// What a merchant does, and what the demo and the e2e suite expect to see,
// through public interfaces only: the simulator's OAuth install, the operator
// CLI, and the courier sandbox's control API standing in for the courier portal.
import type { SandboxOrderSnapshot } from '../sandbox/types.ts';
import type { SimOrderView } from '../shop-sim/control.ts';
import type { Stack } from './stack.ts';

/** The merchant's account with the courier (the sandbox plays the courier portal). */
export interface CourierAccount {
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  pickupStore: string;
}

/** The sandbox's default app: what `npm run sandbox` prints, so a person can follow along. */
export const SANDBOX_ACCOUNT: CourierAccount = {
  clientId: 'sandbox-client-id',
  clientSecret: 'sandbox-client-secret',
  webhookSecret: 'whsec_demo_0123456789abcdef',
  pickupStore: 'store_sandbox_001',
};

/** A separate courier account per shop (for several shops on one sandbox). */
export function accountFor(shop: string): CourierAccount {
  const name = shop.replace(/\.myshopify\.com$/, '');
  return { clientId: `client-${name}`, clientSecret: `secret-${name}-0123456789`, webhookSecret: `whsec_${name}_0123456789`, pickupStore: 'store_sandbox_001' };
}

export const shopDomain = (shop: string) => (shop.includes('.') ? shop : `${shop}.myshopify.com`);

export interface OnboardResult {
  shop: string;
  /** The shop's courier webhook URL for the test environment, from `npm run cli -- show <shop> --json`. */
  webhookUrl: string;
  /** Messages of the CLI's test-connection / test-webhook checks, when asked for. */
  checks: string[];
}

/**
 * Installs the app on a simulated shop through the real OAuth path, configures it
 * with the operator CLI (secrets from the environment, never argv), and points the
 * courier account's webhook at the shop's endpoint, as a merchant would in the
 * courier portal. With `checks`, runs the CLI's test-connection and test-webhook.
 */
export async function onboardShop(
  stack: Stack,
  shopName: string,
  account: CourierAccount,
  opts: { checks?: boolean; configure?: string[]; onStep?: (line: string) => void } = {},
): Promise<OnboardResult> {
  const shop = shopDomain(shopName);
  const step = opts.onStep ?? (() => {});
  const install = await stack.sim.installApp({ appUrl: stack.urls.app, shop });
  step(`installed the app on ${shop} (Shopify-managed; first open HTTP ${install.pageStatus}, token exchange on the first API call, scopes ${install.shop.scope ?? '?'})`);

  // The courier account exists at the courier before the merchant enters it in the app.
  await stack.courier.putApp(account.clientId, { clientSecret: account.clientSecret, storeIds: ['store_sandbox_001', 'store_sandbox_002'], webhook: null });
  await stack.cliOk(
    [
      'configure', shop, '--active', 'test', '--env', 'test', '--client-id', account.clientId, '--client-secret', 'env',
      '--webhook-secret', 'env', '--pickup-store', account.pickupStore, '--auto-dispatch', 'on', ...(opts.configure ?? []),
    ],
    { env: { COURIER_CLIENT_SECRET: account.clientSecret, COURIER_WEBHOOK_SECRET: account.webhookSecret } },
  );
  const shown = await stack.cliJson<{ environments: { test: { webhookUrl: string } } }>(['show', shop]);
  const webhookUrl = shown.environments.test.webhookUrl;
  if (!webhookUrl?.startsWith(stack.urls.app)) throw new Error(`npm run cli -- show ${shop} gave webhook URL ${webhookUrl}, not one under the app's ${stack.urls.app}`);
  step(`configured ${shop} with the CLI: courier ${account.clientId}, pickup ${account.pickupStore}, auto-dispatch on`);
  await stack.courier.setWebhook(account.clientId, { url: webhookUrl, secret: account.webhookSecret });
  step(`courier portal: webhook → ${webhookUrl}`);

  const checks: string[] = [];
  if (opts.checks) {
    const [conn, hook] = await Promise.all([stack.cliOk(['test-connection', shop]), stack.cliOk(['test-webhook', shop])]);
    checks.push(conn.trim(), hook.trim());
    for (const c of checks) step(`check: ${c}`);
  }
  return { shop, webhookUrl, checks };
}

// ---- what the app holds, as `npm run cli -- deliveries <shop> --json` prints it

export interface AppDelivery {
  id: string;
  shopifyOrderId: string;
  orderName: string | null;
  environment: string | null;
  status: string;
  reasonCode: string | null;
  reason: string | null;
  generation: number;
  courierOrderId: string | null;
  dispatchJobId: string | null;
  deliveryPrice: string | null;
  currency: string | null;
  courierStatus: string | null;
  fulfillmentId: string | null;
  /** The Shopify location the booking picks up from (the fulfillment order's assigned location). */
  locationId?: string | null;
}

export async function appDeliveries(stack: Stack, shop: string): Promise<AppDelivery[]> {
  return stack.cliJson<AppDelivery[]>(['deliveries', shopDomain(shop), '--limit', '1000']);
}

/** The order's delivery once it has one of `statuses` (polled through the CLI), or null after `timeoutMs`. */
export async function waitForDelivery(stack: Stack, shop: string, orderId: string, statuses: string[], timeoutMs: number): Promise<AppDelivery | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const d = (await appDeliveries(stack, shop)).find((x) => x.shopifyOrderId === orderId);
    if (d && statuses.includes(d.status)) return d;
    await new Promise((r) => setTimeout(r, 300));
  }
  return null;
}

// ---- expectations ---------------------------------------------------------------

/**
 * Shopify fulfillment events for a delivery that went the whole way: the ones a customer sees
 * (confirmed, picked up and in transit are coalesced: docs/shopify-rate-limits.md).
 */
export const FULL_EVENTS = ['OUT_FOR_DELIVERY', 'DELIVERED'];
export const DISPATCHED_TAG = 'same-day-dispatched';

export interface Expectation {
  /** Where it goes, for people. */
  label: string;
  outcome: 'DELIVERED' | 'NEEDS_ATTENTION' | 'SKIPPED';
  /** The reason the app gives, word for word (attention and skipped). */
  reason?: string;
  /** Why this is the right outcome. */
  why: string;
  /** The outcome instead when the stack runs the geocoder double (the demo does). */
  geocoded?: Omit<Expectation, 'geocoded'>;
  /** The Shopify location it must be booked from. */
  locationId?: string;
}

/** The expectation for a stack with or without the geocoder double. */
export const expectationFor = (e: Expectation | undefined, geocoder: boolean): Expectation | undefined => (geocoder && e?.geocoded) || e;

/**
 * Every fixture in dev/shop-sim/orders with auto-dispatch on and the other settings
 * at their defaults (same-day method "Same-day delivery", country ZA, test courier
 * environment). A fixture missing here fails the demo, so a new one gets a stated
 * expectation.
 */
export const FIXTURE_EXPECTATIONS: Record<string, Expectation> = {
  'sandton-same-day': { label: 'Sandton, Johannesburg', outcome: 'DELIVERED', why: 'full address with coordinates and a phone' },
  'cape-town-same-day': { label: 'Cape Town', outcome: 'DELIVERED', why: 'the gift card line needs no shipping; the candle is delivered' },
  'durban-same-day': { label: 'Durban', outcome: 'DELIVERED', why: '6.4 kg: a MEDIUM parcel' },
  'no-coordinates': {
    label: 'Hatfield, Pretoria', outcome: 'NEEDS_ATTENTION', reason: 'Shipping address has no coordinates',
    why: 'the courier needs coordinates; the merchant can fix them with `fix --lat --lng`',
    geocoded: { label: 'Hatfield (geocoded)', outcome: 'DELIVERED', why: 'no coordinates: the geocoder (the local Nominatim double) found them' },
  },
  'local-phone': { label: 'Soweto (phone 082 …)', outcome: 'DELIVERED', why: 'local phone normalised to +27825550199' },
  'local-pickup': {
    label: 'Local pickup', outcome: 'SKIPPED', reason: "Shipping method 'Local Pickup' is not one of your same-day methods (Same-day delivery)",
    why: 'not a same-day method; with no method rule, its PICK_UP fulfillment order skips it at dispatch',
  },
  'multi-location': {
    label: 'Cape Town (multi-location)', outcome: 'DELIVERED', locationId: '71000000002',
    why: 'REST location_id is the Rosebank warehouse; Shopify routed it to the Cape Town store, so it is booked from there',
  },
  'test-order': { label: 'Rosebank (test order)', outcome: 'DELIVERED', why: 'test orders go to the test courier environment, never live' },
};

/** The fixture orders in order-number order (#1001 …), as placed by the demo. */
export const FIXTURE_ORDER = [
  'sandton-same-day', 'cape-town-same-day', 'durban-same-day', 'no-coordinates', 'local-phone', 'local-pickup', 'test-order', 'multi-location',
];

// ---- an order's state across the three systems, and the checks -------------------

export interface OrderState {
  orderId: string;
  shopify: SimOrderView;
  courierOrders: SandboxOrderSnapshot[];
  delivery: AppDelivery | null;
}

const metafield = (o: SimOrderView, key: string) => Object.entries(o.metafields).find(([k]) => k.endsWith(`.${key}`))?.[1]?.value ?? null;

/**
 * Shopify shows everything the app writes for a delivered order: FULFILLED with a DELIVERED event, and
 * the booking's write (tag and status metafield). The two are separate paced jobs, so on a loaded
 * machine either may land last; waits use this, not the fulfillment alone.
 */
export function shopifyShowsDelivered(o: SimOrderView): boolean {
  return o.fulfillmentStatus === 'FULFILLED' && o.fulfillments.some((f) => f.events.some((e) => e.status === 'DELIVERED'))
    && o.tags.includes(DISPATCHED_TAG) && metafield(o, 'status') !== null;
}

/**
 * What is wrong with an order's final state, as one-line problems (none = as expected).
 * Delivered: the app says DELIVERED in the test environment with the courier's job id and
 * price; the courier holds exactly one order for it; Shopify has exactly one fulfillment
 * with the job id as tracking number, the events in order (exactly FULL_EVENTS unless
 * `anyEventSubsequence`), the order FULFILLED, tagged, with the job id and status metafields.
 * Attention or skipped: the app's status and reason; no courier order; nothing in Shopify.
 */
export function checkOrder(s: OrderState, exp: Pick<Expectation, 'outcome' | 'reason' | 'locationId'>, opts: { anyEventSubsequence?: boolean } = {}): string[] {
  const problems: string[] = [];
  const d = s.delivery;
  const o = s.shopify;
  if (!d) return [`the app holds no delivery for order ${s.orderId}`];
  if (d.status !== exp.outcome) problems.push(`app status ${d.status}${d.reason ? ` (${d.reason})` : ''}, expected ${exp.outcome}`);
  if (exp.reason !== undefined && d.reason !== exp.reason) problems.push(`app reason "${d.reason}", expected "${exp.reason}"`);
  if (exp.locationId !== undefined && d.locationId !== exp.locationId) problems.push(`booked from Shopify location ${d.locationId ?? '(none)'}, expected ${exp.locationId}`);
  if (exp.outcome === 'DELIVERED') {
    if (d.environment !== 'test') problems.push(`dispatched to the ${d.environment} environment, expected test`);
    if (s.courierOrders.length !== 1) problems.push(`${s.courierOrders.length} courier orders, expected exactly 1`);
    const c = s.courierOrders[0];
    if (c) {
      if (c.deliveryStatus !== 'delivered') problems.push(`courier status ${c.deliveryStatus}, expected delivered`);
      if (d.dispatchJobId !== c.dispatchId) problems.push(`app job id ${d.dispatchJobId} ≠ courier dispatch id ${c.dispatchId}`);
      if (d.deliveryPrice !== c.deliveryPrice || d.currency !== c.currency) problems.push(`app price ${d.deliveryPrice} ${d.currency} ≠ courier price ${c.deliveryPrice} ${c.currency}`);
    }
    if (o.fulfillments.length !== 1) problems.push(`${o.fulfillments.length} Shopify fulfillments, expected exactly 1`);
    const f = o.fulfillments[0];
    if (f) {
      if (f.trackingInfo.number !== d.dispatchJobId) problems.push(`tracking number ${f.trackingInfo.number}, expected the job id ${d.dispatchJobId}`);
      const events = f.events.map((e) => e.status);
      if (opts.anyEventSubsequence) {
        const problem = eventSequenceProblem(events);
        if (problem) problems.push(problem);
      } else if (events.join() !== FULL_EVENTS.join()) problems.push(`fulfillment events ${events.join(' → ') || '(none)'}, expected ${FULL_EVENTS.join(' → ')}`);
    }
    if (o.fulfillmentStatus !== 'FULFILLED') problems.push(`Shopify fulfillment status ${o.fulfillmentStatus}, expected FULFILLED`);
    if (!o.tags.includes(DISPATCHED_TAG)) problems.push(`Shopify order not tagged ${DISPATCHED_TAG}`);
    if (metafield(o, 'job_id') !== d.dispatchJobId) problems.push(`job_id metafield ${metafield(o, 'job_id')}, expected ${d.dispatchJobId}`);
    // The status metafield is the booking's: no metafield write per courier status.
    if (!metafield(o, 'status')) problems.push('no status metafield');
  } else {
    if (s.courierOrders.length !== 0) problems.push(`${s.courierOrders.length} courier orders, expected none`);
    if (o.fulfillments.length !== 0) problems.push(`${o.fulfillments.length} Shopify fulfillments, expected none`);
    if (o.fulfillmentStatus !== 'UNFULFILLED') problems.push(`Shopify fulfillment status ${o.fulfillmentStatus}, expected UNFULFILLED`);
    if (o.tags.includes(DISPATCHED_TAG)) problems.push(`Shopify order tagged ${DISPATCHED_TAG} but never dispatched`);
  }
  return problems;
}

/**
 * When courier webhooks arrive late or shuffled, a status older than one already
 * written to Shopify is not written (Shopify's timeline only moves forward). The
 * events must still be distinct, in progression order, and end with DELIVERED.
 */
export function eventSequenceProblem(events: string[]): string | null {
  const ranks = events.map((e) => FULL_EVENTS.indexOf(e));
  if (ranks.some((r) => r < 0)) return `unexpected fulfillment events ${events.join(' → ')}`;
  if (ranks.some((r, i) => i > 0 && r <= ranks[i - 1]!)) return `fulfillment events out of order or repeated: ${events.join(' → ')}`;
  if (events.at(-1) !== 'DELIVERED') return `fulfillment events ${events.join(' → ') || '(none)'} do not end with DELIVERED`;
  return null;
}

/** Every order of a shop with its courier orders (by reference) and the app's delivery. */
export async function collectOrders(stack: Stack, shop: string, deliveries?: AppDelivery[]): Promise<OrderState[]> {
  const [orders, courierOrders, held] = await Promise.all([
    stack.sim.orders(shopDomain(shop)),
    stack.courier.orders(),
    deliveries ? Promise.resolve(deliveries) : appDeliveries(stack, shop),
  ]);
  return orders.map((o) => ({
    orderId: o.id,
    shopify: o,
    courierOrders: courierOrders.filter((c) => c.reference === o.id),
    delivery: held.find((d) => d.shopifyOrderId === o.id) ?? null,
  }));
}

export async function collectOrder(stack: Stack, shop: string, orderId: string): Promise<OrderState> {
  const [shopify, courierOrders, held] = await Promise.all([
    stack.sim.order(shopDomain(shop), orderId),
    stack.courier.orders({ reference: orderId }),
    appDeliveries(stack, shop),
  ]);
  return { orderId, shopify, courierOrders, delivery: held.find((d) => d.shopifyOrderId === orderId) ?? null };
}

/** Polls until `probe` returns a truthy value; the error names what was awaited and the last value seen. */
export async function waitUntil<T>(probe: () => Promise<T | null | undefined | false>, what: string, opts: { timeoutMs?: number; intervalMs?: number; describe?: () => Promise<string> | string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const detail = opts.describe ? await Promise.resolve(opts.describe()).catch((e) => String(e)) : last instanceof Error ? last.message : JSON.stringify(last)?.slice(0, 500);
      throw new Error(`timed out after ${(opts.timeoutMs ?? 60_000) / 1000} s waiting for ${what}${detail ? `: ${detail}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
}
