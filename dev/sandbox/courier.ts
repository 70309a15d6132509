// Sandbox courier: an in-memory HTTP server that behaves as the Delivery Orders API spec
// describes, with our documented choices where the spec is silent (README section
// "Courier sandbox and Delivery API choices"), fault injection, and a control API under
// /_sandbox (no auth: it binds to 127.0.0.1 by default and is for tests and demos only).
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Logger } from '../../web/ops/logger.ts';
import { canonicalJson, formatCents, parseWithNumberText, priceCents, validateCreateOrder, type ValidOrder } from './validate.ts';
import { isKnownStatus, nextStatus, stepsTo } from './statuses.ts';
import { WebhookSender, type OutgoingEvent } from './webhooks.ts';
import type {
  AdvanceRequest, FaultRoute, FaultSpec, Outcome, RequestLogEntry, SandboxAppConfig, SandboxOrderSnapshot, SandboxSettings, SandboxStats,
} from './types.ts';

export type * from './types.ts';

/** Scopes the sandbox knows. orders:create and webhooks:manage are the spec's; the other two are our choice. */
export const SANDBOX_SCOPES = ['orders:create', 'orders:read', 'quotes:create', 'webhooks:manage'];

export const DEFAULT_SANDBOX_APP: SandboxAppConfig = {
  clientId: 'sandbox-client-id',
  clientSecret: 'sandbox-client-secret',
  scopes: [...SANDBOX_SCOPES],
  storeIds: ['store_sandbox_001', 'store_sandbox_002'],
  webhook: null,
};

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  webhooksEnabled: true,
  duplicateSends: false,
  outOfOrder: false,
  outOfOrderBatchSize: 3,
  badSignatures: false,
  stepIntervalMs: 0,
  deliveryIdMode: 'distinct',
  acceptedStep: true,
  defaultOutcome: 'delivered',
  latencyMs: 0,
  eventExtras: false,
  webhookRetryDelaysMs: [1_000, 5_000, 30_000, 120_000, 600_000],
  webhookTimeoutMs: 5_000,
  tokenTtlSec: 3_600,
  createHoldMs: 0,
  dedupeInFlight: true,
  markTestEvents: true,
};

export interface SandboxOptions extends Partial<SandboxSettings> {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: one app, DEFAULT_SANDBOX_APP. */
  apps?: SandboxAppConfig[];
  /** Clock for token expiry, timestamps and webhook signatures (plus the control API's offset). */
  now?: () => number;
  log?: Logger;
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

interface Order {
  id: string;
  clientId: string;
  reference: string;
  status: string;
  priceCents: number;
  currency: string;
  dispatchId: string;
  deliveryId: string;
  deliveryStatus: string;
  outcome: Outcome;
  idempotencyKey: string;
  createdAtMs: number;
  updatedAtMs: number;
  history: { status: string; at: string; eventId: string }[];
}

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

type ApiRoute = Exclude<FaultRoute, 'any'>;

const ROUTE_SCOPES: Record<Exclude<ApiRoute, 'token'>, string> = {
  create: 'orders:create',
  get: 'orders:read',
  list: 'orders:read',
  quote: 'quotes:create',
  'webhook-test': 'webhooks:manage',
};

const MAX_BODY = 1024 * 1024;
const MAX_REQUEST_LOG = 5000;
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export async function startSandboxCourier(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const { port = 0, host = '127.0.0.1', apps: initialApps, now: baseNow = Date.now, log, ...settingOverrides } = opts;
  const initialSettings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, ...stripUndefined(settingOverrides) };
  const initialAppList = (initialApps ?? [DEFAULT_SANDBOX_APP]).map(cloneApp);

