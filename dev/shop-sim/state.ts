// The shop simulator's state: shops (created on first use), their install and token
// metadata, orders, and the webhook delivery log, with the operations the control API and
// the Shopify-facing routes perform on them. No I/O: sample orders come from an injected
// Fixtures, webhooks are only recorded here (sender.ts sends them), log lines go to an
// optional injected logger.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Logger } from '../../web/ops/logger.ts';
import { carrierState } from './carrier-services.ts';
import { SimShop, SUPPORTED_OPERATIONS, USER_ERROR_OPERATIONS, type SimOrder } from './admin-graphql.ts';
import { normalizeShop } from './auth.ts';
import { planLimits, PLANS } from './cost.ts';
import { sampleWebhookPayload } from './contract.ts';
import { HttpError } from './errors.ts';
import type { Fixtures } from './fixtures.ts';
import type { Delivery } from './sender.ts';
import { orderView } from './views.ts';
import type { PlaceOrderRequest, SendWebhookRequest, ShopView, SimSettings, WebhookDeliveryView, WebhookTopic } from './types.ts';

const MAX_DELIVERIES = 5000;
export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;
/** Shopify's lifetimes for expiring offline tokens: one hour; the refresh token 90 days. */
const ACCESS_TOKEN_TTL_SEC = 3600;
const REFRESH_TOKEN_TTL_SEC = 90 * 24 * 3600;

export const hex = (n: number) => randomBytes(n).toString('hex');
export const idOf = (v: unknown) => String(v ?? '').split('/').pop() ?? '';
export const newNumericId = () => randomInt(1_000_000, 9_999_999) * 1_000_000 + randomInt(0, 1_000_000);

export interface ShopMeta {
  shopId: number;
  installed: boolean;
  scope: string | null;
  accessTokenExpiresAt: number | null;
  /** Valid refresh tokens → expiry. A replaced one stays valid until its successor's access token is used. */
  refreshTokens: Map<string, number>;
  /** The refresh token issued with the current access token. */
  currentRefreshToken: string | null;
  nextOrderNumber: number;
}

export interface SimStateOptions {
  apiKey: string;
  apiSecret: string;
  settings: SimSettings;
  fixtures: Fixtures;
  log?: Logger | undefined;
  /** The clock the shops' Admin API buckets refill by (tests inject one). */
  now?: () => number;
}

/** The REST MailingAddress fields an edit may set. */
const ADDRESS_FIELDS = new Set(['first_name', 'last_name', 'name', 'company', 'address1', 'address2', 'city', 'province', 'province_code', 'zip', 'country', 'country_code', 'phone', 'latitude', 'longitude']);

export class SimState {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly fixtures: Fixtures;
  readonly log: Logger | undefined;
  readonly now: () => number;
  settings: SimSettings;
  readonly shops = new Map<string, SimShop>();
  readonly meta = new Map<string, ShopMeta>();
  deliveries: Delivery[] = [];
  #deliverySeq = 0;
  readonly #initialSettings: SimSettings;

  constructor(o: SimStateOptions) {
    this.apiKey = o.apiKey;
    this.apiSecret = o.apiSecret;
    this.fixtures = o.fixtures;
    this.log = o.log;
    this.now = o.now ?? Date.now;
    this.#initialSettings = o.settings;
    this.settings = copySettings(o.settings);
  }

