// Shopify Admin GraphQL with the shop's offline token: every call paced by the
// shop's cost budget (web/shopify/pacer.ts), 429, 5xx and network errors retried
// with waits (web/retry), userErrors turned into a typed error. classifyAdminResponse
// is pure and table-tested.
//
// THROTTLED is never a failure: the budget is corrected from Shopify's
// throttleStatus and the call waits and goes again, spending no attempt. A job's
// client (`deferAfterMs`) does not hold its worker through a long wait: it throws
// ShopifyBudgetWait and the job runs again later (web/shopify/paced-jobs.ts).
//
// Who retries: `maxAttempts` (default 6) is for interactive callers (admin pages,
// CLI). The job workers get a client with maxAttempts 1 (web/runtime.ts): their
// retries are the durable job's, which waits at least the error's retryAfterMs.
import { request } from 'undici';
import type { Logger } from '../ops/logger.ts';
import { parseRetryAfter, resolveHttpRetryPolicy, type HttpRetryPolicy } from '../retry/policy.ts';
import { RetrySignal, withRetries } from '../retry/run.ts';
import { OPERATION_COST } from './operation-costs.ts';
import type { Database } from '../db/client.ts';
import { MemoryBudgetStore, PACE_TICK_MS, PgBudgetStore, ShopifyBudgetWait, ShopifyPacer, type Priority, type ThrottleWait } from './pacer.ts';

const throttleObservers = new Set<(w: ThrottleWait) => void>();

/** Every throttle wait of every Admin client in this process (for /metrics); returns the unsubscribe. */
export function onShopifyThrottleWait(fn: (w: ThrottleWait) => void): () => void {
  throttleObservers.add(fn);
  return () => void throttleObservers.delete(fn);
}

function emitThrottleWait(w: ThrottleWait): void {
  for (const fn of throttleObservers) {
    try {
      fn(w);
    } catch {
      // An observer's failure is its own; the call goes on.
    }
  }
}

