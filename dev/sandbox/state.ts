// The sandbox courier's state and what its routes do to it: data in, a reply (status and JSON
// text) out, no I/O. The router (router.ts) turns HTTP into these calls; status events go to
// the sender (webhooks.ts) through `emit`.
import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson, formatCents, parseWithNumberText, priceCents, validateCreateOrder, type ValidOrder } from './validate.ts';
import { cloneApp, DEFAULT_SANDBOX_APP, emptyStats, maskApp, orderEnvelope, rawJSON, snapshot, stripUndefined, type Order } from './model.ts';
import { isKnownStatus, nextStatus, stepsTo } from './statuses.ts';
import type { OutgoingEvent } from './webhooks.ts';
import type {
  AdvanceRequest, FaultRoute, FaultSpec, RequestLogEntry, SandboxAppConfig, SandboxOrderSnapshot, SandboxSettings, SandboxStats, WebhookLogEntry,
} from './types.ts';

export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export type ApiRoute = Exclude<FaultRoute, 'any'>;

const ROUTE_SCOPES: Record<Exclude<ApiRoute, 'token'>, string> = {
  create: 'orders:create',
  get: 'orders:read',
  list: 'orders:read',
  quote: 'quotes:create',
  'webhook-test': 'webhooks:manage',
};

const MAX_REQUEST_LOG = 5000;
export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export const errorReply = (status: number, requestId: string, code: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): Reply => {
  const r: Reply = { status, body: JSON.stringify({ error: { code, message, ...extra }, request_id: requestId }) };
  if (headers) r.headers = headers;
  return r;
};

const oauthError = (status: number, error: string, description: string): Reply =>
  ({ status, body: JSON.stringify({ error, error_description: description }), headers: { 'cache-control': 'no-store' } });

/** A control-API answer: status and JSON value. */
export interface ControlReply {
  status: number;
  value: unknown;
}
const ok = (value: unknown, status = 200): ControlReply => ({ status, value });
const controlError = (status: number, code: string, message: string): ControlReply => ({ status, value: { error: { code, message } } });

export interface SandboxStateOptions {
  settings: SandboxSettings;
  apps: SandboxAppConfig[];
  /** The real clock; the control API's offset is added to it. */
  now: () => number;
  /** Where status events go (the webhook sender). */
  emit: (event: OutgoingEvent) => void;
}

export class SandboxState {
  settings: SandboxSettings;
  clockOffsetMs = 0;
  readonly apps = new Map<string, SandboxAppConfig>();
  readonly tokens = new Map<string, { clientId: string; expiresAtMs: number }>();
  readonly orders = new Map<string, Order>();
  readonly idempotency = new Map<string, { fingerprint: string; reply: Reply }>();
  faults: (FaultSpec & { remaining: number })[] = [];
  requestLog: RequestLogEntry[] = [];
  stats: SandboxStats = emptyStats();
  #requestSeq = 0;
  /** A held create's key is remembered only when its answer goes out (see holdKey). */
  readonly #heldKeys = new WeakMap<Reply, () => void>();
  readonly #initialSettings: SandboxSettings;
  readonly #initialApps: SandboxAppConfig[];
  readonly #baseNow: () => number;
  readonly #emit: (event: OutgoingEvent) => void;

  constructor(o: SandboxStateOptions) {
    this.#initialSettings = { ...o.settings };
    this.#initialApps = o.apps.map(cloneApp);
    this.#baseNow = o.now;
    this.#emit = o.emit;
    this.settings = { ...o.settings };
    this.#resetApps();
  }

  now(): number {
    return this.#baseNow() + this.clockOffsetMs;
  }

  #resetApps(): void {
    this.apps.clear();
    for (const a of this.#initialApps) this.apps.set(a.clientId, cloneApp(a));
  }

