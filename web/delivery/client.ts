// Delivery Orders API client (undici). I/O lives here; decisions are in pure modules:
// web/retry (when/how long, and the loop), errors.ts (reading error bodies), extract.ts (reading
// responses), serialize.ts (the request body), token.ts (the token cache).
//
// Safety rules kept here:
// - createOrder refuses to send without an Idempotency-Key, and every attempt of one call
//   sends the same key and the same body bytes.
// - Only network errors, timeouts, 408/425/429 and 5xx are retried; other 4xx never.
// - `createRetry: 'unsent'` (the app's setting, web/context.ts) leaves a create's retries to
//   the dispatch job and resends only a create that never reached the courier.
// - A 401 refreshes the token once and repeats that request once.
// - The client secret and access tokens never go into a log line or an error message.
import { request, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../ops/logger.ts';
import {
  BadResponseError, CourierConfigError, CredentialsError, IdempotencyConflictError, OutcomeUnknownError, RejectedError, ScopeError,
  TransientError, describeErrorBody, fieldFromError, foreignExcerpt, isIdempotencyConflict, isIdempotencyInProgress, scrubSecrets,
} from './errors.ts';
import { isRetryableStatus, parseRetryAfter, resolveHttpRetryPolicy } from '../retry/policy.ts';
import { RetrySignal, withRetries, type RetryLoop, type RetryScope } from '../retry/run.ts';
import { credentialFingerprint, defaultTokenCache, tokenExpiresAt, type CachedToken, type TokenCache } from './token.ts';
import { parseCreateOrderBody } from './serialize.ts';
import { mapCreateOrderResponse, mapQuoteResponse, parseBoth, toOrderList, toOrderView } from './extract.ts';
import { TokenResponseSchema, type CourierOrderView, type CreateOrderResult, type QuoteResult } from './types.ts';
import { validateBaseUrl } from './url.ts';
import { recordCourierCall } from '../ops/metrics.ts';
import { describeNetworkError, headerValue, isJsonObject, readCapped, safeCode, safeScope, sharedAgent } from './http.ts';
import { neverSent } from '../retry/policy.ts';
import { ForbiddenAddressError } from './address-policy.ts';

export interface DeliveryClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** e.g. `${shop}:${environment}`; the token cache is per key. Default: base URL + client id. */
  tokenCacheKey?: string;
  /** Default: one process-wide cache. */
  tokenCache?: TokenCache;
  /** Default: a shared undici Agent with connectTimeoutMs. */
  dispatcher?: Dispatcher;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; deadlineMs?: number };
  /** Which failures of createOrder the client retries itself (default 'any'; see RetryScope). */
  createRetry?: RetryScope;
  log?: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Scopes per operation. orders:create and webhooks:manage are the spec's; the read and quote scopes are our guess (the spec does not name them), and a scope named in a 403 body wins. */
export const OPERATION_SCOPES = {
  createOrder: 'orders:create',
  getOrder: 'orders:read',
  findOrdersByReference: 'orders:read',
  quote: 'quotes:create',
  sendTestWebhook: 'webhooks:manage',
} as const;

type OperationName = keyof typeof OPERATION_SCOPES;

interface ApiOp {
  name: OperationName;
  method: 'GET' | 'POST';
  path: string;
  body?: Buffer;
  idempotencyKey?: string;
}

interface HttpResult {
  status: number;
  text: string;
  headers: IncomingHttpHeaders;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_ERROR_BODY_CHARS = 8 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

const OP_LABEL: Record<OperationName | 'token', string> = {
  createOrder: 'Creating the delivery order',
  getOrder: 'Reading the courier order',
  findOrdersByReference: 'Looking up courier orders by reference',
  quote: 'Getting a delivery quote',
  sendTestWebhook: 'Sending the test webhook',
  token: 'Getting a courier access token',
};

export class DeliveryClient {
  readonly #base: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #cache: TokenCache;
  readonly #cacheKey: string;
  readonly #fp: string;
  readonly #dispatcher: Dispatcher;
  readonly #loop: RetryLoop;
  readonly #createRetry: RetryScope;
  readonly #log: Logger | undefined;
  readonly #now: () => number;
  readonly #tokensSeen = new Set<string>();