  // ---- state
  let settings = { ...initialSettings };
  let clockOffsetMs = 0;
  const now = () => baseNow() + clockOffsetMs;
  const apps = new Map<string, SandboxAppConfig>();
  const tokens = new Map<string, { clientId: string; expiresAtMs: number }>();
  const orders = new Map<string, Order>();
  const idempotency = new Map<string, { fingerprint: string; reply: Reply }>();
  let faults: (FaultSpec & { remaining: number })[] = [];
  let requestLog: RequestLogEntry[] = [];
  let requestSeq = 0;
  let stats: SandboxStats = emptyStats();
  const sender = new WebhookSender(() => settings, now, log);

  const resetApps = () => {
    apps.clear();
    for (const a of initialAppList) apps.set(a.clientId, cloneApp(a));
  };
  resetApps();

  // ---- scheduled status progression
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (settings.stepIntervalMs > 0) {
      timer = setInterval(() => {
        for (const o of orders.values()) {
          const next = nextStatus(o.deliveryStatus, o.outcome, settings);
          if (next) applyStatus(o, next);
        }
      }, settings.stepIntervalMs);
      timer.unref();
    }
  };
  schedule();

  function applyStatus(o: Order, status: string): void {
    const at = now();
    const eventId = newId('evt_');
    o.deliveryStatus = status;
    o.updatedAtMs = at;
    o.history.push({ status, at: new Date(at).toISOString(), eventId });
    const data: Record<string, unknown> = { delivery_id: o.deliveryId, status };
    if (settings.eventExtras) Object.assign(data, { order_id: o.id, reference: o.reference });
    const event = { id: eventId, type: 'delivery.status.updated', created_at: new Date(at).toISOString(), data };
    const target = apps.get(o.clientId)?.webhook ?? { url: '', secret: '' };
    sender.emit({ eventId, type: event.type, deliveryId: o.deliveryId, status, orderId: o.id, body: JSON.stringify(event), target, test: false });
  }

  // ---- helpers
  const errorReply = (status: number, requestId: string, code: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): Reply => {
    const r: Reply = { status, body: JSON.stringify({ error: { code, message, ...extra }, request_id: requestId }) };
    if (headers) r.headers = headers;
    return r;
  };

  function takeFault(route: ApiRoute, types: FaultSpec['type'][]): FaultSpec | undefined {
    const f = faults.find((x) => (x.route === route || x.route === 'any') && types.includes(x.type) && x.remaining > 0);
    if (!f) return undefined;
    f.remaining -= 1;
    if (f.remaining <= 0) faults = faults.filter((x) => x !== f);
    return f;
  }

  function orderEnvelope(o: Order) {
    return {
      order: { id: o.id, reference: o.reference, status: o.status, deliveryPrice: rawJSON(formatCents(o.priceCents)), currency: o.currency, createdAt: new Date(o.createdAtMs).toISOString() },
      dispatch: { id: o.dispatchId },
      delivery: { id: o.deliveryId, status: o.deliveryStatus, updatedAt: new Date(o.updatedAtMs).toISOString() },
    };
  }

  function snapshot(o: Order): SandboxOrderSnapshot {
    return {
      id: o.id, clientId: o.clientId, reference: o.reference, status: o.status, deliveryPrice: formatCents(o.priceCents), currency: o.currency,
      dispatchId: o.dispatchId, deliveryId: o.deliveryId, deliveryStatus: o.deliveryStatus, outcome: o.outcome, idempotencyKey: o.idempotencyKey,
      createdAt: new Date(o.createdAtMs).toISOString(), history: o.history.map((h) => ({ ...h })),
    };
  }

  // ---- API routes
  function authenticate(req: http.IncomingMessage, route: Exclude<ApiRoute, 'token'>, requestId: string): { app: SandboxAppConfig } | { reply: Reply } {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const challenge = { 'www-authenticate': 'Bearer error="invalid_token"' };
    if (!m) return { reply: errorReply(401, requestId, 'unauthorized', 'A bearer token is required', {}, { 'www-authenticate': 'Bearer' }) };
    const t = tokens.get(m[1]!);
    if (!t) return { reply: errorReply(401, requestId, 'invalid_token', 'The access token is not valid', {}, challenge) };
    if (t.expiresAtMs <= now()) return { reply: errorReply(401, requestId, 'token_expired', 'The access token has expired', {}, challenge) };
    const app = apps.get(t.clientId);
    if (!app) return { reply: errorReply(401, requestId, 'invalid_token', 'The app for this token no longer exists', {}, challenge) };
    const scope = ROUTE_SCOPES[route];
    if (!app.scopes.includes(scope)) return { reply: errorReply(403, requestId, 'insufficient_scope', `The app lacks the ${scope} scope`, { scope }) };
    return { app };
  }

  function tokenRoute(req: http.IncomingMessage, raw: string, requestId: string): Reply {
    let p: Record<string, unknown> = {};
    const type = req.headers['content-type'] ?? '';
    try {
      p = type.includes('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw)) : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      return oauthError(400, 'invalid_request', 'The body must be JSON');
    }
    if (!p || typeof p !== 'object') return oauthError(400, 'invalid_request', 'The body must be a JSON object');
    if (p.grant_type !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    if (typeof p.client_id !== 'string' || typeof p.client_secret !== 'string') return oauthError(400, 'invalid_request', 'client_id and client_secret are required');
    const app = apps.get(p.client_id);
    // Never echo what was sent: the secret must not come back in an error.
    if (!app || app.clientSecret !== p.client_secret) return oauthError(401, 'invalid_client', 'Client authentication failed');
    const ttl = app.tokenTtlSec ?? settings.tokenTtlSec;
    const accessToken = `sbx_at_${randomBytes(24).toString('hex')}`;
    tokens.set(accessToken, { clientId: app.clientId, expiresAtMs: now() + ttl * 1000 });
    stats.tokensIssued++;
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer' };
    if (!app.omitExpiresIn) body.expires_in = ttl;
    body.scope = app.scopes.join(' ');
    void requestId;
    return { status: 200, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
  }

  function oauthError(status: number, error: string, description: string): Reply {
    return { status, body: JSON.stringify({ error, error_description: description }), headers: { 'cache-control': 'no-store' } };
  }

  function parseOrderBody(raw: string, requestId: string): { tree: unknown } | { reply: Reply } {
    try {
      return { tree: parseWithNumberText(raw) };
    } catch {
      return { reply: errorReply(400, requestId, 'invalid_json', 'The request body is not valid JSON') };
    }
  }

  function validateOrderFor(app: SandboxAppConfig, tree: unknown, requestId: string): { order: ValidOrder } | { reply: Reply } {
    const v = validateCreateOrder(tree);
    if (!v.ok) {
      const first = v.problems[0]!;
      return { reply: errorReply(400, requestId, 'validation_error', first.message, { field: first.field, details: v.problems }) };
    }
    if (!app.storeIds.includes(v.order.storeId)) {
      return { reply: errorReply(422, requestId, 'unknown_pickup_store', `pickup.storeId ${v.order.storeId} is not a pickup store of this merchant account`, { field: 'pickup.storeId' }) };
    }
    return { order: v.order };
  }

  function createRoute(req: http.IncomingMessage, app: SandboxAppConfig, raw: string, requestId: string): Reply {
    const keyHeader = req.headers['idempotency-key'];
    const key = Array.isArray(keyHeader) ? keyHeader[0] : keyHeader;
    if (!key || key.trim() === '') return errorReply(400, requestId, 'missing_idempotency_key', 'The Idempotency-Key header is required', { header: 'Idempotency-Key' });
    if (key.length > 255) return errorReply(400, requestId, 'invalid_idempotency_key', 'The Idempotency-Key header must be at most 255 characters', { header: 'Idempotency-Key' });
    const parsed = parseOrderBody(raw, requestId);
    if ('reply' in parsed) return parsed.reply;
    // Same payload = same JSON value (key order and whitespace ignored, number text kept).
    const fingerprint = createHash('sha256').update(canonicalJson(parsed.tree)).digest('hex');
    const idemKey = `${app.clientId}\0${key}`;
    const prior = idempotency.get(idemKey);
    if (prior) {
      if (prior.fingerprint === fingerprint) {
        stats.idempotentReplays++;
        return { ...prior.reply, headers: { ...prior.reply.headers, 'idempotent-replayed': 'true' } };
      }
      stats.idempotencyConflicts++;
      return errorReply(409, requestId, 'idempotency_conflict', 'This Idempotency-Key was already used with a different payload', { header: 'Idempotency-Key' });
    }
    const checked = validateOrderFor(app, parsed.tree, requestId);
    if ('reply' in checked) return checked.reply; // failures are not remembered under the key
    const v = checked.order;
    const at = now();
    const id = newId('ord_');
    const dispatchId = newId('job_');
    const deliveryId = settings.deliveryIdMode === 'order' ? id : settings.deliveryIdMode === 'dispatch' ? dispatchId : newId('delivery_');
    const order: Order = {
      id, clientId: app.clientId, reference: v.reference, status: 'VALIDATED', priceCents: priceCents(v), currency: v.currency,
      dispatchId, deliveryId, deliveryStatus: 'pending', outcome: settings.defaultOutcome, idempotencyKey: key,
      createdAtMs: at, updatedAtMs: at, history: [],
    };
    orders.set(id, order);
    stats.ordersCreated++;
    stats.ordersByReference[v.reference] = (stats.ordersByReference[v.reference] ?? 0) + 1;
    const body = JSON.stringify({
      request_id: requestId,
      order: { id, reference: v.reference, status: 'VALIDATED', deliveryPrice: rawJSON(formatCents(order.priceCents)), currency: v.currency },
      dispatch: { id: dispatchId },
    });
    const reply: Reply = { status: 201, body };
    const remember = () => idempotency.set(idemKey, { fingerprint, reply });
    if (settings.dedupeInFlight || settings.createHoldMs === 0) remember();
    else heldKeys.set(reply, remember);
    log?.info({ orderId: id, reference: v.reference }, 'sandbox order created');
    return reply;
  }

  // A slow courier: the order exists from arrival (a reference search finds it); the answer comes
  // createHoldMs later, and without in-flight dedupe the key is only remembered then.
  const heldKeys = new WeakMap<Reply, () => void>();
  async function holdCreate(reply: Reply): Promise<void> {
    if (settings.createHoldMs > 0 && reply.status === 201) await new Promise((done) => setTimeout(done, settings.createHoldMs));
    heldKeys.get(reply)?.();
  }

  function quoteRoute(app: SandboxAppConfig, raw: string, requestId: string): Reply {
    const parsed = parseOrderBody(raw, requestId);
    if ('reply' in parsed) return parsed.reply;
    const checked = validateOrderFor(app, parsed.tree, requestId);
    if ('reply' in checked) return checked.reply;
    const v = checked.order;
    const body = JSON.stringify({
      request_id: requestId,
      quote: { price: rawJSON(formatCents(priceCents(v))), currency: v.currency, serviceType: v.serviceType, expiresAt: new Date(now() + 15 * 60_000).toISOString() },
    });
    return { status: 200, body };
  }

  function getRoute(app: SandboxAppConfig, id: string, requestId: string): Reply {
    const o = orders.get(id);
    if (!o || o.clientId !== app.clientId) return errorReply(404, requestId, 'not_found', `No order ${id}`);
    return { status: 200, body: JSON.stringify({ request_id: requestId, ...orderEnvelope(o) }) };
  }

  function listRoute(app: SandboxAppConfig, url: URL, requestId: string): Reply {
    const reference = url.searchParams.get('reference');
    if (!reference) return errorReply(400, requestId, 'validation_error', 'The reference query parameter is required', { field: 'reference' });
    const found = [...orders.values()].filter((o) => o.clientId === app.clientId && o.reference === reference);
    return { status: 200, body: JSON.stringify({ request_id: requestId, orders: found.map(orderEnvelope) }) };
  }

  async function webhookTestRoute(app: SandboxAppConfig, requestId: string): Promise<Reply> {
    if (!app.webhook) return errorReply(422, requestId, 'webhook_not_configured', 'No webhook endpoint is configured for this app');
    const at = now();
    const eventId = newId('evt_');
    const deliveryId = newId('delivery_test_');
    const event = { id: eventId, type: 'delivery.status.updated', created_at: new Date(at).toISOString(), data: { delivery_id: deliveryId, status: 'driver_assigned', ...(settings.markTestEvents ? { test: true } : {}) } };
    const ev: OutgoingEvent = { eventId, type: event.type, deliveryId, status: 'driver_assigned', orderId: null, body: JSON.stringify(event), target: app.webhook, test: true };
    const r = await sender.sendOnce(ev);
    return {
      status: 200,
      body: JSON.stringify({ request_id: requestId, delivered: r.result === 'delivered', event_id: eventId, delivery_id: deliveryId, event_type: event.type, url: app.webhook.url, response_status: r.httpStatus, error: r.error }),
    };
  }

  function routeOf(method: string, path: string): { route: ApiRoute; id?: string } | 'method' | undefined {
    if (path === '/oauth/token') return method === 'POST' ? { route: 'token' } : 'method';
    if (path === '/v1/orders') return method === 'POST' ? { route: 'create' } : method === 'GET' ? { route: 'list' } : 'method';
    const m = /^\/v1\/orders\/([^/]+)$/.exec(path);
    if (m) return method === 'GET' ? { route: 'get', id: decodeURIComponent(m[1]!) } : 'method';
    if (path === '/v1/pricing/quote') return method === 'POST' ? { route: 'quote' } : 'method';
    if (path === '/v1/webhooks/test') return method === 'POST' ? { route: 'webhook-test' } : 'method';
    return undefined;
  }

  async function handleApi(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const requestId = newId('req_');
    const method = req.method ?? 'GET';
    const r = routeOf(method, url.pathname);
    const entry: RequestLogEntry = {
      seq: ++requestSeq, at: new Date(now()).toISOString(), method, path: url.pathname + url.search,
      route: typeof r === 'object' ? r.route : 'unknown', status: 0,
    };
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string') entry.idempotencyKey = key;
    requestLog.push(entry);
    if (requestLog.length > MAX_REQUEST_LOG) requestLog = requestLog.slice(-MAX_REQUEST_LOG);
    const arrived = performance.now();
    res.on('finish', () => {
      entry.status = res.statusCode;
      entry.ms = Math.round((performance.now() - arrived) * 10) / 10;
    });

    const bytes = await readBody(req);
    if (bytes !== null && method === 'POST') entry.bodySha256 = createHash('sha256').update(bytes).digest('hex');
    if (bytes === null) return send(res, errorReply(413, requestId, 'payload_too_large', 'The request body is too large'), requestId);
    const raw = bytes.toString('utf8');
    if (r === undefined) return send(res, errorReply(404, requestId, 'not_found', `No route ${method} ${url.pathname}`), requestId);
    if (r === 'method') return send(res, errorReply(405, requestId, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`), requestId);

    // Counted on arrival, whatever happens next (faults, auth, validation).
    if (r.route === 'token') stats.tokenRequests++;
    if (r.route === 'create') stats.createRequests++;
    const latency = settings.latencyMs + (takeFault(r.route, ['latency'])?.latencyMs ?? 0);
    if (latency > 0) await new Promise((done) => setTimeout(done, latency));
    const fault = takeFault(r.route, ['status', 'drop', 'drop_after_commit', 'delay_after_commit']);
    if (fault?.type === 'drop') return drop(req, res);
    if (fault?.type === 'status') {
      const status = fault.status ?? 503;
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {};
      const reply: Reply = fault.body !== undefined ? { status, body: fault.body, headers } : errorReply(status, requestId, status === 429 ? 'rate_limited' : 'service_unavailable', status === 429 ? 'Too many requests' : 'The service is temporarily unavailable', {}, headers);
      return send(res, reply, requestId);
    }

    let reply: Reply;
    if (r.route === 'token') reply = tokenRoute(req, raw, requestId);
    else {
      const auth = authenticate(req, r.route, requestId);
      if ('reply' in auth) reply = auth.reply;
      else {
        entry.clientId = auth.app.clientId;
        if (r.route === 'create') {
          reply = createRoute(req, auth.app, raw, requestId);
          await holdCreate(reply);
        }
        else if (r.route === 'quote') reply = quoteRoute(auth.app, raw, requestId);
        else if (r.route === 'get') reply = getRoute(auth.app, r.id!, requestId);
        else if (r.route === 'list') reply = listRoute(auth.app, url, requestId);
        else reply = await webhookTestRoute(auth.app, requestId);
      }
    }
    // The work is done (an order may exist); the caller never hears about it.
    if (fault?.type === 'drop_after_commit') return drop(req, res);
    // The work is done; the answer is late (a window to kill the caller in).
    if (fault?.type === 'delay_after_commit') await new Promise((done) => setTimeout(done, fault.latencyMs ?? 5_000));
    send(res, reply, requestId);
  }

  // ---- control API
  const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });
  const maskApp = (a: SandboxAppConfig) => ({
    ...a,
    clientSecret: mask(a.clientSecret),
    webhook: a.webhook ? { url: a.webhook.url, secret: mask(a.webhook.secret) } : null,
  });
  const findOrder = (id: string) => orders.get(id) ?? [...orders.values()].find((o) => o.deliveryId === id || o.dispatchId === id);

  async function handleControl(req: http.IncomingMessage, url: URL): Promise<Reply> {
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/\/+$/, '');
    const raw = (await readBody(req))?.toString('utf8') ?? '';
    let body: unknown = {};
    if (raw.trim()) {
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, { error: { code: 'invalid_json', message: 'body is not JSON' } });
      }
    }
    const bad = (e: z.ZodError) => json(400, { error: { code: 'invalid_request', message: e.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') } });
    const seg = path.split('/').slice(2).map(decodeURIComponent); // after /_sandbox
    const [a, b, c] = seg;

    if (method === 'GET' && (a === undefined || a === 'health')) return json(200, { ok: true, url: `http://${host}:${actualPort}` });
    if (a === 'state' && method === 'GET') {
      return json(200, { settings, apps: [...apps.values()].map(maskApp), stats, faults, heldWebhooks: sender.heldCount, clockOffsetMs, orders: orders.size });
    }
    if (a === 'reset' && method === 'POST') {
      settings = { ...initialSettings };
      resetApps();
      tokens.clear();
      orders.clear();
      idempotency.clear();
      faults = [];
      requestLog = [];
      stats = emptyStats();
      clockOffsetMs = 0;
      sender.reset();
      schedule();
      return json(200, { ok: true });
    }
    if (a === 'settings' && b === undefined) {
      if (method === 'GET') return json(200, settings);
      if (method === 'PATCH' || method === 'PUT' || method === 'POST') {
        const p = SettingsPatch.safeParse(body);
        if (!p.success) return bad(p.error);
        settings = { ...settings, ...stripUndefined(p.data) };
        if (p.data.stepIntervalMs !== undefined) schedule();
        if (p.data.outOfOrder === false) sender.flush();
        return json(200, settings);
      }
    }
    if (a === 'apps') {
      if (b === undefined && method === 'GET') return json(200, [...apps.values()].map(maskApp));
      if (b !== undefined && c === undefined && (method === 'PUT' || method === 'PATCH' || method === 'POST')) {
        const p = AppPatch.safeParse(body);
        if (!p.success) return bad(p.error);
        const existing = apps.get(b);
        const merged = { ...(existing ?? { ...DEFAULT_SANDBOX_APP, clientId: b }), ...stripUndefined(p.data), clientId: b } as SandboxAppConfig;
        apps.set(b, cloneApp(merged));
        return json(existing ? 200 : 201, maskApp(merged));
      }
      if (b !== undefined && c === undefined && method === 'DELETE') return json(apps.delete(b) ? 200 : 404, { ok: true });
    }
    if (a === 'tokens' && b === 'revoke' && method === 'POST') {
      const clientId = (body as { clientId?: unknown }).clientId;
      let revoked = 0;
      for (const [t, v] of tokens) {
        if (typeof clientId === 'string' && v.clientId !== clientId) continue;
        tokens.delete(t);
        revoked++;
      }
      return json(200, { revoked });
    }
    if (a === 'faults' && b === undefined) {
      if (method === 'GET') return json(200, faults);
      if (method === 'DELETE') {
        faults = [];
        return json(200, { ok: true });
      }
      if (method === 'POST') {
        const list = Array.isArray(body) ? body : [body];
        const added: FaultSpec[] = [];
        for (const item of list) {
          const p = FaultInput.safeParse(item);
          if (!p.success) return bad(p.error);
          const f = stripUndefined(p.data) as FaultSpec;
          faults.push({ ...f, remaining: f.count ?? 1 });
          added.push(f);
        }
        return json(201, { added: added.length, faults });
      }
    }
    if (a === 'orders') {
      if (b === undefined && method === 'GET') {
        const ref = url.searchParams.get('reference');
        return json(200, [...orders.values()].filter((o) => ref === null || o.reference === ref).map(snapshot));
      }
      const o = b === undefined ? undefined : findOrder(b);
      if (b !== undefined && !o) return json(404, { error: { code: 'not_found', message: `No order ${b}` } });
      if (o && c === undefined && method === 'GET') return json(200, snapshot(o));
      if (o && c === 'advance' && method === 'POST') {
        const p = AdvanceInput.safeParse(body);
        if (!p.success) return bad(p.error);
        const req2: AdvanceRequest = stripUndefined(p.data);
        if (req2.outcome) o.outcome = req2.outcome;
        let steps: string[] = [];
        if (req2.to !== undefined) {
          if (!isKnownStatus(req2.to)) return json(400, { error: { code: 'unknown_status', message: `Unknown status ${req2.to}` } });
          steps = stepsTo(o.deliveryStatus, req2.to, settings) ?? [];
          if (steps.length === 0) return json(409, { error: { code: 'unreachable_status', message: `Cannot go from ${o.deliveryStatus} to ${req2.to}` } });
        } else {
          let cur = o.deliveryStatus;
          for (let i = 0; i < (req2.steps ?? 1); i++) {
            const n = nextStatus(cur, o.outcome, settings);
            if (!n) break;
            steps.push(n);
            cur = n;
          }
        }
        for (const s of steps) applyStatus(o, s);
        return json(200, { emitted: steps, order: snapshot(o) });
      }
    }
    if (a === 'stats' && method === 'GET') return json(200, stats);
    if (a === 'references' && b !== undefined && method === 'GET') {
      const list = [...orders.values()].filter((o) => o.reference === b);
      return json(200, { reference: b, ordersCreated: stats.ordersByReference[b] ?? 0, orderIds: list.map((o) => o.id) });
    }
    if (a === 'requests' && method === 'GET') {
      const route = url.searchParams.get('route');
      return json(200, requestLog.filter((r) => route === null || r.route === route));
    }
    if (a === 'webhooks' && b === undefined && method === 'GET') return json(200, sender.log);
    if (a === 'webhooks' && b === 'flush' && method === 'POST') return json(200, { sent: sender.flush() });
    if (a === 'clock' && method === 'POST') {
      const ms = (body as { advanceMs?: unknown }).advanceMs;
      if (typeof ms !== 'number' || !Number.isFinite(ms)) return json(400, { error: { code: 'invalid_request', message: 'advanceMs must be a number' } });
      clockOffsetMs += ms;
      return json(200, { offsetMs: clockOffsetMs, now: new Date(now()).toISOString() });
    }
    return json(404, { error: { code: 'not_found', message: `No control route ${method} ${url.pathname}` } });
  }

  // ---- server
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const isControl = url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/');
    const work = isControl ? handleControl(req, url).then((reply) => send(res, reply)) : handleApi(req, res, url);
    work.catch((err: unknown) => {
      log?.error({ err }, 'sandbox handler failed');
      if (!res.headersSent) send(res, { status: 500, body: JSON.stringify({ error: { code: 'internal_error', message: 'sandbox internal error' } }) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostForUrl}:${actualPort}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    port: actualPort,
    close() {
      closed ??= (async () => {
        if (timer) clearInterval(timer);
        await sender.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}

// ---- control API input schemas
const Outcomes = z.enum(['delivered', 'failed', 'returned', 'cancelled']);
const SettingsPatch = z.strictObject({
  webhooksEnabled: z.boolean().optional(),
  duplicateSends: z.boolean().optional(),
  outOfOrder: z.boolean().optional(),
  outOfOrderBatchSize: z.number().int().min(1).optional(),
  badSignatures: z.boolean().optional(),
  stepIntervalMs: z.number().int().min(0).optional(),
  deliveryIdMode: z.enum(['distinct', 'order', 'dispatch']).optional(),
  acceptedStep: z.boolean().optional(),
  defaultOutcome: Outcomes.optional(),
  latencyMs: z.number().int().min(0).optional(),
  eventExtras: z.boolean().optional(),
  webhookRetryDelaysMs: z.array(z.number().int().min(0)).optional(),
  webhookTimeoutMs: z.number().int().min(1).optional(),
  tokenTtlSec: z.number().int().min(1).optional(),
  createHoldMs: z.number().int().min(0).optional(),
  dedupeInFlight: z.boolean().optional(),
  markTestEvents: z.boolean().optional(),
});
const AppPatch = z.strictObject({
  clientSecret: z.string().min(1).optional(),
  scopes: z.array(z.string()).optional(),
  storeIds: z.array(z.string()).optional(),
  webhook: z.object({ url: z.url(), secret: z.string().min(1) }).nullable().optional(),
  tokenTtlSec: z.number().int().min(1).optional(),
  omitExpiresIn: z.boolean().optional(),
});
const FaultInput = z.strictObject({
  route: z.enum(['token', 'create', 'get', 'list', 'quote', 'webhook-test', 'any']),
  type: z.enum(['status', 'drop', 'drop_after_commit', 'delay_after_commit', 'latency']),
  count: z.number().int().min(1).optional(),
  status: z.number().int().min(100).max(599).optional(),
  retryAfter: z.string().optional(),
  body: z.string().optional(),
  latencyMs: z.number().int().min(0).optional(),
});
const AdvanceInput = z.strictObject({ to: z.string().optional(), steps: z.number().int().min(1).max(20).optional(), outcome: Outcomes.optional() });

// ---- small helpers
function send(res: http.ServerResponse, reply: Reply, requestId?: string): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
  if (requestId) headers['x-request-id'] = requestId;
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

function drop(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.destroy();
  req.socket.destroy();
}

function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooBig ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function emptyStats(): SandboxStats {
  return { tokenRequests: 0, tokensIssued: 0, createRequests: 0, ordersCreated: 0, idempotentReplays: 0, idempotencyConflicts: 0, ordersByReference: {} };
}

function cloneApp(a: SandboxAppConfig): SandboxAppConfig {
  return { ...a, scopes: [...a.scopes], storeIds: [...a.storeIds], webhook: a.webhook ? { ...a.webhook } : null };
}

function mask(s: string): string {
  return s.length > 8 ? `••••${s.slice(-4)}` : '••••';
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
