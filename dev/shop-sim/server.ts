// The shop simulator: a local HTTP server standing in for any number of Shopify
// shops (<name>.myshopify.com, created on first use). It serves what the app
// talks to on Shopify's side, and a control API for tests, the demo and people:
//
//   POST /admin/api/<version>/graphql.json   Admin GraphQL (dev/shop-sim/admin-graphql.ts)
//   GET  /admin/oauth/authorize              OAuth grant: auto-approves, 302 to redirect_uri, signed
//   POST /admin/oauth/access_token           code, refresh_token, or token exchange (App Bridge session
//                                            token → offline or online access token)
//   /_sim/...                                control API (JSON, no auth, loopback only; see CONTROL_ROUTES)
//
// The shop is the request's Host (the app's routed traffic arrives with
// `Host: <shop>.myshopify.com`, see route.ts), an `x-shop-domain` header, or a
// `/shops/<shop>` path prefix (for tools and browsers: /shops/demo/admin/oauth/authorize?...).
//
// Webhooks go to `${appUrl}/api/webhooks` signed as Shopify signs them (base64
// HMAC-SHA256 of the raw body under the app's API secret) with Shopify's
// X-Shopify-* headers, and are retried on non-2xx or network errors with the
// same webhook id, as Shopify does (on a shorter schedule).
import http from 'node:http';
import { createHmac, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { Logger } from '../../web/ops/logger.ts';
import { adminSchema, sampleWebhookPayload } from './contract.ts';
import {
  handleAdminGraphql, SimShop, SUPPORTED_OPERATIONS, USER_ERROR_OPERATIONS,
  type SimFulfillment, type SimOrder, type OperationLogEntry,
} from './admin-graphql.ts';

export const WEBHOOK_API_VERSION = '2026-10';
export const DEFAULT_FIXTURES_DIR = fileURLToPath(new URL('./orders/', import.meta.url));

/** Shopify's lifetimes for expiring offline tokens: one hour; the refresh token 90 days. */
const ACCESS_TOKEN_TTL_SEC = 3600;
const REFRESH_TOKEN_TTL_SEC = 90 * 24 * 3600;
const AUTH_CODE_TTL_MS = 10 * 60_000;
const MAX_BODY = 2 * 1024 * 1024;
const MAX_DELIVERIES = 5000;
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;
const INVALID_TOKEN = '[API] Invalid API key or access token (unrecognized login or wrong password)';
/** Shopify's token exchange grant (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/token-exchange). */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const OFFLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:offline-access-token';
export const ONLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:online-access-token';
/** Shopify's session tokens live one minute. */
const SESSION_TOKEN_TTL_SEC = 60;
const ONLINE_TOKEN_TTL_SEC = 86_399;
const APP_TOML = fileURLToPath(new URL('../../shopify.app.toml', import.meta.url));

/** The access scopes shopify.app.toml declares: what a Shopify-managed installation grants. */
export function declaredScopes(file = APP_TOML): string {
  try {
    const toml = readFileSync(file, 'utf8');
    const section = toml.slice(toml.indexOf('[access_scopes]'));
    return /^\s*scopes\s*=\s*"([^"]*)"/m.exec(section)?.[1] ?? '';
  } catch {
    return '';
  }
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** An App Bridge session token as Shopify issues it: HS256 under the app's secret. */
export function signSessionToken(claims: Record<string, unknown>, secret: string): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claims));
  return `${head}.${body}.${createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url')}`;
}

/** Verifies a session token; returns its claims or why it is not valid. */
export function verifySessionToken(token: string, o: { apiKey: string; apiSecret: string; shop: string; now?: number }): { claims: Record<string, any> } | { error: string } {
  const parts = token.split('.');
  if (parts.length !== 3) return { error: 'not a JWT' };
  const expected = createHmac('sha256', o.apiSecret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { error: 'signature does not verify with the app secret' };
  let claims: Record<string, any>;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return { error: 'payload is not JSON' };
  }
  const now = Math.floor((o.now ?? Date.now()) / 1000);
  if (claims.aud !== o.apiKey) return { error: 'aud is not this app\'s client id' };
  if (typeof claims.exp !== 'number' || claims.exp <= now) return { error: 'the session token has expired' };
  if (typeof claims.nbf === 'number' && claims.nbf > now + 5) return { error: 'the session token is not valid yet' };
  let dest: string | null = null;
  try {
    dest = new URL(String(claims.dest)).hostname;
  } catch {
    /* below */
  }
  if (dest !== o.shop) return { error: `dest ${String(claims.dest)} is not https://${o.shop}` };
  return { claims };
}

export const WEBHOOK_TOPICS = ['orders/paid', 'orders/cancelled', 'app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export interface ShopSimulatorOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 127.0.0.1. The control API answers loopback clients only, whatever the host. */
  host?: string;
  /** The app's client id and secret: OAuth checks them; webhooks are signed with the secret. */
  apiKey: string;
  apiSecret: string;
  /** Where webhooks go: `${appUrl}/api/webhooks`. */
  appUrl: string;
  log?: Logger;
  /** Where `fixture` names resolve (default dev/shop-sim/orders). */
  fixturesDir?: string;
  /** Waits between webhook attempts after a non-2xx or network error (default 1s, 5s, 15s). */
  webhookRetryDelaysMs?: number[];
  /** Shopify gives a webhook receiver 5 seconds. */
  webhookTimeoutMs?: number;
}

export interface RunningShopSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Live state by shop domain (tests may read it directly). */
  shops: Map<string, SimShop>;
}

export interface SimSettings {
  appUrl: string;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
}

export interface WebhookAttempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  ms: number;
}

export interface WebhookDeliveryView {
  seq: number;
  webhookId: string;
  eventId: string;
  topic: WebhookTopic;
  shop: string;
  orderId: string | null;
  url: string;
  triggeredAt: string;
  /** pending: first attempt under way; retrying: failed, another attempt is scheduled. */
  state: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
  /** Set on a redelivery (same webhook id and body): the seq it repeats. */
  redeliveryOf: number | null;
  /** Only on GET /_sim/webhooks/:seq. */
  payload?: unknown;
}