  constructor(opts: DeliveryClientOptions) {
    const base = validateBaseUrl(String(opts.baseUrl ?? ''));
    if (!base.ok) throw new CourierConfigError(`Courier base URL ${base.problem}`);
    if (!opts.clientId?.trim()) throw new CourierConfigError('Courier client id is missing');
    if (!opts.clientSecret) throw new CourierConfigError('Courier client secret is missing');
    this.#base = base.url;
    this.#clientId = opts.clientId.trim();
    this.#clientSecret = opts.clientSecret;
    this.#cache = opts.tokenCache ?? defaultTokenCache;
    this.#cacheKey = opts.tokenCacheKey ?? `${this.#base}|${this.#clientId}`;
    this.#fp = credentialFingerprint(this.#base, this.#clientId, this.#clientSecret);
    this.#dispatcher = opts.dispatcher ?? sharedAgent(opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    this.#log = opts.log?.child({ component: 'delivery-client', tokenCacheKey: this.#cacheKey });
    this.#now = opts.now ?? Date.now;
    this.#loop = {
      policy: resolveHttpRetryPolicy(opts.retry),
      requestTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      now: this.#now,
      sleep: opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      random: opts.random ?? Math.random,
    };
    this.#createRetry = opts.createRetry ?? 'any';
  }

  get baseUrl(): string {
    return this.#base;
  }

  // -------------------------------------------------------------------------------------
  // Operations

