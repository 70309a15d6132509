// Typed client for the shop simulator's control API (/_sim/...), for the demo,
// the e2e suite and tests. No auth: the control API answers loopback clients only.
import { request } from 'undici';
import type { OperationLogEntry } from './admin-graphql.ts';
import type {
  PlaceOrderRequest, PlaceOrderResult, SendWebhookRequest, ShopView, SimOrderView, SimSettings, WebhookDeliveryView,
} from './server.ts';

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
  /** Where the app sent the merchant after its OAuth callback (e.g. the embedded app URL in admin.shopify.com). */
  finalLocation: string | null;
  callbackStatus: number;
}

// A browser's user agent: @shopify/shopify-api refuses OAuth requests from bots.
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

  /** The next `count` GraphQL calls to the shop answer THROTTLED. */
  throttle(shop: string, count: number) {
    return this.#call<{ throttleNext: number }>('POST', `/shops/${enc(shop)}/throttle`, { count });
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
   * Installs the app on a shop through the app's own OAuth routes, as a merchant's
   * browser would: GET {appUrl}/api/auth?shop= → the simulator's authorize (auto-approved)
   * → the app's callback with the state cookie, where the app exchanges the code at
   * https://<shop>/admin/oauth/access_token (which needs the app routed here:
   * SHOP_SIMULATOR_URL). The callback is requested at appUrl's origin whatever host the
   * app put in redirect_uri (its SHOPIFY_APP_URL may be a tunnel name).
   */
  async installApp(opts: { appUrl: string; shop: string; authPath?: string }): Promise<InstallResult> {
    const appUrl = opts.appUrl.replace(/\/+$/, '');
    const shop = opts.shop.includes('.') ? opts.shop : `${opts.shop}.myshopify.com`;
    const cookies = new Map<string, string>();
    const get = async (url: string, step: string) => {
      const headers: Record<string, string> = { 'user-agent': BROWSER_UA, accept: 'text/html,application/json' };
      if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await request(url, { method: 'GET', headers });
      const body = await res.body.text();
      const set = res.headers['set-cookie'];
      for (const c of Array.isArray(set) ? set : set ? [set] : []) {
        const [pair] = c.split(';');
        const i = pair!.indexOf('=');
        if (i > 0) cookies.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
      }
      const location = res.headers.location;
      return { status: res.statusCode, location: typeof location === 'string' ? location : null, body, step };
    };
    const fail = (r: { status: number; body: string; step: string; location: string | null }, expected: string): never => {
      throw new Error(`install ${shop}: ${r.step} answered HTTP ${r.status}${r.location ? ` → ${r.location}` : ''} (expected ${expected}): ${r.body.slice(0, 300)}`);
    };

    const begin = await get(`${appUrl}${opts.authPath ?? '/api/auth'}?shop=${enc(shop)}`, 'the app\'s auth begin');
    if (begin.status !== 302 || !begin.location || !/^https:\/\/[^/]+\.myshopify\.com\/admin\/oauth\/authorize\?/.test(begin.location)) {
      fail(begin, `a redirect to https://${shop}/admin/oauth/authorize`);
    }
    const grant = await get(this.simulatorUrlFor(begin.location!), 'the simulator\'s authorize');
    if (grant.status !== 302 || !grant.location) fail(grant, 'a redirect to the app\'s callback');
    const cb = new URL(grant.location!);
    const callback = await get(`${new URL(appUrl).origin}${cb.pathname}${cb.search}`, 'the app\'s auth callback');
    if (callback.status >= 400) fail(callback, 'a 2xx or 3xx');
    const view = await this.shop(shop);
    if (!view.installed) throw new Error(`install ${shop}: the app's callback answered HTTP ${callback.status} but never exchanged the code for a token`);
    return { shop: view, finalLocation: callback.location, callbackStatus: callback.status };
  }
}