export interface ShopView {
  shop: string;
  shopId: number;
  installed: boolean;
  scope: string | null;
  accessTokenExpiresAt: string | null;
  locations: SimShop['locations'];
  orders: number;
  throttleNext: number;
  failNext: Record<string, string>;
}

export interface SimOrderView {
  id: string;
  gid: string;
  name: string;
  test: boolean;
  financialStatus: string | null;
  cancelledAt: string | null;
  cancelReason: string | null;
  shippingLines: Array<{ title: string | null; code: string | null }>;
  /** Derived from the fulfillment orders, as Shopify's displayFulfillmentStatus. */
  fulfillmentStatus: 'UNFULFILLED' | 'PARTIALLY_FULFILLED' | 'FULFILLED';
  fulfillmentOrders: Array<{
    id: string; gid: string; status: string; locationId: string; methodType: string;
    lineItems: Array<{ id: string; lineItemId: string; totalQuantity: number; remainingQuantity: number }>;
  }>;
  fulfillments: Array<SimFulfillment & { gid: string }>;
  /** Keyed "<namespace>.<key>". */
  metafields: SimOrder['metafields'];
  tags: string[];
  webhooks: Array<{ seq: number; topic: string; webhookId: string; state: WebhookDeliveryView['state'] }>;
}

export interface PlaceOrderRequest {
  /** A file name in the fixtures directory, without .json. */
  fixture?: string;
  /** A full orders/paid REST payload. */
  payload?: Record<string, unknown>;
  /** Shallow-merged into the payload (e.g. {"test": true}). */
  overrides?: Record<string, unknown>;
  /** 'fresh' mints new order / line item ids and the next order name, to place a fixture again. */
  ids?: 'fixture' | 'fresh';
  /** The fulfillment order's assigned location (default the shop's first). */
  locationId?: string;
  /** Send orders/paid (default true). */
  send?: boolean;
  /** Wait for the first delivery attempt before answering (default true). */
  wait?: boolean;
}

export interface PlaceOrderResult {
  order: SimOrderView;
  webhook: WebhookDeliveryView | null;
}