  reset(): void {
    this.settings = { ...this.#initialSettings };
    this.#resetApps();
    this.tokens.clear();
    this.orders.clear();
    this.idempotency.clear();
    this.faults = [];
    this.requestLog = [];
    this.stats = emptyStats();
    this.clockOffsetMs = 0;
  }

  // ---- status progression
  applyStatus(o: Order, status: string): void {
    const at = this.now();
    const eventId = newId('evt_');
    o.deliveryStatus = status;
    o.updatedAtMs = at;
    o.history.push({ status, at: new Date(at).toISOString(), eventId });
    const data: Record<string, unknown> = { delivery_id: o.deliveryId, status };
    if (this.settings.eventExtras) Object.assign(data, { order_id: o.id, reference: o.reference });
    const event = { id: eventId, type: 'delivery.status.updated', created_at: new Date(at).toISOString(), data };
    const target = this.apps.get(o.clientId)?.webhook ?? { url: '', secret: '' };
    this.#emit({ eventId, type: event.type, deliveryId: o.deliveryId, status, orderId: o.id, body: JSON.stringify(event), target, test: false });
  }

  /** One scheduled step for every order that has one left. */
  tick(): void {
    for (const o of this.orders.values()) {
      const next = nextStatus(o.deliveryStatus, o.outcome, this.settings);
      if (next) this.applyStatus(o, next);
    }
  }

  // ---- API
  logRequest(entry: Omit<RequestLogEntry, 'seq' | 'at'>): RequestLogEntry {
    const e: RequestLogEntry = { seq: ++this.#requestSeq, at: new Date(this.now()).toISOString(), ...entry };
    this.requestLog.push(e);
    if (this.requestLog.length > MAX_REQUEST_LOG) this.requestLog = this.requestLog.slice(-MAX_REQUEST_LOG);
    return e;
  }

  takeFault(route: ApiRoute, types: FaultSpec['type'][]): FaultSpec | undefined {
    const f = this.faults.find((x) => (x.route === route || x.route === 'any') && types.includes(x.type) && x.remaining > 0);
    if (!f) return undefined;
    f.remaining -= 1;
    if (f.remaining <= 0) this.faults = this.faults.filter((x) => x !== f);
    return f;
  }

  authenticate(authorization: string | undefined, route: Exclude<ApiRoute, 'token'>, requestId: string): { app: SandboxAppConfig } | { reply: Reply } {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const challenge = { 'www-authenticate': 'Bearer error="invalid_token"' };
    if (!m) return { reply: errorReply(401, requestId, 'unauthorized', 'A bearer token is required', {}, { 'www-authenticate': 'Bearer' }) };
    const t = this.tokens.get(m[1]!);
    if (!t) return { reply: errorReply(401, requestId, 'invalid_token', 'The access token is not valid', {}, challenge) };
    if (t.expiresAtMs <= this.now()) return { reply: errorReply(401, requestId, 'token_expired', 'The access token has expired', {}, challenge) };
    const app = this.apps.get(t.clientId);
    if (!app) return { reply: errorReply(401, requestId, 'invalid_token', 'The app for this token no longer exists', {}, challenge) };
    const scope = ROUTE_SCOPES[route];
    if (!app.scopes.includes(scope)) return { reply: errorReply(403, requestId, 'insufficient_scope', `The app lacks the ${scope} scope`, { scope }) };
    return { app };
  }

  issueToken(contentType: string, raw: string): Reply {
    let p: Record<string, unknown> = {};
    try {
      p = contentType.includes('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw)) : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      return oauthError(400, 'invalid_request', 'The body must be JSON');
    }
    if (!p || typeof p !== 'object') return oauthError(400, 'invalid_request', 'The body must be a JSON object');
    if (p.grant_type !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    if (typeof p.client_id !== 'string' || typeof p.client_secret !== 'string') return oauthError(400, 'invalid_request', 'client_id and client_secret are required');
    const app = this.apps.get(p.client_id);
    // Never echo what was sent: the secret must not come back in an error.
    if (!app || app.clientSecret !== p.client_secret) return oauthError(401, 'invalid_client', 'Client authentication failed');
    const ttl = app.tokenTtlSec ?? this.settings.tokenTtlSec;
    const accessToken = `sbx_at_${randomBytes(24).toString('hex')}`;
    this.tokens.set(accessToken, { clientId: app.clientId, expiresAtMs: this.now() + ttl * 1000 });
    this.stats.tokensIssued++;
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer' };
    if (!app.omitExpiresIn) body.expires_in = ttl;
    body.scope = app.scopes.join(' ');
    return { status: 200, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
  }

  #parseOrderBody(raw: string, requestId: string): { tree: unknown } | { reply: Reply } {
    try {
      return { tree: parseWithNumberText(raw) };
    } catch {
      return { reply: errorReply(400, requestId, 'invalid_json', 'The request body is not valid JSON') };
    }
  }

  #validateOrderFor(app: SandboxAppConfig, tree: unknown, requestId: string): { order: ValidOrder } | { reply: Reply } {
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

  createOrder(app: SandboxAppConfig, key: string | undefined, raw: string, requestId: string): Reply {
    if (!key || key.trim() === '') return errorReply(400, requestId, 'missing_idempotency_key', 'The Idempotency-Key header is required', { header: 'Idempotency-Key' });
    if (key.length > 255) return errorReply(400, requestId, 'invalid_idempotency_key', 'The Idempotency-Key header must be at most 255 characters', { header: 'Idempotency-Key' });
    const parsed = this.#parseOrderBody(raw, requestId);
    if ('reply' in parsed) return parsed.reply;
    // Same payload = same JSON value (key order and whitespace ignored, number text kept).
    const fingerprint = createHash('sha256').update(canonicalJson(parsed.tree)).digest('hex');
    const idemKey = `${app.clientId}\0${key}`;
    const prior = this.idempotency.get(idemKey);
    if (prior) {
      if (prior.fingerprint === fingerprint) {
        this.stats.idempotentReplays++;
        return { ...prior.reply, headers: { ...prior.reply.headers, 'idempotent-replayed': 'true' } };
      }
      this.stats.idempotencyConflicts++;
      return errorReply(409, requestId, 'idempotency_conflict', 'This Idempotency-Key was already used with a different payload', { header: 'Idempotency-Key' });
    }
    const checked = this.#validateOrderFor(app, parsed.tree, requestId);
    if ('reply' in checked) return checked.reply; // failures are not remembered under the key
    const v = checked.order;
    const at = this.now();
    const id = newId('ord_');
    const dispatchId = newId('job_');
    const mode = this.settings.deliveryIdMode;
    const deliveryId = mode === 'order' ? id : mode === 'dispatch' ? dispatchId : newId('delivery_');
    const order: Order = {
      id, clientId: app.clientId, reference: v.reference, status: 'VALIDATED', priceCents: priceCents(v), currency: v.currency,
      dispatchId, deliveryId, deliveryStatus: 'pending', outcome: this.settings.defaultOutcome, idempotencyKey: key,
      createdAtMs: at, updatedAtMs: at, history: [],
    };
    this.orders.set(id, order);
    this.stats.ordersCreated++;
    this.stats.ordersByReference[v.reference] = (this.stats.ordersByReference[v.reference] ?? 0) + 1;
    const body = JSON.stringify({
      request_id: requestId,
      order: { id, reference: v.reference, status: 'VALIDATED', deliveryPrice: rawJSON(formatCents(order.priceCents)), currency: v.currency },
      dispatch: { id: dispatchId },
    });
    const reply: Reply = { status: 201, body };
    const remember = () => this.idempotency.set(idemKey, { fingerprint, reply });
    // A slow courier: the order exists from arrival (a reference search finds it); the answer comes
    // createHoldMs later, and without in-flight dedupe the key is only remembered then.
    if (this.settings.dedupeInFlight || this.settings.createHoldMs === 0) remember();
    else this.#heldKeys.set(reply, remember);
    return reply;
  }

  /** The held create's answer goes out now: remember its key (no-op for any other reply). */
  releaseHeld(reply: Reply): void {
    this.#heldKeys.get(reply)?.();
  }

  quote(app: SandboxAppConfig, raw: string, requestId: string): Reply {
    const parsed = this.#parseOrderBody(raw, requestId);
    if ('reply' in parsed) return parsed.reply;
    const checked = this.#validateOrderFor(app, parsed.tree, requestId);
    if ('reply' in checked) return checked.reply;
    const v = checked.order;
    const body = JSON.stringify({
      request_id: requestId,
      quote: { price: rawJSON(formatCents(priceCents(v))), currency: v.currency, serviceType: v.serviceType, expiresAt: new Date(this.now() + 15 * 60_000).toISOString() },
    });
    return { status: 200, body };
  }

  getOrder(app: SandboxAppConfig, id: string, requestId: string): Reply {
    const o = this.orders.get(id);
    if (!o || o.clientId !== app.clientId) return errorReply(404, requestId, 'not_found', `No order ${id}`);
    return { status: 200, body: JSON.stringify({ request_id: requestId, ...orderEnvelope(o) }) };
  }

  listOrders(app: SandboxAppConfig, reference: string | null, requestId: string): Reply {
    if (!reference) return errorReply(400, requestId, 'validation_error', 'The reference query parameter is required', { field: 'reference' });
    const found = [...this.orders.values()].filter((o) => o.clientId === app.clientId && o.reference === reference);
    return { status: 200, body: JSON.stringify({ request_id: requestId, orders: found.map(orderEnvelope) }) };
  }

  /** The test event to send, and how its result is answered; or the refusal. */
  webhookTest(app: SandboxAppConfig, requestId: string): { reply: Reply } | { event: OutgoingEvent; answer: (r: WebhookLogEntry) => Reply } {
    if (!app.webhook) return { reply: errorReply(422, requestId, 'webhook_not_configured', 'No webhook endpoint is configured for this app') };
    const at = this.now();
    const eventId = newId('evt_');
    const deliveryId = newId('delivery_test_');
    const event = { id: eventId, type: 'delivery.status.updated', created_at: new Date(at).toISOString(), data: { delivery_id: deliveryId, status: 'driver_assigned', ...(this.settings.markTestEvents ? { test: true } : {}) } };
    const url = app.webhook.url;
    return {
      event: { eventId, type: event.type, deliveryId, status: 'driver_assigned', orderId: null, body: JSON.stringify(event), target: app.webhook, test: true },
      answer: (r) => ({
        status: 200,
        body: JSON.stringify({ request_id: requestId, delivered: r.result === 'delivered', event_id: eventId, delivery_id: deliveryId, event_type: event.type, url, response_status: r.httpStatus, error: r.error }),
      }),
    };
  }

  // ---- control operations (input already checked by the router's schemas)
  view(heldWebhooks: number) {
    const { settings, stats, faults, clockOffsetMs } = this;
    return { settings, apps: [...this.apps.values()].map(maskApp), stats, faults, heldWebhooks, clockOffsetMs, orders: this.orders.size };
  }

  patchSettings(patch: Partial<SandboxSettings>): SandboxSettings {
    this.settings = { ...this.settings, ...stripUndefined(patch) };
    return this.settings;
  }

  maskedApps() {
    return [...this.apps.values()].map(maskApp);
  }

  putApp(clientId: string, patch: Partial<SandboxAppConfig>): ControlReply {
    const existing = this.apps.get(clientId);
    const merged = { ...(existing ?? { ...DEFAULT_SANDBOX_APP, clientId }), ...stripUndefined(patch), clientId } as SandboxAppConfig;
    this.apps.set(clientId, cloneApp(merged));
    return ok(maskApp(merged), existing ? 200 : 201);
  }

  revokeTokens(clientId: unknown): number {
    let revoked = 0;
    for (const [t, v] of this.tokens) {
      if (typeof clientId === 'string' && v.clientId !== clientId) continue;
      this.tokens.delete(t);
      revoked++;
    }
    return revoked;
  }

  addFaults(list: FaultSpec[]): ControlReply {
    for (const raw of list) {
      const f = stripUndefined(raw);
      this.faults.push({ ...f, remaining: f.count ?? 1 });
    }
    return ok({ added: list.length, faults: this.faults }, 201);
  }

  findOrder(id: string): Order | undefined {
    return this.orders.get(id) ?? [...this.orders.values()].find((o) => o.deliveryId === id || o.dispatchId === id);
  }

  snapshots(reference: string | null): SandboxOrderSnapshot[] {
    return [...this.orders.values()].filter((o) => reference === null || o.reference === reference).map(snapshot);
  }

  advance(o: Order, input: AdvanceRequest): ControlReply {
    const req = stripUndefined(input);
    if (req.outcome) o.outcome = req.outcome;
    let steps: string[] = [];
    if (req.to !== undefined) {
      if (!isKnownStatus(req.to)) return controlError(400, 'unknown_status', `Unknown status ${req.to}`);
      steps = stepsTo(o.deliveryStatus, req.to, this.settings) ?? [];
      if (steps.length === 0) return controlError(409, 'unreachable_status', `Cannot go from ${o.deliveryStatus} to ${req.to}`);
    } else {
      let cur = o.deliveryStatus;
      for (let i = 0; i < (req.steps ?? 1); i++) {
        const n = nextStatus(cur, o.outcome, this.settings);
        if (!n) break;
        steps.push(n);
        cur = n;
      }
    }
    for (const s of steps) this.applyStatus(o, s);
    return ok({ emitted: steps, order: snapshot(o) });
  }

  reference(ref: string) {
    const list = [...this.orders.values()].filter((o) => o.reference === ref);
    return { reference: ref, ordersCreated: this.stats.ordersByReference[ref] ?? 0, orderIds: list.map((o) => o.id) };
  }

  requests(route: string | null): RequestLogEntry[] {
    return this.requestLog.filter((r) => route === null || r.route === route);
  }

  advanceClock(ms: unknown): ControlReply {
    if (typeof ms !== 'number' || !Number.isFinite(ms)) return controlError(400, 'invalid_request', 'advanceMs must be a number');
    this.clockOffsetMs += ms;
    return ok({ offsetMs: this.clockOffsetMs, now: new Date(this.now()).toISOString() });
  }
}