  /** Forget shops, orders, tokens and deliveries; settings back to the start. */
  reset(): void {
    this.shops.clear();
    this.meta.clear();
    this.deliveries = [];
    this.#deliverySeq = 0;
    this.settings = copySettings(this.#initialSettings);
  }

  getShop(domain: string, create = true): SimShop {
    const d = normalizeShop(domain);
    if (!SHOP_DOMAIN.test(d)) throw new HttpError(400, `"${domain}" is not a shop domain: expected <name>.myshopify.com (or just <name>)`);
    let s = this.shops.get(d);
    if (!s) {
      if (!create) throw new HttpError(404, `no shop ${d} in the simulator (create it with POST /_sim/shops or by placing an order)`);
      // Not installed yet: the token is one nobody holds, so GraphQL answers 401 until the app gets one.
      s = new SimShop(d, `shpat_unissued_${hex(16)}`, undefined, this.now);
      this.shops.set(d, s);
      this.meta.set(d, { shopId: newNumericId(), installed: false, scope: null, accessTokenExpiresAt: null, refreshTokens: new Map(), currentRefreshToken: null, nextOrderNumber: 1001 });
      this.log?.info({ shop: d }, 'shop created');
    }
    return s;
  }

  metaOf(s: SimShop): ShopMeta {
    return this.meta.get(s.domain)!;
  }

  // ---- install and tokens
  issueTokens(s: SimShop, scope: string, expiring: boolean) {
    const m = this.metaOf(s);
    const accessToken = `shpat_${hex(16)}`;
    s.accessToken = accessToken;
    m.installed = true;
    m.scope = scope;
    carrierState(s).scope = scope;
    if (!expiring) {
      m.accessTokenExpiresAt = null;
      m.refreshTokens.clear();
      m.currentRefreshToken = null;
      return { access_token: accessToken, scope };
    }
    const refreshToken = `shprt_${hex(16)}`;
    m.accessTokenExpiresAt = Date.now() + ACCESS_TOKEN_TTL_SEC * 1000;
    m.refreshTokens.set(refreshToken, Date.now() + REFRESH_TOKEN_TTL_SEC * 1000);
    m.currentRefreshToken = refreshToken;
    return { access_token: accessToken, scope, expires_in: ACCESS_TOKEN_TTL_SEC, refresh_token: refreshToken, refresh_token_expires_in: REFRESH_TOKEN_TTL_SEC };
  }

  revokeTokens(s: SimShop): void {
    const m = this.metaOf(s);
    s.accessToken = `shpat_revoked_${hex(16)}`;
    m.installed = false;
    m.accessTokenExpiresAt = null;
    m.refreshTokens.clear();
    m.currentRefreshToken = null;
  }

  /** Installed without the app asking: a non-expiring token, for tests that talk GraphQL directly. */
  installWithToken(s: SimShop, accessToken: string, scope: string | null): void {
    s.accessToken = accessToken;
    const m = this.metaOf(s);
    Object.assign(m, { installed: true, scope, accessTokenExpiresAt: null, currentRefreshToken: null });
    carrierState(s).scope = scope;
    m.refreshTokens.clear();
  }

  /** Shopify-managed installation: installed with these scopes; no token until the app exchanges one. */
  managedInstall(s: SimShop, scope: string | null): void {
    const m = this.metaOf(s);
    m.installed = true;
    m.scope = scope;
    carrierState(s).scope = scope;
    this.log?.info({ shop: s.domain, scope: m.scope }, 'app installed (Shopify-managed installation)');
  }

  expireToken(s: SimShop): void {
    const m = this.metaOf(s);
    if (!m.installed) throw new HttpError(409, `${s.domain} has no installed app token to expire`);
    m.accessTokenExpiresAt = Date.now() - 1;
  }

  // ---- webhooks (recorded here, sent by sender.ts)
  recordDelivery(shop: string, topic: WebhookTopic, payload: unknown, o: { orderId?: string | null; redeliver?: Delivery } = {}): Delivery {
    const src = o.redeliver;
    const d: Delivery = {
      seq: ++this.#deliverySeq,
      webhookId: src?.webhookId ?? randomUUID(),
      eventId: src?.eventId ?? randomUUID(),
      topic,
      shop,
      orderId: o.orderId ?? null,
      url: `${this.settings.appUrl}/api/webhooks`,
      triggeredAt: src?.triggeredAt ?? new Date().toISOString(),
      state: 'pending',
      attempts: [],
      redeliveryOf: src?.seq ?? null,
      // Fixed once: retries and redeliveries send the same bytes.
      body: src?.body ?? JSON.stringify(payload),
    };
    this.deliveries.push(d);
    if (this.deliveries.length > MAX_DELIVERIES) this.deliveries = this.deliveries.slice(-MAX_DELIVERIES);
    return d;
  }

  deliveryBySeq(seq: string): Delivery {
    const d = this.deliveries.find((x) => x.seq === Number(seq));
    if (!d) throw new HttpError(404, `no webhook delivery ${seq}`);
    return d;
  }

  deliveriesWhere(f: { shop: string | null; topic: string | null; orderId: string | null }): WebhookDeliveryView[] {
    return this.deliveries
      .filter((d) => (!f.shop || d.shop === normalizeShop(f.shop)) && (!f.topic || d.topic === f.topic) && (!f.orderId || d.orderId === f.orderId))
      .map((d) => deliveryView(d));
  }

  /** The shop resource (app/uninstalled): Shopify's documented sample, made out to this shop. */
  shopPayload(s: SimShop) {
    const name = s.domain.replace(/\.myshopify\.com$/, '');
    return {
      ...sampleWebhookPayload('app/uninstalled', s.domain),
      id: this.metaOf(s).shopId, name, email: `owner@${name}.example`, customer_email: `owner@${name}.example`, domain: s.domain, myshopify_domain: s.domain,
      province: 'Gauteng', province_code: 'GP', country: 'ZA', country_code: 'ZA', country_name: 'South Africa', currency: s.currency,
      enabled_presentment_currencies: [s.currency], iana_timezone: 'Africa/Johannesburg', timezone: '(GMT+02:00) Africa/Johannesburg', plan_name: 'basic',
      primary_location_id: Number(s.locations[0]?.id ?? 1),
    };
  }

  compliancePayload(s: SimShop, topic: WebhookTopic, r: SendWebhookRequest): unknown {
    const base = { shop_id: this.metaOf(s).shopId, shop_domain: s.domain };
    if (topic === 'shop/redact') return base;
    const fromOrder = r.orderId ? s.order(r.orderId) : undefined;
    if (r.orderId && !fromOrder) throw new HttpError(404, `no order ${r.orderId} in ${s.domain}`);
    const c = fromOrder?.payload.customer;
    const customerId = r.customerId ?? (c?.id !== undefined ? String(c.id) : undefined);
    if (!customerId) throw new HttpError(400, `${topic} needs a customer: pass customerId, or an orderId whose order has a customer`);
    const known = [...s.orders.values()].map((o) => o.payload.customer).find((x) => x && String(x.id) === customerId);
    const orderIds = r.orderIds ?? [...s.orders.values()].filter((o) => String(o.payload.customer?.id ?? '') === customerId).map((o) => o.id);
    const numeric = (id: string) => (/^\d+$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id);
    // Shopify's schema: email and phone are strings (the customer's, whatever we know of them).
    const customer = { id: numeric(customerId), email: known?.email ?? `customer-${customerId}@example.com`, phone: known?.phone ?? '' };
    if (topic === 'customers/redact') return { ...base, customer, orders_to_redact: orderIds.map(numeric) };
    return { ...base, customer, orders_requested: orderIds.map(numeric), data_request: { id: newNumericId() } };
  }

  // ---- orders
  orderView(s: SimShop, o: SimOrder) {
    return orderView(o, this.deliveries.filter((d) => d.shop === s.domain && d.orderId === o.id));
  }

  #freshIds(s: SimShop, p: Record<string, any>): void {
    const m = this.metaOf(s);
    const id = newNumericId();
    p.id = id;
    p.admin_graphql_api_id = `gid://shopify/Order/${id}`;
    p.order_number = m.nextOrderNumber;
    p.name = `#${m.nextOrderNumber}`;
    for (const li of p.line_items ?? []) {
      li.id = newNumericId();
      if (typeof li.admin_graphql_api_id === 'string') li.admin_graphql_api_id = `gid://shopify/LineItem/${li.id}`;
    }
    for (const sl of p.shipping_lines ?? []) sl.id = newNumericId();
  }