export interface SendWebhookRequest {
  topic: WebhookTopic;
  /** orders/*: the order; customers/*: whose customer (and orders) the request is about. */
  orderId?: string;
  customerId?: string;
  orderIds?: string[];
  /** Sent as is instead of the built payload. */
  payload?: unknown;
  wait?: boolean;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface ShopMeta {
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

interface Delivery extends Omit<WebhookDeliveryView, 'payload'> {
  body: string;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  text?: string;
}

// Control handlers return plain data (200) or a branded reply with its own status.
const REPLY = Symbol('reply');
const created = (body: unknown): Reply => ({ [REPLY]: true, status: 201, body }) as Reply;
const isReply = (v: unknown): v is Reply => typeof v === 'object' && v !== null && REPLY in v;

const hex = (n: number) => randomBytes(n).toString('hex');
const idOf = (v: unknown) => String(v ?? '').split('/').pop() ?? '';
const newNumericId = () => randomInt(1_000_000, 9_999_999) * 1_000_000 + randomInt(0, 1_000_000);

export function normalizeShop(input: string): string {
  const s = input.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/+$/, '');
  return s.includes('.') ? s : `${s}.myshopify.com`;
}

/**
 * The hmac Shopify puts on the OAuth redirect: hex HMAC-SHA256 under the API
 * secret over the other query parameters, sorted by name and form-encoded
 * with %20 for spaces; exactly what @shopify/shopify-api's validateHmac
 * recomputes (utils/hmac-validator: stringifyQueryForAdmin).
 */
export function signOAuthQuery(params: Record<string, string>, secret: string): string {
  const q = new URLSearchParams();
  for (const k of Object.keys(params).filter((k) => k !== 'hmac' && k !== 'signature').sort((a, b) => a.localeCompare(b))) q.append(k, params[k]!);
  return createHmac('sha256', secret).update(q.toString().replace(/\+/g, '%20')).digest('hex');
}

/** Shopify's webhook signature: base64 HMAC-SHA256 of the raw body. */
export function signWebhookBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

// JSON bodies: integers beyond 2^53 would be silently rounded; refuse them instead.
function parseJson(text: string, what: string): any {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text, ((key: string, value: unknown, ctx?: { source?: string }) => {
      if (typeof value === 'number' && !Number.isSafeInteger(value) && ctx?.source && /^-?\d+$/.test(ctx.source)) {
        throw new HttpError(400, `${what}: the integer ${ctx.source} at "${key}" is too large for a JSON number; use an id below 2^53 or a string`);
      }
      return value;
    }) as (key: string, value: unknown) => unknown);
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(400, `${what} is not valid JSON: ${(e as Error).message}`);
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, `request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const isLoopback = (addr: string | undefined) => addr === '127.0.0.1' || addr === '::1' || addr === '::ffff:127.0.0.1';

export async function startShopSimulator(opts: ShopSimulatorOptions): Promise<RunningShopSimulator> {
  const { port = 0, host = '127.0.0.1', apiKey, apiSecret, log } = opts;
  if (!apiKey || !apiSecret) throw new Error('startShopSimulator: apiKey and apiSecret are required');
  const fixturesDir = opts.fixturesDir ?? DEFAULT_FIXTURES_DIR;
  // Build Shopify's Admin schema now (about a second), not inside the first GraphQL request.
  adminSchema();
  const initialSettings: SimSettings = {
    appUrl: opts.appUrl.replace(/\/+$/, ''),
    webhookRetryDelaysMs: opts.webhookRetryDelaysMs ?? [1_000, 5_000, 15_000],
    webhookTimeoutMs: opts.webhookTimeoutMs ?? 5_000,
  };

  // ---- state
  let settings: SimSettings = { ...initialSettings, webhookRetryDelaysMs: [...initialSettings.webhookRetryDelaysMs] };
  const shops = new Map<string, SimShop>();
  const meta = new Map<string, ShopMeta>();
  const codes = new Map<string, { shop: string; scope: string; expiresAt: number }>();
  let deliveries: Delivery[] = [];
  let deliverySeq = 0;
  const timers = new Set<NodeJS.Timeout>();
  const inflight = new Set<Promise<unknown>>();
  const agent = new Agent({ keepAliveTimeout: 1_000, connect: { timeout: 5_000 } });
  let closed = false;

  function getShop(domain: string, create = true): SimShop {
    const d = normalizeShop(domain);
    if (!SHOP_DOMAIN.test(d)) throw new HttpError(400, `"${domain}" is not a shop domain: expected <name>.myshopify.com (or just <name>)`);
    let s = shops.get(d);
    if (!s) {
      if (!create) throw new HttpError(404, `no shop ${d} in the simulator (create it with POST /_sim/shops or by placing an order)`);
      // Not installed yet: the token is one nobody holds, so GraphQL answers 401 until OAuth.
      s = new SimShop(d, `shpat_unissued_${hex(16)}`);
      shops.set(d, s);
      meta.set(d, { shopId: newNumericId(), installed: false, scope: null, accessTokenExpiresAt: null, refreshTokens: new Map(), currentRefreshToken: null, nextOrderNumber: 1001 });
      log?.info({ shop: d }, 'shop created');
    }
    return s;
  }
  const metaOf = (s: SimShop) => meta.get(s.domain)!;

  function issueTokens(s: SimShop, scope: string, expiring: boolean) {
    const m = metaOf(s);
    const accessToken = `shpat_${hex(16)}`;
    s.accessToken = accessToken;
    m.installed = true;
    m.scope = scope;
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

  function revokeTokens(s: SimShop) {
    const m = metaOf(s);
    s.accessToken = `shpat_revoked_${hex(16)}`;
    m.installed = false;
    m.accessTokenExpiresAt = null;
    m.refreshTokens.clear();
    m.currentRefreshToken = null;
  }

  // ---- webhooks
  function deliveryView(d: Delivery, withPayload = false): WebhookDeliveryView {
    const { body, ...rest } = d;
    const v: WebhookDeliveryView = { ...rest, attempts: d.attempts.map((a) => ({ ...a })) };
    if (withPayload) v.payload = JSON.parse(body);
    return v;
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inflight.add(p);
    void p.finally(() => inflight.delete(p)).catch(() => {});
    return p;
  }

  async function attempt(d: Delivery): Promise<void> {
    if (closed) return;
    const n = d.attempts.length + 1;
    const started = Date.now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Shopify-Captain-Hook',
      'x-shopify-topic': d.topic,
      'x-shopify-shop-domain': d.shop,
      'x-shopify-webhook-id': d.webhookId,
      'x-shopify-event-id': d.eventId,
      'x-shopify-triggered-at': d.triggeredAt,
      'x-shopify-api-version': WEBHOOK_API_VERSION,
      'x-shopify-hmac-sha256': signWebhookBody(d.body, apiSecret),
    };
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await request(d.url, {
        method: 'POST', headers, body: d.body, dispatcher: agent,
        signal: AbortSignal.timeout(settings.webhookTimeoutMs), headersTimeout: settings.webhookTimeoutMs, bodyTimeout: settings.webhookTimeoutMs,
      });
      status = res.statusCode;
      await res.body.dump();
    } catch (e) {
      const err = e as { code?: string; name?: string; message?: string };
      error = err.name === 'TimeoutError' ? `no answer within ${settings.webhookTimeoutMs} ms` : (err.code ?? err.message ?? 'network error');
    }
    const ok = status !== null && status >= 200 && status < 300;
    d.attempts.push({ attempt: n, at: new Date(started).toISOString(), status, error, ms: Date.now() - started });
    const delays = settings.webhookRetryDelaysMs;
    if (ok) d.state = 'delivered';
    else if (n <= delays.length && !closed) {
      d.state = 'retrying';
      const t = setTimeout(() => {
        timers.delete(t);
        void track(attempt(d));
      }, delays[n - 1]);
      t.unref();
      timers.add(t);
    } else d.state = 'failed';
    log?.[ok ? 'info' : 'warn']({ topic: d.topic, shop: d.shop, webhookId: d.webhookId, attempt: n, status, error, state: d.state }, ok ? 'webhook delivered' : 'webhook delivery failed');
  }

  async function sendWebhook(shop: string, topic: WebhookTopic, payload: unknown, o: { orderId?: string | null; wait?: boolean; redeliver?: Delivery } = {}): Promise<WebhookDeliveryView> {
    const src = o.redeliver;
    const d: Delivery = {
      seq: ++deliverySeq,
      webhookId: src?.webhookId ?? randomUUID(),
      eventId: src?.eventId ?? randomUUID(),
      topic,
      shop,
      orderId: o.orderId ?? null,
      url: `${settings.appUrl}/api/webhooks`,
      triggeredAt: src?.triggeredAt ?? new Date().toISOString(),
      state: 'pending',
      attempts: [],
      redeliveryOf: src?.seq ?? null,
      // Fixed once: retries and redeliveries send the same bytes.
      body: src?.body ?? JSON.stringify(payload),
    };
    deliveries.push(d);
    if (deliveries.length > MAX_DELIVERIES) deliveries = deliveries.slice(-MAX_DELIVERIES);
    const first = track(attempt(d));
    if (o.wait !== false) await first;
    return deliveryView(d);
  }

  /** The shop resource (app/uninstalled): Shopify's documented sample, made out to this shop. */
  function shopPayload(s: SimShop) {
    const name = s.domain.replace(/\.myshopify\.com$/, '');
    return {
      ...sampleWebhookPayload('app/uninstalled', s.domain),
      id: metaOf(s).shopId, name, email: `owner@${name}.example`, customer_email: `owner@${name}.example`, domain: s.domain, myshopify_domain: s.domain,
      province: 'Gauteng', province_code: 'GP', country: 'ZA', country_code: 'ZA', country_name: 'South Africa', currency: s.currency,
      enabled_presentment_currencies: [s.currency], iana_timezone: 'Africa/Johannesburg', timezone: '(GMT+02:00) Africa/Johannesburg', plan_name: 'basic',
      primary_location_id: Number(s.locations[0]?.id ?? 1),
    };
  }

  function compliancePayload(s: SimShop, topic: WebhookTopic, r: SendWebhookRequest): unknown {
    const base = { shop_id: metaOf(s).shopId, shop_domain: s.domain };
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
  function orderView(s: SimShop, o: SimOrder): SimOrderView {
    const p = o.payload;
    const items = o.fulfillmentOrders.filter((f) => f.status !== 'CANCELLED').flatMap((f) => f.lineItems);
    const total = items.reduce((n, li) => n + li.totalQuantity, 0);
    const left = items.reduce((n, li) => n + li.remainingQuantity, 0);
    return {
      id: o.id,
      gid: `gid://shopify/Order/${o.id}`,
      name: p.name,
      test: !!p.test,
      financialStatus: p.financial_status ?? null,
      cancelledAt: p.cancelled_at ?? null,
      cancelReason: p.cancel_reason ?? null,
      shippingLines: (p.shipping_lines ?? []).map((l: any) => ({ title: l.title ?? null, code: l.code ?? null })),
      fulfillmentStatus: total === 0 || left === total ? 'UNFULFILLED' : left === 0 ? 'FULFILLED' : 'PARTIALLY_FULFILLED',
      fulfillmentOrders: o.fulfillmentOrders.map((f) => ({
        id: f.id, gid: `gid://shopify/FulfillmentOrder/${f.id}`, status: f.status, locationId: f.locationId, methodType: f.methodType,
        lineItems: f.lineItems.map((li) => ({ id: li.id, lineItemId: li.lineItemId, totalQuantity: li.totalQuantity, remainingQuantity: li.remainingQuantity })),
      })),
      fulfillments: o.fulfillments.map((f) => ({ ...structuredClone(f), gid: `gid://shopify/Fulfillment/${f.id}` })),
      metafields: structuredClone(o.metafields),
      tags: [...o.tags],
      webhooks: deliveries.filter((d) => d.shop === s.domain && d.orderId === o.id).map((d) => ({ seq: d.seq, topic: d.topic, webhookId: d.webhookId, state: d.state })),
    };
  }

  function fixtureNames(): string[] {
    try {
      return readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
    } catch {
      return [];
    }
  }

  function loadFixture(name: string): Record<string, any> {
    if (!/^[\w-]+$/.test(name)) throw new HttpError(400, `fixture must be a file name without .json, e.g. "sandton-same-day"; got "${name}"`);
    let text: string;
    try {
      text = readFileSync(join(fixturesDir, `${name}.json`), 'utf8');
    } catch {
      throw new HttpError(404, `no fixture "${name}" in ${fixturesDir}; available: ${fixtureNames().join(', ') || '(none)'}`);
    }
    return parseJson(text, `fixture ${name}`);
  }

  function freshIds(s: SimShop, p: Record<string, any>) {
    const m = metaOf(s);
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

  async function placeOrder(s: SimShop, r: PlaceOrderRequest): Promise<PlaceOrderResult> {
    if (!!r.fixture === !!r.payload) throw new HttpError(400, 'pass exactly one of "fixture" (a fixture name) or "payload" (an orders/paid REST payload)');
    if (r.ids !== undefined && r.ids !== 'fixture' && r.ids !== 'fresh') throw new HttpError(400, 'ids must be "fixture" or "fresh"');
    if (r.overrides !== undefined && (typeof r.overrides !== 'object' || r.overrides === null || Array.isArray(r.overrides))) throw new HttpError(400, 'overrides must be an object');
    const p: Record<string, any> = r.fixture ? loadFixture(r.fixture) : structuredClone(r.payload!);
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new HttpError(400, 'payload must be an orders/paid REST payload object');
    if (r.ids === 'fresh') freshIds(s, p);
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
    if (typeof p.order_status_url === 'string') p.order_status_url = `https://${s.domain}/${metaOf(s).shopId}/orders/${p.token ?? id}/authenticate?key=${hex(8)}`;
    p.updated_at = new Date().toISOString();
    const m = metaOf(s);
    if (typeof p.order_number === 'number' && p.order_number >= m.nextOrderNumber) m.nextOrderNumber = p.order_number + 1;
    const order = s.addOrder(p, locationId ? { locationId } : {});
    log?.info({ shop: s.domain, orderId: order.id, name: p.name, fixture: r.fixture ?? null }, 'order placed');
    const webhook = r.send === false ? null : await sendWebhook(s.domain, 'orders/paid', order.payload, { orderId: order.id, wait: r.wait });
    return { order: orderView(s, order), webhook };
  }

  function orderOf(s: SimShop, id: string): SimOrder {
    const o = s.order(id);
    if (!o) throw new HttpError(404, `no order ${id} in ${s.domain}; orders: ${[...s.orders.values()].map((x) => `${x.id} (${x.payload.name})`).join(', ') || '(none)'}`);
    return o;
  }

  async function cancelOrder(s: SimShop, id: string, body: { reason?: string; force?: boolean; send?: boolean; wait?: boolean }) {
    const o = orderOf(s, id);
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
    log?.info({ shop: s.domain, orderId: o.id, reason }, 'order cancelled');
    const webhook = body.send === false ? null : await sendWebhook(s.domain, 'orders/cancelled', o.payload, { orderId: o.id, wait: body.wait });
    return { order: orderView(s, o), webhook };
  }

  function shopView(s: SimShop): ShopView {
    const m = metaOf(s);
    return {
      shop: s.domain, shopId: m.shopId, installed: m.installed, scope: m.scope,
      accessTokenExpiresAt: m.accessTokenExpiresAt === null ? null : new Date(m.accessTokenExpiresAt).toISOString(),
      locations: s.locations.map((l) => ({ ...l })), orders: s.orders.size, throttleNext: s.throttleNext, failNext: Object.fromEntries(s.failNext),
    };
  }

  function reset() {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    shops.clear();
    meta.clear();
    codes.clear();
    deliveries = [];
    deliverySeq = 0;
    settings = { ...initialSettings, webhookRetryDelaysMs: [...initialSettings.webhookRetryDelaysMs] };
  }

  // ---- Shopify-facing routes
  function graphql(s: SimShop, req: http.IncomingMessage, raw: string): Reply {
    const token = req.headers['x-shopify-access-token'];
    const m = metaOf(s);
    const presented = Array.isArray(token) ? token[0] : token;
    if (presented === s.accessToken && m.accessTokenExpiresAt !== null && Date.now() >= m.accessTokenExpiresAt) {
      return { status: 401, body: { errors: INVALID_TOKEN } };
    }
    let body: any;
    try {
      body = raw.trim() ? JSON.parse(raw) : null;
    } catch {
      return { status: 400, body: { errors: 'The request body is not valid JSON' } };
    }
    if (!body || typeof body.query !== 'string') return { status: 400, body: { errors: { query: 'Required parameter missing or invalid' } } };
    const r = handleAdminGraphql(s, presented, body);
    // The replacement of a refreshed token is in use: the previous refresh token stops working.
    if (r.status === 200 && m.currentRefreshToken) for (const t of m.refreshTokens.keys()) if (t !== m.currentRefreshToken) m.refreshTokens.delete(t);
    if (r.status === 401) log?.warn({ shop: s.domain }, 'graphql request with an invalid access token');
    return { status: r.status, body: r.body };
  }

  function authorize(s: SimShop, url: URL): Reply {
    const q = url.searchParams;
    const clientId = q.get('client_id');
    if (clientId !== apiKey) return { status: 400, text: `Oauth error invalid_request: the client_id ${JSON.stringify(clientId)} is not this app's API key (the simulator expects ${JSON.stringify(apiKey)})` };
    const redirectUri = q.get('redirect_uri');
    let target: URL;
    try {
      target = new URL(redirectUri ?? '');
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error();
    } catch {
      return { status: 400, text: 'Oauth error invalid_request: redirect_uri must be an absolute http(s) URL' };
    }
    if (q.getAll('grant_options[]').includes('per-user')) {
      return { status: 400, text: 'Oauth error invalid_request: online (per-user) access tokens are not simulated; request offline access' };
    }
    const scope = q.get('scope') ?? '';
    const code = hex(16);
    codes.set(code, { shop: s.domain, scope, expiresAt: Date.now() + AUTH_CODE_TTL_MS });
    const name = s.domain.replace(/\.myshopify\.com$/, '');
    const params: Record<string, string> = Object.fromEntries(target.searchParams);
    Object.assign(params, {
      code,
      host: Buffer.from(`admin.shopify.com/store/${name}`).toString('base64'),
      shop: s.domain,
      timestamp: String(Math.floor(Date.now() / 1000)),
    });
    const state = q.get('state');
    if (state !== null) params.state = state;
    params.hmac = signOAuthQuery(params, apiSecret);
    target.search = new URLSearchParams(params).toString();
    log?.info({ shop: s.domain, scope }, 'oauth grant approved');
    return { status: 302, headers: { location: target.toString() }, text: `Redirecting to ${target.origin}${target.pathname}` };
  }

  function accessToken(s: SimShop, req: http.IncomingMessage, raw: string, url: URL): Reply {
    const fail = (status: number, error: string, description: string): Reply => ({ status, body: { error, error_description: description } });
    const type = String(req.headers['content-type'] ?? '');
    let p: Record<string, unknown>;
    try {
      p = !raw.trim()
        ? Object.fromEntries(url.searchParams)
        : type.includes('application/x-www-form-urlencoded')
          ? Object.fromEntries(new URLSearchParams(raw))
          : JSON.parse(raw);
    } catch {
      return fail(400, 'invalid_request', 'The body must be JSON or application/x-www-form-urlencoded');
    }
    if (!p || typeof p !== 'object') return fail(400, 'invalid_request', 'The body must be a JSON object');
    if (p.client_id !== apiKey || p.client_secret !== apiSecret) return fail(401, 'invalid_client', 'client_id or client_secret is not this app\'s');
    const expiring = p.expiring === '1' || p.expiring === 1 || p.expiring === true;
    if (p.grant_type === 'refresh_token') {
      const m = metaOf(s);
      const rt = String(p.refresh_token ?? '');
      const until = m.refreshTokens.get(rt);
      if (!rt || until === undefined) return fail(400, 'invalid_grant', `The refresh token is not valid for ${s.domain} (unknown, replaced and superseded, or revoked on uninstall)`);
      if (until <= Date.now()) return fail(400, 'invalid_grant', 'The refresh token has expired; the merchant must open the app to re-authorise');
      const tokens = issueTokens(s, m.scope ?? '', true);
      // The used refresh token stays valid until the new access token is first used (Shopify, Aug 2026).
      m.refreshTokens.set(rt, until);
      log?.info({ shop: s.domain }, 'access token refreshed');
      return { status: 200, body: tokens, headers: { 'cache-control': 'no-store' } };
    }
    if (p.grant_type === TOKEN_EXCHANGE_GRANT) return tokenExchange(s, p, expiring);
    if (p.grant_type !== undefined && p.grant_type !== 'authorization_code') {
      return fail(400, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE_GRANT}, refresh_token, or absent with a code`);
    }
    const code = String(p.code ?? '');
    const c = codes.get(code);
    if (!code || !c || c.shop !== s.domain) return fail(400, 'invalid_request', 'The authorization code was not found or was already used');
    codes.delete(code); // single use
    if (c.expiresAt <= Date.now()) return fail(400, 'invalid_request', 'The authorization code has expired');
    const tokens = issueTokens(s, c.scope, expiring);
    log?.info({ shop: s.domain, expiring }, 'app installed: access token issued');
    return { status: 200, body: tokens, headers: { 'cache-control': 'no-store' } };
  }

  /**
   * Token exchange: an embedded app trades the App Bridge session token it was
   * sent for an access token. Shopify answers 400 invalid_subject_token when the
   * session token is expired or otherwise invalid.
   */
  function tokenExchange(s: SimShop, p: Record<string, unknown>, expiring: boolean): Reply {
    const fail = (status: number, error: string, description: string): Reply => ({ status, body: { error, error_description: description } });
    if (p.subject_token_type !== ID_TOKEN_TYPE) return fail(400, 'invalid_request', `subject_token_type must be ${ID_TOKEN_TYPE}`);
    const requested = p.requested_token_type;
    if (requested !== OFFLINE_TOKEN_TYPE && requested !== ONLINE_TOKEN_TYPE) {
      return fail(400, 'invalid_request', `requested_token_type must be ${OFFLINE_TOKEN_TYPE} or ${ONLINE_TOKEN_TYPE}`);
    }
    const checked = verifySessionToken(String(p.subject_token ?? ''), { apiKey, apiSecret, shop: s.domain });
    if ('error' in checked) return fail(400, 'invalid_subject_token', `The session token is not valid: ${checked.error}`);
    const m = metaOf(s);
    if (!m.installed) return fail(400, 'invalid_subject_token', `The app is not installed on ${s.domain}`);
    const scope = m.scope ?? '';
    if (requested === ONLINE_TOKEN_TYPE) {
      // Documented shape; the simulated GraphQL API accepts the shop's offline token only.
      const sub = String(checked.claims.sub ?? '1');
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: {
          access_token: `shpua_${hex(16)}`, scope, expires_in: ONLINE_TOKEN_TTL_SEC, associated_user_scope: scope,
          associated_user: { id: /^\d+$/.test(sub) ? Number(sub) : sub, first_name: 'Sim', last_name: 'Merchant', email: `owner@${s.domain}`, email_verified: true, account_owner: true, locale: 'en', collaborator: false },
        },
      };
    }
    const tokens = issueTokens(s, scope, expiring);
    log?.info({ shop: s.domain, expiring }, 'token exchange: offline access token issued');
    return { status: 200, body: tokens, headers: { 'cache-control': 'no-store' } };
  }

  /** What Shopify does when a merchant opens the app in the admin: a signed embedded URL with a fresh session token. */
  function openApp(s: SimShop, path: string, userId: string) {
    const now = Math.floor(Date.now() / 1000);
    const sessionToken = signSessionToken(
      { iss: `https://${s.domain}/admin`, dest: `https://${s.domain}`, aud: apiKey, sub: userId, exp: now + SESSION_TOKEN_TTL_SEC, nbf: now, iat: now, jti: randomUUID(), sid: randomUUID() },
      apiSecret,
    );
    const name = s.domain.replace(/\.myshopify\.com$/, '');
    const params: Record<string, string> = {
      embedded: '1', host: Buffer.from(`admin.shopify.com/store/${name}`).toString('base64url'), id_token: sessionToken,
      locale: 'en', session: hex(32), shop: s.domain, timestamp: String(now),
    };
    params.hmac = signOAuthQuery(params, apiSecret);
    const url = new URL(path.startsWith('/') ? path : `/${path}`, `${settings.appUrl}/`);
    url.search = new URLSearchParams(params).toString();
    return { url: url.toString(), sessionToken, expiresAt: new Date((now + SESSION_TOKEN_TTL_SEC) * 1000).toISOString() };
  }

  /** The shop a Shopify-facing request is for, and its path without any /shops/<shop> prefix. */
  function shopFor(req: http.IncomingMessage, pathname: string): { shop: string | null; path: string } {
    const m = /^\/shops\/([^/]+)(\/.*)$/.exec(pathname);
    if (m) return { shop: normalizeShop(decodeURIComponent(m[1]!)), path: m[2]! };
    const header = req.headers['x-shop-domain'];
    if (typeof header === 'string' && header) return { shop: normalizeShop(header), path: pathname };
    const hostname = String(req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    return { shop: SHOP_DOMAIN.test(hostname) ? hostname : null, path: pathname };
  }

  // ---- control API
  type Ctx = { params: string[]; body: any; url: URL };
  type Route = [method: string, pattern: RegExp, handler: (c: Ctx) => Promise<Reply | unknown> | Reply | unknown, summary: string];
  const shopParam = (c: Ctx, create = false) => getShop(decodeURIComponent(c.params[0]!), create);
  const optionalBool = (v: unknown, name: string): boolean | undefined => {
    if (v === undefined || typeof v === 'boolean') return v;
    throw new HttpError(400, `${name} must be true or false`);
  };

  const routes: Route[] = [
    ['GET', /^\/health$/, () => ({ ok: true, url: serverUrl }), 'liveness'],
    ['GET', /^\/state$/, () => ({ settings, shops: [...shops.values()].map(shopView), deliveries: deliveries.length, fixtures: fixtureNames(), operations: SUPPORTED_OPERATIONS }), 'settings, shops, fixtures, supported operations'],
    ['POST', /^\/reset$/, () => (reset(), { ok: true }), 'forget shops, orders, codes, tokens, deliveries; settings back to start'],
    ['GET', /^\/settings$/, () => settings, 'appUrl, webhookRetryDelaysMs, webhookTimeoutMs'],
    ['PATCH', /^\/settings$/, ({ body }) => {
      const next = { ...settings };
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
      settings = next;
      return settings;
    }, 'change appUrl / retry delays / timeout'],
    ['GET', /^\/fixtures$/, () => fixtureNames(), 'fixture names'],
    ['GET', /^\/shops$/, () => [...shops.values()].map(shopView), 'all shops'],
    ['POST', /^\/shops$/, ({ body }) => {
      if (typeof body.shop !== 'string') throw new HttpError(400, 'shop is required: "<name>" or "<name>.myshopify.com"');
      const s = getShop(body.shop);
      if (body.accessToken !== undefined) {
        if (typeof body.accessToken !== 'string' || body.accessToken.length < 8) throw new HttpError(400, 'accessToken must be a string of at least 8 characters');
        // Installed without OAuth: a non-expiring token, for tests that talk GraphQL directly.
        s.accessToken = body.accessToken;
        const m = metaOf(s);
        Object.assign(m, { installed: true, scope: typeof body.scope === 'string' ? body.scope : null, accessTokenExpiresAt: null, currentRefreshToken: null });
        m.refreshTokens.clear();
      }
      return created(shopView(s));
    }, 'create a shop {shop, accessToken?, scope?}'],
    ['GET', /^\/shops\/([^/]+)$/, (c) => shopView(shopParam(c)), 'one shop'],
    ['POST', /^\/shops\/([^/]+)\/orders$/, async (c) => created(await placeOrder(shopParam(c, true), c.body as PlaceOrderRequest)), 'place an order {fixture|payload, overrides?, ids?, locationId?, send?, wait?} → orders/paid'],
    ['GET', /^\/shops\/([^/]+)\/orders$/, (c) => {
      const s = shopParam(c);
      return [...s.orders.values()].map((o) => orderView(s, o));
    }, 'every order with fulfillment state'],
    ['GET', /^\/shops\/([^/]+)\/orders\/([^/]+)$/, (c) => {
      const s = shopParam(c);
      return orderView(s, orderOf(s, decodeURIComponent(c.params[1]!)));
    }, 'one order: fulfillment orders, fulfillments (tracking, notifyCustomer, events), metafields, tags, webhooks'],
    ['POST', /^\/shops\/([^/]+)\/orders\/([^/]+)\/cancel$/, (c) => {
      optionalBool(c.body.force, 'force');
      return cancelOrder(shopParam(c), decodeURIComponent(c.params[1]!), c.body);
    }, 'cancel {reason?, force?, send?, wait?} → orders/cancelled'],
    ['POST', /^\/shops\/([^/]+)\/webhooks$/, async (c) => {
      const s = shopParam(c);
      const r = c.body as SendWebhookRequest;
      if (!WEBHOOK_TOPICS.includes(r.topic)) throw new HttpError(400, `topic must be one of ${WEBHOOK_TOPICS.join(', ')}`);
      let payload: unknown = r.payload;
      let orderId: string | null = null;
      if (r.topic === 'orders/paid' || r.topic === 'orders/cancelled') {
        if (payload === undefined) {
          if (!r.orderId) throw new HttpError(400, `${r.topic} needs orderId (an order in the shop) or a payload`);
          const o = orderOf(s, r.orderId);
          payload = o.payload;
          orderId = o.id;
        } else orderId = idOf((payload as any)?.admin_graphql_api_id) || (String((payload as any)?.id ?? '') || null);
      } else if (r.topic === 'app/uninstalled') payload ??= shopPayload(s);
      else payload ??= compliancePayload(s, r.topic, r);
      return created(await sendWebhook(s.domain, r.topic, payload, { orderId, wait: optionalBool(r.wait, 'wait') }));
    }, 'send a webhook {topic, orderId?, customerId?, orderIds?, payload?, wait?} (new webhook id)'],
    ['POST', /^\/shops\/([^/]+)\/install$/, (c) => {
      // Shopify-managed installation: installed with the scopes of shopify.app.toml; no token until the app exchanges one.
      const s = shopParam(c, true);
      const m = metaOf(s);
      if (c.body.scope !== undefined && typeof c.body.scope !== 'string') throw new HttpError(400, 'scope must be a comma-separated string');
      m.installed = true;
      m.scope = c.body.scope ?? (declaredScopes() || null);
      log?.info({ shop: s.domain, scope: m.scope }, 'app installed (Shopify-managed installation)');
      return created(shopView(s));
    }, 'managed install {scope?}: installed with the shopify.app.toml scopes, no token issued yet'],
    ['POST', /^\/shops\/([^/]+)\/open$/, (c) => {
      const s = shopParam(c);
      if (!metaOf(s).installed) throw new HttpError(409, `the app is not installed on ${s.domain}: POST /_sim/shops/${s.domain}/install first`);
      if (c.body.path !== undefined && (typeof c.body.path !== 'string' || !c.body.path.startsWith('/'))) throw new HttpError(400, 'path must start with /');
      return openApp(s, c.body.path ?? '/', typeof c.body.userId === 'string' ? c.body.userId : '1');
    }, 'open the app in the admin {path?, userId?} → {url (embedded, signed, with id_token), sessionToken}'],
    ['POST', /^\/shops\/([^/]+)\/session-token$/, (c) => {
      const s = shopParam(c);
      return openApp(s, '/', typeof c.body.userId === 'string' ? c.body.userId : '1');
    }, 'a fresh App Bridge session token for the shop (as shopify.idToken() returns)'],
    ['POST', /^\/shops\/([^/]+)\/uninstall$/, async (c) => {
      const s = shopParam(c);
      revokeTokens(s);
      log?.info({ shop: s.domain }, 'app uninstalled: tokens revoked');
      return created(await sendWebhook(s.domain, 'app/uninstalled', shopPayload(s), { wait: optionalBool(c.body.wait, 'wait') }));
    }, 'uninstall: revoke tokens, send app/uninstalled'],
    ['POST', /^\/shops\/([^/]+)\/throttle$/, (c) => {
      const s = shopParam(c);
      const count = c.body.count ?? 1;
      if (!Number.isInteger(count) || count < 0) throw new HttpError(400, 'count must be a non-negative integer');
      s.throttleNext = count;
      return { throttleNext: s.throttleNext };
    }, 'answer the next {count} GraphQL calls with THROTTLED'],
    ['POST', /^\/shops\/([^/]+)\/user-errors$/, (c) => {
      const s = shopParam(c);
      const { operation, message } = c.body;
      if (!USER_ERROR_OPERATIONS.includes(operation)) {
        throw new HttpError(400, `operation must be one of ${USER_ERROR_OPERATIONS.join(', ')} (mutations with userErrors); got ${JSON.stringify(operation)}`);
      }
      s.failNext.set(operation, typeof message === 'string' && message ? message : `Simulated failure of ${operation}`);
      return { failNext: Object.fromEntries(s.failNext) };
    }, 'answer the next call of {operation} with a userError {message}'],
    ['POST', /^\/shops\/([^/]+)\/token\/expire$/, (c) => {
      const s = shopParam(c);
      const m = metaOf(s);
      if (!m.installed) throw new HttpError(409, `${s.domain} has no installed app token to expire`);
      m.accessTokenExpiresAt = Date.now() - 1;
      return shopView(s);
    }, 'expire the access token now (GraphQL answers 401 until refreshed)'],
    ['GET', /^\/shops\/([^/]+)\/operations$/, (c) => {
      const name = c.url.searchParams.get('name');
      const entries: OperationLogEntry[] = shopParam(c).log;
      return name ? entries.filter((e) => e.operationName === name) : entries;
    }, 'GraphQL operation log (?name=)'],
    ['GET', /^\/webhooks$/, ({ url }) => {
      const shop = url.searchParams.get('shop');
      const topic = url.searchParams.get('topic');
      const orderId = url.searchParams.get('orderId');
      return deliveries
        .filter((d) => (!shop || d.shop === normalizeShop(shop)) && (!topic || d.topic === topic) && (!orderId || d.orderId === orderId))
        .map((d) => deliveryView(d));
    }, 'webhook delivery log (?shop=&topic=&orderId=)'],
    ['GET', /^\/webhooks\/(\d+)$/, (c) => deliveryView(deliveryBySeq(c.params[0]!), true), 'one delivery with its payload'],
    ['POST', /^\/webhooks\/(\d+)\/redeliver$/, async (c) => {
      const src = deliveryBySeq(c.params[0]!);
      return created(await sendWebhook(src.shop, src.topic, null, { orderId: src.orderId, redeliver: src, wait: optionalBool(c.body.wait, 'wait') }));
    }, 'send a delivery again: same webhook id, event id and body (a Shopify duplicate)'],
  ];

  function deliveryBySeq(seq: string): Delivery {
    const d = deliveries.find((x) => x.seq === Number(seq));
    if (!d) throw new HttpError(404, `no webhook delivery ${seq}`);
    return d;
  }

  async function control(req: http.IncomingMessage, url: URL, raw: string): Promise<Reply> {
    if (!isLoopback(req.socket.remoteAddress)) return { status: 403, body: { error: 'the control API answers loopback (127.0.0.1) clients only' } };
    const path = url.pathname.slice('/_sim'.length) || '/';
    const method = req.method ?? 'GET';
    const matching = routes.filter(([, re]) => re.test(path));
    if (!matching.length) return { status: 404, body: { error: `no control route ${method} /_sim${path}`, routes: CONTROL_API_SUMMARY } };
    const route = matching.find(([m]) => m === method);
    if (!route) return { status: 405, body: { error: `${method} is not allowed on /_sim${path}; allowed: ${matching.map(([m]) => m).join(', ')}` } };
    const body = method === 'GET' ? {} : parseJson(raw, 'request body');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'request body must be a JSON object');
    const out = await route[2]({ params: route[1].exec(path)!.slice(1), body, url });
    return isReply(out) ? out : { status: 200, body: out };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://shop-sim.local');
    let reply: Reply;
    try {
      const raw = await readBody(req);
      if (url.pathname === '/_sim' || url.pathname.startsWith('/_sim/')) reply = await control(req, url, raw);
      else {
        const { shop, path } = shopFor(req, url.pathname);
        const graphqlPath = /^\/admin\/api\/([\w-]+)\/graphql\.json$/.exec(path);
        const oauth = path === '/admin/oauth/authorize' || path === '/admin/oauth/access_token';
        if (path === '/' && !shop) {
          reply = { status: 200, body: { service: 'shop simulator', control: `${serverUrl}/_sim/state`, shops: [...shops.keys()] } };
        } else if (!graphqlPath && !oauth) {
          reply = { status: 404, body: { errors: `Not Found: the simulator serves POST /admin/api/<version>/graphql.json, GET /admin/oauth/authorize, POST /admin/oauth/access_token and /_sim/*; got ${req.method} ${path}` } };
        } else if (!shop) {
          reply = { status: 400, body: { errors: 'Which shop? Send Host: <shop>.myshopify.com, an x-shop-domain header, or use the /shops/<shop>/... path prefix' } };
        } else if (graphqlPath) {
          reply = req.method === 'POST' ? graphql(getShop(shop), req, raw) : { status: 405, body: { errors: 'Admin GraphQL takes POST' } };
        } else if (path === '/admin/oauth/authorize') {
          reply = req.method === 'GET' ? authorize(getShop(shop), url) : { status: 405, text: 'authorize takes GET' };
        } else {
          reply = req.method === 'POST' ? accessToken(getShop(shop), req, raw, url) : { status: 405, body: { error: 'invalid_request', error_description: 'access_token takes POST' } };
        }
      }
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      if (status >= 500) log?.error({ err: e }, 'shop simulator error');
      reply = { status, body: { error: status >= 500 ? `internal error: ${(e as Error).message}` : (e as Error).message } };
    }
    if (res.headersSent) return;
    const headers: Record<string, string> = { ...reply.headers };
    let payload: string;
    if (reply.text !== undefined) {
      headers['content-type'] ??= 'text/plain; charset=utf-8';
      payload = reply.text;
    } else {
      headers['content-type'] ??= 'application/json; charset=utf-8';
      payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
    }
    res.writeHead(reply.status, headers);
    res.end(payload);
  }

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((e) => {
      log?.error({ err: e }, 'shop simulator request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal error' }));
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const boundPort = (server.address() as AddressInfo).port;
  const serverUrl = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  log?.info({ url: serverUrl, appUrl: settings.appUrl }, 'shop simulator listening');

  return {
    url: serverUrl,
    port: boundPort,
    shops,
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1_000).unref();
      });
      await agent.destroy(); // aborts sends still waiting on a slow receiver
      await Promise.allSettled([...inflight]);
    },
  };
}