export class ShopifyAdminError extends Error {
  readonly retryable: boolean;
  readonly status?: number;
  /** How long Shopify asked us to wait (Retry-After, or the throttle's restore time). */
  readonly retryAfterMs?: number;
  constructor(message: string, opts: { retryable: boolean; status?: number; retryAfterMs?: number }) {
    super(message);
    this.retryable = opts.retryable;
    this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

export interface UserError {
  field?: string[] | null;
  message: string;
  code?: string | null;
}

/** A mutation answered with userErrors: Shopify refused it; retrying the same input will not help. */
export class ShopifyUserErrors extends ShopifyAdminError {
  readonly userErrors: UserError[];
  readonly operation: string;
  constructor(operation: string, userErrors: UserError[]) {
    super(`Shopify refused ${operation}: ${userErrors.map((e) => e.message).join('; ')}`, { retryable: false });
    this.userErrors = userErrors;
    this.operation = operation;
  }
}

export function throwOnUserErrors(operation: string, payload: { userErrors?: UserError[] | null } | null | undefined): void {
  if (payload?.userErrors?.length) throw new ShopifyUserErrors(operation, payload.userErrors);
}

export type Classified =
  | { kind: 'ok'; data: unknown }
  | { kind: 'retry'; waitMs: number; reason: string }
  /** The shop's cost bucket could not pay: wait for it (never counted as a failed attempt). */
  | { kind: 'throttled' }
  | { kind: 'refresh_token' }
  | { kind: 'fail'; message: string; status: number };

interface GraphqlBody {
  data?: unknown;
  errors?: Array<{ message?: string; extensions?: { code?: string } }> | string;
  extensions?: {
    cost?: {
      requestedQueryCost?: number;
      actualQueryCost?: number | null;
      throttleStatus?: { maximumAvailable?: number; currentlyAvailable?: number; restoreRate?: number };
    };
  };
}

const MAX_WAIT_MS = 30_000;
/** Shopify's waits are computed per answer (backoffWait, throttle restore, Retry-After), so the policy adds no backoff of its own. */
export const ADMIN_RETRY: HttpRetryPolicy = { maxAttempts: 6, baseDelayMs: 0, maxDelayMs: 0, deadlineMs: 5 * 60_000 };

/** 5xx and network errors: 500 ms doubling, capped. `attempt` is 1-based. */
export function backoffWait(attempt: number): number {
  return Math.min(MAX_WAIT_MS, 500 * 2 ** (attempt - 1));
}

/** Decides what a response means. `attempt` is 1-based, for the 5xx backoff. */
export function classifyAdminResponse(status: number, retryAfter: string | string[] | null | undefined, body: GraphqlBody | null, attempt: number): Classified {
  if (status === 401) return { kind: 'refresh_token' };
  if (status === 429) return { kind: 'retry', waitMs: retryAfterMs(retryAfter) ?? 1_000, reason: 'HTTP 429' };
  if (status >= 500) return { kind: 'retry', waitMs: backoffWait(attempt), reason: `HTTP ${status}` };
  if (status === 402) return { kind: 'fail', status, message: 'Shopify: the shop is frozen (payment required)' };
  if (status === 403) return { kind: 'fail', status, message: 'Shopify: access denied; the app may be missing an access scope' };
  if (status === 404) return { kind: 'fail', status, message: 'Shopify: shop not found (uninstalled or closed)' };
  if (status !== 200 || !body) return { kind: 'fail', status, message: `Shopify Admin API answered HTTP ${status}` };

  const errors = typeof body.errors === 'string' ? [{ message: body.errors }] : (body.errors ?? []);
  if (errors.some((e) => e.extensions?.code === 'THROTTLED' || /throttled/i.test(e.message ?? ''))) return { kind: 'throttled' };
  if (errors.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR')) {
    return { kind: 'retry', waitMs: backoffWait(attempt), reason: 'INTERNAL_SERVER_ERROR' };
  }
  if (errors.length) return { kind: 'fail', status, message: `Shopify GraphQL error: ${errors.map((e) => e.message).join('; ')}` };
  return { kind: 'ok', data: body.data };
}

function retryAfterMs(v: string | string[] | null | undefined): number | null {
  const ms = parseRetryAfter(v, Date.now());
  return ms === undefined ? null : Math.min(MAX_WAIT_MS, ms);
}

export interface AdminApiOptions {
  apiVersion: string;
  /** The shop's offline access token; `force` asks for a refreshed one after a 401. */
  accessToken(shop: string, opts?: { force?: boolean }): Promise<string>;
  log: Logger;
  maxAttempts?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** The per-shop budget; shared by every client of the runtime (default: one of its own, in memory). */
  pacer?: ShopifyPacer;
  /** Jobs: a budget wait longer than this throws ShopifyBudgetWait instead of holding the worker. */
  deferAfterMs?: number;
  now?: () => number;
}

export interface RequestOptions {
  /** background: leaves part of the shop's bucket to customer-visible writes (web/shopify/pacer.ts). */
  priority?: Priority;
}

export interface AdminApi {
  request<T = any>(shop: string, query: string, variables?: Record<string, unknown>, opts?: RequestOptions): Promise<T>;
}

/** THROTTLED answers in a row an interactive call sits through before it gives up (a job defers instead). */
const MAX_THROTTLED_IN_A_ROW = 20;

/** A pacer over an in-memory budget (SQLite, or a client on its own). */
export function memoryPacer(o: { now?: () => number; sleep?: (ms: number) => Promise<void>; tickMs?: number } = {}): ShopifyPacer {
  return new ShopifyPacer({
    tickMs: o.tickMs,
    store: new MemoryBudgetStore(),
    now: o.now ?? Date.now,
    sleep: o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    costs: OPERATION_COST,
    onWait: emitThrottleWait,
  });
}

/** The runtime's pacer: on PostgreSQL one budget row per shop shared by every instance; on SQLite in memory. */
export function shopifyPacer(database: Pick<Database, 'db' | 'provider'>, now: () => number, tickMs = PACE_TICK_MS): ShopifyPacer {
  if (database.provider !== 'postgres') return memoryPacer({ now, tickMs });
  return new ShopifyPacer({
    tickMs,
    store: new PgBudgetStore(database.db),
    now,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    costs: OPERATION_COST,
    onWait: emitThrottleWait,
  });
}

export function createAdminApi(opts: AdminApiOptions): AdminApi {
  const loop = {
    policy: resolveHttpRetryPolicy({ maxAttempts: opts.maxAttempts }, ADMIN_RETRY),
    requestTimeoutMs: opts.timeoutMs ?? 20_000,
    now: Date.now,
    sleep: opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    random: Math.random,
  };
  const pacer = opts.pacer ?? memoryPacer({ now: opts.now, sleep: loop.sleep });
  return {
    request<T>(shop: string, query: string, variables: Record<string, unknown> = {}, ro: RequestOptions = {}): Promise<T> {
      const operation = /\b(query|mutation)\s+(\w+)/.exec(query)?.[2] ?? 'operation';
      let refreshed = false;

      /** One POST; a 401 refreshes the token once and repeats it; THROTTLED waits for the budget and repeats it. */
      const attempt = async (timeoutMs: number, n: number): Promise<T> => {
        let forceToken = false;
        let throttled = 0;
        for (;;) {
          await pacer.acquire(shop, operation, {
            priority: ro.priority,
            ...(opts.deferAfterMs !== undefined ? { deferAfterMs: opts.deferAfterMs } : {}),
            ...(throttled ? { reason: 'throttled' as const } : {}),
          });
          const token = await opts.accessToken(shop, { force: forceToken });
          let status: number;
          let retryAfter: string | string[] | undefined;
          let body: GraphqlBody | null = null;
          try {
            // undici's request, not fetch: no WHATWG Request, Headers and streams around each call (a sale makes thousands).
            const res = await request(`https://${shop}/admin/api/${opts.apiVersion}/graphql.json`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json', 'x-shopify-access-token': token },
              body: JSON.stringify({ query, variables }),
              signal: AbortSignal.timeout(timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
            });
            status = res.statusCode;
            retryAfter = res.headers['retry-after'];
            body = (await res.body.json().catch(() => null)) as GraphqlBody | null;
          } catch (e) {
            throw new RetrySignal(`Shopify unreachable: ${(e as Error).message}`, { retryAfterMs: backoffWait(n), cause: e });
          }
          const cost = body?.extensions?.cost;
          if (cost && typeof cost.requestedQueryCost === 'number') {
            const t = cost.throttleStatus;
            const reported = t && typeof t.currentlyAvailable === 'number' && typeof t.maximumAvailable === 'number' && typeof t.restoreRate === 'number'
              ? { currentlyAvailable: t.currentlyAvailable, maximumAvailable: t.maximumAvailable, restoreRate: t.restoreRate } : null;
            if (reported) pacer.noteMaximum(shop, reported.maximumAvailable);
            await pacer.settle(shop, operation, { requested: cost.requestedQueryCost, actual: cost.actualQueryCost ?? null, status: reported });
          }
          const c = classifyAdminResponse(status, retryAfter, body, n);
          if (c.kind === 'ok') return c.data as T;
          if (c.kind === 'throttled') {
            throttled += 1;
            if (throttled < MAX_THROTTLED_IN_A_ROW) continue;
            // Shopify keeps refusing what its own throttleStatus says it can pay (a limit lowered for a while).
            if (opts.deferAfterMs !== undefined) throw new ShopifyBudgetWait(shop, 1_000);
            throw new RetrySignal('Shopify kept answering THROTTLED', { status, retryAfterMs: 1_000, answered: true });
          }
          if (c.kind === 'fail') throw new ShopifyAdminError(c.message, { retryable: false, status: c.status });
          if (c.kind === 'refresh_token') {
            if (refreshed) throw new ShopifyAdminError('Shopify rejected the access token; the merchant must open the app to re-authorise', { retryable: false, status: 401 });
            refreshed = forceToken = true;
            continue;
          }
          throw new RetrySignal(`Shopify kept answering ${c.reason}`, { status, retryAfterMs: c.waitMs, answered: true });
        }
      };

      return withRetries(loop, 'any', attempt, {
        giveUp: (e) => new ShopifyAdminError(e.problem, { retryable: true, ...(e.status !== undefined ? { status: e.status } : {}), ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}) }),
        retrying: (e, n, waitMs) => opts.log.info({ shop, operation, attempt: n, waitMs, reason: e.problem }, 'shopify admin request throttled or failed; waiting'),
      });
    },
  };
}