  /** Adds the order (a fixture or a payload); the caller sends orders/paid. */
  placeOrder(s: SimShop, r: PlaceOrderRequest): SimOrder {
    if (!!r.fixture === !!r.payload) throw new HttpError(400, 'pass exactly one of "fixture" (a fixture name) or "payload" (an orders/paid REST payload)');
    if (r.ids !== undefined && r.ids !== 'fixture' && r.ids !== 'fresh') throw new HttpError(400, 'ids must be "fixture" or "fresh"');
    if (r.overrides !== undefined && (typeof r.overrides !== 'object' || r.overrides === null || Array.isArray(r.overrides))) throw new HttpError(400, 'overrides must be an object');
    const p: Record<string, any> = r.fixture ? this.fixtures.load(r.fixture) : structuredClone(r.payload!);
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new HttpError(400, 'payload must be an orders/paid REST payload object');
    if (r.ids === 'fresh') this.#freshIds(s, p);
    Object.assign(p, r.overrides ?? {});
    const id = idOf(p.admin_graphql_api_id) || String(p.id ?? '');
    if (!/^\d+$/.test(id)) throw new HttpError(400, 'the order payload needs a numeric "id" (or admin_graphql_api_id gid://shopify/Order/<id>)');
    if (!Array.isArray(p.line_items) || !p.line_items.length) throw new HttpError(400, 'the order payload needs a non-empty "line_items" array');
    if (s.orders.has(id)) throw new HttpError(409, `order ${id} (${p.name ?? 'unnamed'}) already exists in ${s.domain}; pass "ids": "fresh" to place another copy`);
    const locationId = r.locationId === undefined ? undefined : idOf(r.locationId);
    if (locationId !== undefined && !s.locations.some((l) => l.id === locationId)) {
      throw new HttpError(400, `locationId ${r.locationId} is not a location of ${s.domain}: ${s.locations.map((l) => `${l.id} (${l.name})`).join(', ')}`);
    }
    p.id ??= Number(id);
    p.admin_graphql_api_id ??= `gid://shopify/Order/${id}`;
    // The order status page is on the shop's own domain, as in Shopify's payloads.
    if (typeof p.order_status_url === 'string') p.order_status_url = `https://${s.domain}/${this.metaOf(s).shopId}/orders/${p.token ?? id}/authenticate?key=${hex(8)}`;
    p.updated_at = new Date().toISOString();
    const m = this.metaOf(s);
    if (typeof p.order_number === 'number' && p.order_number >= m.nextOrderNumber) m.nextOrderNumber = p.order_number + 1;
    const order = s.addOrder(p, locationId ? { locationId } : {});
    this.log?.info({ shop: s.domain, orderId: order.id, name: p.name, fixture: r.fixture ?? null }, 'order placed');
    return order;
  }