/** The control routes, for `npm run shop-sim` and the README (kept next to the code). */
export const CONTROL_API_SUMMARY = [
  'GET  /_sim/health | /_sim/state | /_sim/settings | /_sim/fixtures | /_sim/shops',
  'POST /_sim/reset                              PATCH /_sim/settings {appUrl?, webhookRetryDelaysMs?, webhookTimeoutMs?}',
  'POST /_sim/shops {shop, accessToken?, scope?}  GET /_sim/shops/:shop',
  'POST /_sim/shops/:shop/orders {fixture|payload, overrides?, ids?: fixture|fresh, locationId?, send?, wait?}  → orders/paid',
  'GET  /_sim/shops/:shop/orders[/:id]           fulfillment orders, fulfillments (tracking, notifyCustomer, events), metafields, tags',
  'POST /_sim/shops/:shop/orders/:id/cancel {reason?, force?}  → orders/cancelled',
  'POST /_sim/shops/:shop/webhooks {topic, orderId?, customerId?, orderIds?, payload?}   (compliance topics too)',
  'POST /_sim/shops/:shop/install {scope?}       Shopify-managed install (shopify.app.toml scopes), no token yet',
  'POST /_sim/shops/:shop/open {path?}           embedded URL with id_token, as the admin opens the app; /session-token: a fresh one',
  'POST /_sim/shops/:shop/uninstall              revoke tokens, send app/uninstalled',
  'POST /_sim/shops/:shop/throttle {count}       POST /_sim/shops/:shop/user-errors {operation, message}',
  'POST /_sim/shops/:shop/token/expire           GET /_sim/shops/:shop/operations?name=',
  'GET  /_sim/webhooks?shop=&topic=&orderId=     GET /_sim/webhooks/:seq    POST /_sim/webhooks/:seq/redeliver',
];