  /**
   * POST /v1/orders. `body` is the exact JSON text (from serializeCreateOrder, stored by the
   * caller); it is validated, then sent byte-identical on every attempt with the same key.
   */
  async createOrder(input: { body: string; idempotencyKey: string }): Promise<CreateOrderResult> {
    const key = input?.idempotencyKey;
    if (typeof key !== 'string' || key.trim() === '') throw new CourierConfigError('Refusing to create a delivery order without an Idempotency-Key');
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new CourierConfigError('Idempotency-Key must be 1 to 255 visible ASCII characters');
    const checked = this.#checkBody(input.body);
    const op: ApiOp = { name: 'createOrder', method: 'POST', path: '/v1/orders', body: Buffer.from(input.body, 'utf8'), idempotencyKey: key };
    const { res, requests } = await this.#api(op, this.#createRetry);
    const mapped = mapCreateOrderResponse(res.text, { requestReference: checked.reference, headers: res.headers });
    if (!mapped.ok) {
      throw new BadResponseError(
        `The courier answered HTTP ${res.status} but ${mapped.problem}; the order may exist, look it up by reference ${checked.reference}`,
        { status: res.status, body: this.#errorBody(res.text), attempts: requests },
      );
    }
    const replayed = headerValue(res.headers, 'idempotent-replayed') ?? headerValue(res.headers, 'idempotency-replayed');
    const result: CreateOrderResult = { ...mapped.value, httpStatus: res.status, responseText: res.text, attempts: requests };
    if (replayed !== undefined) result.replayed = replayed.toLowerCase() === 'true';
    this.#log?.info({ op: 'createOrder', orderId: result.orderId, reference: result.reference, status: res.status, attempts: requests }, 'courier order created');
    return result;
  }

  /** GET /v1/orders/:id */
  async getOrder(orderId: string): Promise<CourierOrderView> {
    if (typeof orderId !== 'string' || orderId.trim() === '') throw new CourierConfigError('Courier order id is missing');
    const { res } = await this.#api({ name: 'getOrder', method: 'GET', path: `/v1/orders/${encodeURIComponent(orderId)}` }, 'any');
    const p = parseBoth(res.text);
    const view = p.ok ? toOrderView(p.exact) : null;
    if (!view) throw new BadResponseError(`The courier answered HTTP ${res.status} to the order read but the body has no order id`, { status: res.status, body: this.#errorBody(res.text) });
    return view;
  }

  /**
   * GET /v1/orders?reference=. A list, a wrapped list or a single order are accepted. A 404
   * with a structured API error body means "none" (some services answer a search that way);
   * a bare 404 (wrong base URL) stays an error.
   */
  async findOrdersByReference(reference: string): Promise<CourierOrderView[]> {
    if (typeof reference !== 'string' || reference === '') throw new CourierConfigError('Order reference is missing');
    let res: HttpResult;
    try {
      ({ res } = await this.#api({ name: 'findOrdersByReference', method: 'GET', path: `/v1/orders?reference=${encodeURIComponent(reference)}` }, 'any'));
    } catch (e) {
      if (e instanceof RejectedError && e.status === 404 && (e.code || isJsonObject(e.body))) return [];
      throw e;
    }
    const p = parseBoth(res.text);
    const list = p.ok ? toOrderList(p.exact) : null;
    if (!list) throw new BadResponseError(`The courier answered HTTP ${res.status} to the reference search with a body that is not an order or a list of orders`, { status: res.status, body: this.#errorBody(res.text) });
    return list;
  }

  /** POST /v1/pricing/quote with the create-order body; price and currency from likely field names. */
  async quote(body: string): Promise<QuoteResult> {
    this.#checkBody(body);
    const { res } = await this.#api({ name: 'quote', method: 'POST', path: '/v1/pricing/quote', body: Buffer.from(body, 'utf8') }, 'any');
    const q = mapQuoteResponse(res.text);
    if (!q.ok) throw new BadResponseError(`The courier answered HTTP ${res.status} but ${q.problem}`, { status: res.status, body: this.#errorBody(res.text) });
    return q.value;
  }

  /** POST /v1/webhooks/test. Not retried on 5xx: each try may send a webhook. */
  async sendTestWebhook(): Promise<{ status: number; body: unknown }> {
    const { res } = await this.#api({ name: 'sendTestWebhook', method: 'POST', path: '/v1/webhooks/test', body: Buffer.from('{}') }, 'never');
    const p = parseBoth(res.text);
    return { status: res.status, body: p.ok ? p.plain : res.text };
  }

  /** "Test connection": always requests a fresh token (and caches it). */
  async fetchToken(): Promise<{ expiresAt: number; scope?: string; tokenType?: string }> {
    const t = await this.#withRetries('token', 'any', (timeoutMs) => this.#token(timeoutMs, true), { n: 0 });
    const out: { expiresAt: number; scope?: string; tokenType?: string } = { expiresAt: t.expiresAt };
    if (t.scope !== undefined) out.scope = t.scope;
    if (t.tokenType !== undefined) out.tokenType = t.tokenType;
    return out;
  }

  // -------------------------------------------------------------------------------------
  // Internals

  #checkBody(body: string): { reference: string } {
    if (typeof body !== 'string') throw new CourierConfigError('Delivery request body must be the JSON text from serializeCreateOrder');
    const r = parseCreateOrderBody(body);
    if (!r.ok) throw new CourierConfigError(`Delivery request is invalid: ${r.message}`, r.field ? { field: r.field } : {});
    return { reference: r.request.reference };
  }

  async #api(op: ApiOp, scope: RetryScope): Promise<{ res: HttpResult; requests: number }> {
    const counter = { n: 0 };
    const res = await this.#withRetries(op.name, scope, (timeoutMs) => this.#apiAttempt(op, timeoutMs, counter), counter);
    return { res, requests: counter.n };
  }

  #withRetries<T>(label: OperationName | 'token', scope: RetryScope, attemptFn: (timeoutMs: number) => Promise<T>, counter: { n: number }): Promise<T> {
    return withRetries(this.#loop, scope, attemptFn, {
      check: (e, attempt) => {
        if (label !== 'createOrder' || !e.sent) return;
        // The courier may still be booking it; resending now could book it twice (a courier need not dedupe keys in flight).
        this.#log?.warn({ op: label, attempt, problem: e.problem }, 'courier create outcome unknown; not resent');
        throw new OutcomeUnknownError(`${OP_LABEL[label]}: ${e.problem}; the courier may have booked it. The order is looked up by reference before anything is sent again.`, { attempts: counter.n || attempt, cause: e.cause });
      },
      giveUp: (e, attempt, reason) => {
        const why = reason === 'deadline_exhausted' ? ' (retry deadline reached)' : reason === 'attempts_exhausted' ? ` (after ${attempt} attempts)` : '';
        this.#log?.warn({ op: label, attempt, problem: e.problem, status: e.status, reason }, 'courier call failed; giving up');
        const opts: ConstructorParameters<typeof TransientError>[1] = { attempts: counter.n || attempt, cause: e.cause };
        if (e.status !== undefined) opts.status = e.status;
        if (e.body !== undefined) opts.body = e.body;
        if (e.retryAfterMs !== undefined) opts.retryAfterMs = e.retryAfterMs;
        return new TransientError(`${OP_LABEL[label]} failed: ${e.problem}${why}. It is safe to try again later.`, opts);
      },
      retrying: (e, attempt, delayMs) => this.#log?.warn({ op: label, attempt, problem: e.problem, status: e.status, delayMs }, 'courier call failed; retrying'),
    });
  }

  /** One attempt: token, request, and the single 401 -> refresh -> repeat. */
  async #apiAttempt(op: ApiOp, timeoutMs: number, counter: { n: number }): Promise<HttpResult> {
    const token = await this.#token(timeoutMs, false);
    counter.n++;
    let res = await this.#send(op, token.accessToken, timeoutMs);
    if (res.status === 401) {
      this.#log?.info({ op: op.name }, 'courier answered 401; refreshing the access token once');
      this.#cache.invalidate(this.#cacheKey, token.accessToken);
      const fresh = await this.#token(timeoutMs, false);
      counter.n++;
      res = await this.#send(op, fresh.accessToken, timeoutMs);
      if (res.status === 401) {
        throw new CredentialsError('The courier refused a freshly issued access token (HTTP 401); check the app credentials and environment in the courier portal', {
          status: 401, body: this.#errorBody(res.text), attempts: counter.n,
        });
      }
    }
    return this.#classify(op, res, counter.n);
  }

  #classify(op: ApiOp, res: HttpResult, attempts: number): HttpResult {
    const { status } = res;
    if (status >= 200 && status < 300) return res;
    const info = describeErrorBody(res.text);
    const body = this.#errorBody(res.text);
    const said = this.#said(info);
    const codeText = safeCode(info.code) ? ` ${info.code}` : '';
    if (status === 403) {
      const scope = info.scope && /^[\w.-]+:[\w.-]+$/.test(info.scope) ? info.scope : OPERATION_SCOPES[op.name];
      throw new ScopeError(scope, `The courier refused this (HTTP 403); the app probably lacks the ${scope} scope, add it in the courier portal${said}`, { status, body, code: info.code, attempts });
    }
    if (op.name === 'createOrder' && status === 409 && isIdempotencyInProgress(info)) {
      // Another request with this key is still being processed: wait and ask again.
      throw new RetrySignal(`HTTP 409${codeText} (request with this key still in progress)`, { status, body, answered: true });
    }
    if (op.name === 'createOrder' && status >= 400 && status < 500 && isIdempotencyConflict(status, info)) {
      throw new IdempotencyConflictError(`The courier already has a different order under this Idempotency-Key (HTTP ${status}${codeText})${said}`, { status, body, code: info.code, attempts });
    }
    if (isRetryableStatus(status)) {
      throw new RetrySignal(`HTTP ${status}${codeText}`, { status, body, answered: true, retryAfterMs: parseRetryAfter(res.headers['retry-after'], this.#now()) });
    }
    const field = fieldFromError(info);
    const opts: ConstructorParameters<typeof RejectedError>[1] = { status, body, code: info.code, attempts };
    if (field) opts.field = field;
    const what =
      op.name === 'createOrder' ? 'The courier rejected the delivery order'
      : op.name === 'quote' ? 'The courier refused the quote'
      : op.name === 'getOrder' && status === 404 ? 'The courier has no such order'
      : `${OP_LABEL[op.name]} failed`;
    const fieldText = field && !(info.message ?? '').includes(field) ? ` (field ${foreignExcerpt(field, 64)})` : '';
    throw new RejectedError(`${what} (HTTP ${status}${codeText})${said}${fieldText}`, opts);
  }

  async #send(op: ApiOp, accessToken: string, timeoutMs: number): Promise<HttpResult> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${accessToken}` };
    if (op.body) headers['content-type'] = 'application/json';
    if (op.idempotencyKey) headers['idempotency-key'] = op.idempotencyKey;
    const started = this.#now();
    const res = await this.#exchange(op.method, op.path, headers, op.body, timeoutMs);
    this.#log?.debug({ op: op.name, method: op.method, status: res.status, ms: this.#now() - started }, 'courier response');
    return res;
  }

  async #token(timeoutMs: number, force: boolean): Promise<CachedToken> {
    try {
      return await this.#cache.getOrFetch(this.#cacheKey, this.#fp, this.#now(), () => this.#requestToken(timeoutMs), force);
    } catch (e) {
      // A failed token request sent no order: neither `sent` nor `answered` applies to the operation.
      if (e instanceof RetrySignal) throw new RetrySignal(e.problem, { status: e.status, body: e.body, retryAfterMs: e.retryAfterMs, cause: e.cause });
      throw e;
    }
  }

  async #requestToken(timeoutMs: number): Promise<CachedToken> {
    const payload = Buffer.from(JSON.stringify({ grant_type: 'client_credentials', client_id: this.#clientId, client_secret: this.#clientSecret }));
    const res = await this.#exchange('POST', '/oauth/token', { accept: 'application/json', 'content-type': 'application/json' }, payload, timeoutMs);
    const { status } = res;
    this.#log?.debug({ op: 'token', status }, 'courier token response');
    if (status >= 200 && status < 300) {
      const p = parseBoth(res.text);
      const parsed = p.ok ? TokenResponseSchema.safeParse(p.plain) : undefined;
      if (!parsed?.success) {
        // The body of a successful token response may hold the token: never keep it.
        throw new BadResponseError(`The courier token endpoint answered HTTP ${status} without an access_token`, { status });
      }
      const t = parsed.data;
      const expiresIn = t.expires_in === undefined || t.expires_in === null ? undefined : Number(t.expires_in);
      const token: CachedToken = { accessToken: t.access_token, expiresAt: tokenExpiresAt(this.#now(), expiresIn) };
      if (t.token_type) token.tokenType = t.token_type;
      const scope = t.scope ? safeScope(Array.isArray(t.scope) ? t.scope.join(' ') : t.scope) : undefined;
      if (scope) token.scope = scope;
      this.#rememberToken(t.access_token);
      this.#log?.info({ op: 'token', expiresInSec: expiresIn ?? null, scope: token.scope ?? null }, 'courier access token issued');
      return token;
    }
    const info = describeErrorBody(res.text);
    const said = this.#said(info);
    const body = this.#errorBody(res.text);
    if (status === 400 || status === 401 || status === 403) {
      throw new CredentialsError(`The courier did not accept the client id and secret (HTTP ${status}${safeCode(info.code) ? ` ${info.code}` : ''})${said}`, { status, body, code: info.code });
    }
    if (status === 404 || status === 405) {
      throw new CourierConfigError(`No courier token endpoint at ${this.#base}/oauth/token (HTTP ${status}); check the base URL`, { status, body });
    }
    if (isRetryableStatus(status)) {
      throw new RetrySignal(`token endpoint HTTP ${status}`, { status, body, retryAfterMs: parseRetryAfter(res.headers['retry-after'], this.#now()) });
    }
    throw new CredentialsError(`The courier token request failed (HTTP ${status})${said}`, { status, body, code: info.code });
  }

  /** One HTTP exchange, timed for /metrics. Network failures and timeouts become RetrySignal. */
  async #exchange(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number): Promise<HttpResult> {
    let status: number;
    let resHeaders: IncomingHttpHeaders;
    let text: string | null;
    const started = performance.now();
    const operation = courierOperation(method, path);
    try {
      const res = await request(`${this.#base}${path}`, {
        method, headers, body, dispatcher: this.#dispatcher,
        signal: AbortSignal.timeout(timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      resHeaders = res.headers as IncomingHttpHeaders;
      text = await readCapped(res.body, MAX_RESPONSE_BYTES);
      recordCourierCall(operation, (performance.now() - started) / 1000, status < 400 ? 'ok' : `http_${status}`);
    } catch (e) {
      recordCourierCall(operation, (performance.now() - started) / 1000, 'network');
      const forbidden = [e, (e as { cause?: unknown })?.cause].find((x) => x instanceof ForbiddenAddressError);
      if (forbidden) throw new CourierConfigError(`Refused to connect to the courier base URL: ${(forbidden as Error).message}`);
      throw new RetrySignal(describeNetworkError(e), { cause: e, sent: !neverSent(e) });
    }
    if (text === null) throw new BadResponseError(`The courier response to ${method} ${path.split('?')[0]} is larger than ${MAX_RESPONSE_BYTES} bytes`, { status });
    return { status, text, headers: resHeaders };
  }

  #rememberToken(t: string): void {
    this.#tokensSeen.add(t);
    if (this.#tokensSeen.size > 4) this.#tokensSeen.delete(this.#tokensSeen.values().next().value!);
  }

  /** What the courier said, as merchants may see it: a short, sanitised excerpt. */
  #said(info: { message?: string }): string {
    const t = info.message ? foreignExcerpt(this.#scrub(info.message)) : '';
    return t ? `: ${t}` : '';
  }

  #scrub(s: string): string {
    return scrubSecrets(s, [this.#clientSecret, ...this.#tokensSeen]);
  }

  #errorBody(text: string): string {
    return this.#scrub(text.length > MAX_ERROR_BODY_CHARS ? text.slice(0, MAX_ERROR_BODY_CHARS) : text);
  }
}

/** A metrics label for a call: the method and the path with its ids replaced (GET /v1/orders/:id). */
export function courierOperation(method: string, path: string): string {
  const p = path.split('?')[0]!.split('/').map((seg) => ((/\d/.test(seg) && !/^v\d+$/.test(seg)) || seg.length > 24 ? ':id' : seg)).join('/');
  return `${method} ${p}`;
}