  orderOf(s: SimShop, id: string): SimOrder {
    const o = s.order(id);
    if (!o) throw new HttpError(404, `no order ${id} in ${s.domain}; orders: ${[...s.orders.values()].map((x) => `${x.id} (${x.payload.name})`).join(', ') || '(none)'}`);
    return o;
  }

  /** Cancels the order as Shopify does; the caller sends orders/cancelled. */
  cancelOrder(s: SimShop, id: string, body: { reason?: string; force?: boolean }): SimOrder {
    const o = this.orderOf(s, id);
    if (o.payload.cancelled_at) throw new HttpError(409, `order ${o.id} was already cancelled at ${o.payload.cancelled_at}`);
    // Shopify refuses to cancel a fulfilled order until its fulfillments are cancelled.
    if (!body.force && o.fulfillments.some((f) => f.status === 'SUCCESS')) {
      throw new HttpError(409, `order ${o.id} has a fulfillment; Shopify cancels it only after the fulfillment is cancelled (pass "force": true to cancel anyway)`);
    }
    const reasons = ['customer', 'fraud', 'inventory', 'declined', 'other', 'staff'];
    const reason = body.reason ?? 'customer';
    if (!reasons.includes(reason)) throw new HttpError(400, `reason must be one of ${reasons.join(', ')}`);
    const now = new Date().toISOString();
    o.payload.cancelled_at = now;
    o.payload.cancel_reason = reason;
    o.payload.updated_at = now;
    // A cancelled order's remaining work is closed: fulfillmentCreate then fails with a userError.
    for (const f of o.fulfillmentOrders) if (f.status !== 'CLOSED' && f.status !== 'CANCELLED') f.status = 'CLOSED';
    this.log?.info({ shop: s.domain, orderId: o.id, reason }, 'order cancelled');
    return o;
  }

  /** A staff edit of the shipping address and/or phone (SimShop.editOrderAddress); the caller sends orders/updated. */
  editOrderAddress(s: SimShop, id: string, body: { shippingAddress?: unknown; phone?: unknown }): SimOrder {
    const o = this.orderOf(s, id);
    const a = body.shippingAddress;
    if (a !== undefined && a !== null && (typeof a !== 'object' || Array.isArray(a))) throw new HttpError(400, 'shippingAddress must be an object of REST address fields (address1, city, zip, phone, latitude, …) or null');
    for (const [k, v] of Object.entries((a ?? {}) as Record<string, unknown>)) {
      if (!ADDRESS_FIELDS.has(k)) throw new HttpError(400, `shippingAddress.${k} is not a Shopify address field: ${[...ADDRESS_FIELDS].join(', ')}`);
      const numeric = k === 'latitude' || k === 'longitude';
      if (v !== null && typeof v !== (numeric ? 'number' : 'string')) throw new HttpError(400, `shippingAddress.${k} must be a ${numeric ? 'number' : 'string'} or null`);
    }
    if (body.phone !== undefined && body.phone !== null && typeof body.phone !== 'string') throw new HttpError(400, 'phone must be a string or null');
    if (a === undefined && body.phone === undefined) throw new HttpError(400, 'pass shippingAddress and/or phone');
    s.editOrderAddress(o.id, { shippingAddress: a as Record<string, unknown> | null | undefined, phone: body.phone as string | null | undefined });
    this.log?.info({ shop: s.domain, orderId: o.id }, 'order address edited');
    return o;
  }

