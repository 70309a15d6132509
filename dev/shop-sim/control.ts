// Typed client for the shop simulator's control API (/_sim/...), for the demo,
// the e2e suite and tests. No auth: the control API answers loopback clients only.
import { request } from 'undici';
import type { OperationLogEntry } from './admin-graphql.ts';
import type {
  PlaceOrderRequest, PlaceOrderResult, SendWebhookRequest, ShopView, SimOrderView, SimSettings, WebhookDeliveryView,
} from './server.ts';
import type { CheckoutRatesRequest } from './carrier-services.ts';
import type { FlowActionRequest, ReceivedTrigger } from './flow.ts';

export type * from './server.ts';

export class ShopSimControlError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ShopSimControlError';
    this.status = status;
  }
}

export interface InstallResult {
  shop: ShopView;
  /** The embedded page's status on first open (200: served at once). */
  pageStatus: number;
  /** The first /api call's status (200: the session token was exchanged). */
  apiStatus: number;
}

// A browser's user agent, as the admin iframe's requests carry.
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const enc = encodeURIComponent;

export class ShopSimControl {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async #call<T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.baseUrl}/_sim${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) {
      let message = text.slice(0, 500);
      try {
        message = JSON.parse(text).error ?? message;
      } catch {}
      throw new ShopSimControlError(res.statusCode, `shop simulator ${method} /_sim${path}: HTTP ${res.statusCode}: ${message}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  health() {
    return this.#call<{ ok: boolean; url: string }>('GET', '/health');
  }
  state() {
    return this.#call<{ settings: SimSettings; shops: ShopView[]; deliveries: number; fixtures: string[]; operations: string[] }>('GET', '/state');
  }
  /** Forgets shops, orders, tokens and deliveries; settings back to the start options. */
  reset() {
    return this.#call<{ ok: true }>('POST', '/reset');
  }
  settings() {
    return this.#call<SimSettings>('GET', '/settings');
  }
  updateSettings(patch: Partial<SimSettings>) {
    return this.#call<SimSettings>('PATCH', '/settings', patch);
  }
  fixtures() {
    return this.#call<string[]>('GET', '/fixtures');
  }

  shops() {
    return this.#call<ShopView[]>('GET', '/shops');
  }
  /** Creates the shop (idempotent). With accessToken, it is installed with that non-expiring token (no OAuth). */
  createShop(shop: string, opts: { accessToken?: string; scope?: string } = {}) {
    return this.#call<ShopView>('POST', '/shops', { shop, ...opts });
  }
  shop(shop: string) {
    return this.#call<ShopView>('GET', `/shops/${enc(shop)}`);
  }

  /** Adds the order (open fulfillment order at a location) and sends orders/paid. */
  placeOrder(shop: string, req: PlaceOrderRequest) {
    return this.#call<PlaceOrderResult>('POST', `/shops/${enc(shop)}/orders`, req);
  }
  orders(shop: string) {
    return this.#call<SimOrderView[]>('GET', `/shops/${enc(shop)}/orders`);
  }
  order(shop: string, id: string) {
    return this.#call<SimOrderView>('GET', `/shops/${enc(shop)}/orders/${enc(id)}`);
  }
  /** Sets cancelled_at, closes open fulfillment orders, sends orders/cancelled. */
  cancelOrder(shop: string, id: string, opts: { reason?: string; force?: boolean; send?: boolean; wait?: boolean } = {}) {
    return this.#call<{ order: SimOrderView; webhook: WebhookDeliveryView | null }>('POST', `/shops/${enc(shop)}/orders/${enc(id)}/cancel`, opts);
  }

  /** A staff edit of the shipping address (REST address fields) and/or phone; sends orders/updated. */
  editOrderAddress(shop: string, id: string, edit: { shippingAddress?: Record<string, unknown> | null; phone?: string | null; send?: boolean; wait?: boolean }) {
    return this.#call<{ order: SimOrderView; webhook: WebhookDeliveryView | null }>('POST', `/shops/${enc(shop)}/orders/${enc(id)}/address`, edit);
  }

  /** The merchant cancels a fulfillment in the admin: its quantities go back to the fulfillment orders. */
  cancelFulfillment(shop: string, orderId: string, fulfillmentId: string) {
    return this.#call<{ order: SimOrderView }>('POST', `/shops/${enc(shop)}/orders/${enc(orderId)}/fulfillments/${enc(fulfillmentId)}/cancel`);
  }

  /** fulfillmentOrderMove: the fulfillment order closes and a new one opens at the location (sends nothing, as Shopify). */
  moveFulfillmentOrder(shop: string, fulfillmentOrderId: string, locationId: string) {
    return this.#call<{ fulfillmentOrder: { id: string; status: string; locationId: string } }>('POST', `/shops/${enc(shop)}/fulfillment-orders/${enc(fulfillmentOrderId)}/move`, { locationId });
  }
  /** fulfillmentOrderHold: ON_HOLD with a FulfillmentHoldReason (default OTHER). */
  holdFulfillmentOrder(shop: string, fulfillmentOrderId: string, opts: { reason?: string; reasonNotes?: string } = {}) {
    return this.#call<{ fulfillmentOrder: { id: string; status: string } }>('POST', `/shops/${enc(shop)}/fulfillment-orders/${enc(fulfillmentOrderId)}/hold`, opts);
  }

  /** A new webhook (new webhook id) of any supported topic, compliance topics included. */
  sendWebhook(shop: string, req: SendWebhookRequest) {
    return this.#call<WebhookDeliveryView>('POST', `/shops/${enc(shop)}/webhooks`, req);
  }
  /** Revokes the shop's tokens and sends app/uninstalled. */
  uninstall(shop: string, opts: { wait?: boolean } = {}) {
    return this.#call<WebhookDeliveryView>('POST', `/shops/${enc(shop)}/uninstall`, opts);
  }
  webhooks(filter: { shop?: string; topic?: string; orderId?: string } = {}) {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as Array<[string, string]>).toString();
    return this.#call<WebhookDeliveryView[]>('GET', `/webhooks${q ? `?${q}` : ''}`);
  }
  webhook(seq: number) {
    return this.#call<WebhookDeliveryView>('GET', `/webhooks/${seq}`);
  }
  /** Sends a delivery again with the same webhook id, event id and body: Shopify's duplicate. */
  redeliver(seq: number, opts: { wait?: boolean } = {}) {
    return this.#call<WebhookDeliveryView>('POST', `/webhooks/${seq}/redeliver`, opts);
  }

  /** Flow triggers the app sent this shop: received (valid) and refused (with the problems). */
  flowTriggers(shop: string) {
    return this.#call<{ received: ReceivedTrigger[]; refused: Array<{ handle: string; payload: unknown; problems: string[] }> }>('GET', `/shops/${enc(shop)}/flow/triggers`);
  }

  /** A Flow action run, signed as Shopify signs it, to the action's runtime URL. */
  flowAction(shop: string, r: FlowActionRequest) {
    return this.#call<{ actionRunId: string; status: number; body: any }>('POST', `/shops/${enc(shop)}/flow/actions`, r);
  }

  /** Flow's trigger lifecycle callback: a workflow using `trigger` was enabled or disabled. */
  flowLifecycle(shop: string, trigger: string, enabled: boolean) {
    return this.#call<{ status: number; body: any }>('POST', `/shops/${enc(shop)}/flow/lifecycle`, { trigger, enabled });
  }

  /** The next `count` GraphQL calls to the shop (only those named in `operations`, if given) answer THROTTLED. */
  throttle(shop: string, count: number, operations?: string[]) {
    return this.#call<{ throttleNext: number }>('POST', `/shops/${enc(shop)}/throttle`, { count, ...(operations ? { operations } : {}) });
  }
  /** The next call of a mutation answers with this userError. */
  injectUserError(shop: string, operation: string, message?: string) {
    return this.#call<{ failNext: Record<string, string> }>('POST', `/shops/${enc(shop)}/user-errors`, { operation, message });
  }
  /** The shop's access token answers 401 from now on (the app must refresh it). */
  expireToken(shop: string) {
    return this.#call<ShopView>('POST', `/shops/${enc(shop)}/token/expire`);
  }
  operations(shop: string, name?: string) {
    return this.#call<OperationLogEntry[]>('GET', `/shops/${enc(shop)}/operations${name ? `?name=${enc(name)}` : ''}`);
  }

  /** Polls `probe` until `done` holds; throws with the last value after timeoutMs. */
  async waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<T> {
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
    for (;;) {
      const v = await probe();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'the simulator'}; last: ${JSON.stringify(v).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
    }
  }

  /** A https://<shop>.myshopify.com/... URL as the simulator serves it (/shops/<shop>/...). */
  simulatorUrlFor(shopifyUrl: string): string {
    const u = new URL(shopifyUrl);
    return `${this.baseUrl}/shops/${u.hostname}${u.pathname}${u.search}`;
  }

  /**
   * Installs the app as Shopify does for an app with scopes in shopify.app.toml
   * (Shopify-managed installation), then opens it as the merchant would: the
   * embedded page at {appUrl}/?embedded=1&shop=&host=&id_token=... must answer
   * 200 (no OAuth redirect, no /exitiframe), and the first /api call with the
   * App Bridge session token makes the app exchange it at
   * https://<shop>/admin/oauth/access_token (the app must be routed here:
   * SHOP_SIMULATOR_URL). Pages and the API are requested at appUrl's origin.
   */
  async installApp(opts: { appUrl: string; shop: string; apiPath?: string }): Promise<InstallResult> {
    const appUrl = opts.appUrl.replace(/\/+$/, '');
    const shop = opts.shop.includes('.') ? opts.shop : `${opts.shop}.myshopify.com`;
    await this.#call<ShopView>('POST', `/shops/${enc(shop)}/install`, {});
    const opened = await this.openApp(shop);
    const pageUrl = new URL(opened.url);
    const page = await request(`${new URL(appUrl).origin}${pageUrl.pathname}${pageUrl.search}`, { headers: { 'user-agent': BROWSER_UA, accept: 'text/html' } });
    const pageBody = await page.body.text();
    if (page.statusCode !== 200) throw new Error(`install ${shop}: the embedded page answered HTTP ${page.statusCode} ${String(page.headers.location ?? '')} (expected 200): ${pageBody.slice(0, 300)}`);
    const api = await request(`${appUrl}${opts.apiPath ?? '/api/settings'}`, { headers: { authorization: `Bearer ${opened.sessionToken}`, accept: 'application/json' } });
    const apiBody = await api.body.text();
    if (api.statusCode !== 200) throw new Error(`install ${shop}: the first API call answered HTTP ${api.statusCode} (expected 200 after token exchange): ${apiBody.slice(0, 300)}`);
    const view = await this.shop(shop);
    if (!view.accessTokenExpiresAt) throw new Error(`install ${shop}: the app answered but never exchanged its session token for an expiring offline token`);
    return { shop: view, pageStatus: page.statusCode, apiStatus: api.statusCode };
  }

  /** Shopify-managed installation only (no token until the app exchanges a session token). */
  managedInstall(shop: string, opts: { scope?: string } = {}) {
    return this.#call<ShopView>('POST', `/shops/${enc(shop)}/install`, opts);
  }
  /** What the admin loads when the merchant opens the app: the embedded URL (signed, with id_token) and that session token. */
  openApp(shop: string, opts: { path?: string; userId?: string } = {}) {
    return this.#call<{ url: string; sessionToken: string; expiresAt: string }>('POST', `/shops/${enc(shop)}/open`, opts);
  }
  /** A fresh App Bridge session token for the shop (shopify.idToken()). */
  async sessionToken(shop: string): Promise<string> {
    return (await this.#call<{ sessionToken: string }>('POST', `/shops/${enc(shop)}/session-token`, {})).sessionToken;
  }
  /** Checkout: a signed, Shopify-shaped rate request to the shop's active carrier service, and its answer. */
  checkoutRates(shop: string, r: CheckoutRatesRequest = {}) {
    return this.#call<{ status: number; body: any; elapsedMs: number; carrierService: { id: string; callbackUrl: string } }>('POST', `/shops/${enc(shop)}/checkout/rates`, r);
  }
  /** The app's Admin API bucket on the shop: a plan (standard, advanced, plus, enterprise) or explicit limits. */
  setApiLimits(shop: string, limits: { plan: string } | { maximumAvailable: number; restoreRate: number }) {
    return this.#call<ApiLimitsView>('POST', `/shops/${enc(shop)}/api-limits`, limits);
  }
  apiLimits(shop: string) {
    return this.#call<ApiLimitsView>('GET', `/shops/${enc(shop)}/api-limits`);
  }
  setPlan(shop: string, plan: { publicDisplayName: string; partnerDevelopment?: boolean; shopifyPlus?: boolean }) {
    return this.#call<unknown>('POST', `/shops/${enc(shop)}/plan`, plan);
  }
  carrierServices(shop: string) {
    return this.#call<Array<{ id: string; name: string; callbackUrl: string; active: boolean }>>('GET', `/shops/${enc(shop)}/carrier-services`);
  }
}

export interface ApiLimitsView {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
  /** Points the app's answered calls cost (actualQueryCost summed). */
  spent: number;
  throttled: number;
  deepestOverdraw: number;
  /** The lowest the bucket would have gone had Shopify run every call the app sent (dev/shop-sim/cost.ts). */
  lowestDemand: number;
  paidCalls: number;
}