  // ---- fault switches
  throttle(s: SimShop, count: unknown, operations?: unknown): number {
    const n = count ?? 1;
    if (!Number.isInteger(n) || (n as number) < 0) throw new HttpError(400, 'count must be a non-negative integer');
    if (operations !== undefined && operations !== null && (!Array.isArray(operations) || !operations.every((o) => typeof o === 'string' && o))) {
      throw new HttpError(400, 'operations must be a list of GraphQL operation names');
    }
    s.throttleNext = n as number;
    s.throttleOnly = (operations as string[] | null | undefined) ?? null;
    return s.throttleNext;
  }

  /** The app's bucket on the shop: a plan's limits, or explicit ones (a test's small bucket). */
  setApiLimits(s: SimShop, body: { plan?: unknown; maximumAvailable?: unknown; restoreRate?: unknown }) {
    if (body.plan !== undefined) {
      if (typeof body.plan !== 'string' || !(body.plan in PLANS)) throw new HttpError(400, `plan must be one of ${Object.keys(PLANS).join(', ')}`);
      s.bucket.setLimits(planLimits(body.plan));
    } else {
      const positive = (v: unknown, name: string) => {
        if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new HttpError(400, `${name} must be a positive number (points; points per second)`);
        return v;
      };
      s.bucket.setLimits({ maximumAvailable: positive(body.maximumAvailable, 'maximumAvailable'), restoreRate: positive(body.restoreRate, 'restoreRate') });
    }
    return this.apiLimitsView(s);
  }

  apiLimitsView(s: SimShop) {
    const b = s.bucket;
    return { ...b.status(), spent: b.spent, throttled: b.throttled, deepestOverdraw: b.deepestOverdraw, lowestDemand: b.lowestDemand, paidCalls: s.log.filter((e) => e.outcome === 'ok' || e.outcome === 'user_errors').length };
  }

  failNext(s: SimShop, operation: unknown, message: unknown): void {
    if (!USER_ERROR_OPERATIONS.includes(operation as string)) {
      throw new HttpError(400, `operation must be one of ${USER_ERROR_OPERATIONS.join(', ')} (mutations with userErrors); got ${JSON.stringify(operation)}`);
    }
    s.failNext.set(operation as string, typeof message === 'string' && message ? message : `Simulated failure of ${operation as string}`);
  }

  // ---- settings and views
  patchSettings(body: Record<string, any>): SimSettings {
    const next = { ...this.settings };
    if (body.appUrl !== undefined) {
      try {
        const u = new URL(String(body.appUrl));
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      } catch {
        throw new HttpError(400, 'appUrl must be an absolute http(s) URL');
      }
      next.appUrl = String(body.appUrl).replace(/\/+$/, '');
    }
    if (body.webhookRetryDelaysMs !== undefined) {
      if (!Array.isArray(body.webhookRetryDelaysMs) || !body.webhookRetryDelaysMs.every((n: unknown) => Number.isInteger(n) && (n as number) >= 0)) {
        throw new HttpError(400, 'webhookRetryDelaysMs must be an array of non-negative integers (milliseconds)');
      }
      next.webhookRetryDelaysMs = [...body.webhookRetryDelaysMs];
    }
    if (body.webhookTimeoutMs !== undefined) {
      if (!Number.isInteger(body.webhookTimeoutMs) || body.webhookTimeoutMs < 1) throw new HttpError(400, 'webhookTimeoutMs must be a positive integer');
      next.webhookTimeoutMs = body.webhookTimeoutMs;
    }
    this.settings = next;
    return this.settings;
  }

  shopView(s: SimShop): ShopView {
    const m = this.metaOf(s);
    return {
      shop: s.domain, shopId: m.shopId, installed: m.installed, scope: m.scope,
      accessTokenExpiresAt: m.accessTokenExpiresAt === null ? null : new Date(m.accessTokenExpiresAt).toISOString(),
      locations: s.locations.map((l) => ({ ...l })), orders: s.orders.size, throttleNext: s.throttleNext, failNext: Object.fromEntries(s.failNext),
    };
  }

  view() {
    return { settings: this.settings, shops: [...this.shops.values()].map((s) => this.shopView(s)), deliveries: this.deliveries.length, fixtures: this.fixtures.names(), operations: SUPPORTED_OPERATIONS };
  }
}

export function deliveryView(d: Delivery, withPayload = false): WebhookDeliveryView {
  const { body, ...rest } = d;
  const v: WebhookDeliveryView = { ...rest, attempts: d.attempts.map((a) => ({ ...a })) };
  if (withPayload) v.payload = JSON.parse(body);
  return v;
}

const copySettings = (s: SimSettings): SimSettings => ({ ...s, webhookRetryDelaysMs: [...s.webhookRetryDelaysMs] });
