// Shopify Admin GraphQL with the shop's offline token: cost throttling
// (THROTTLED / 429), 5xx and network errors retried with waits (web/retry),
// userErrors turned into a typed error. classifyAdminResponse is pure and table-tested.
//
// Who retries: `maxAttempts` (default 6) is for interactive callers (admin pages,
// CLI). The job workers get a client with maxAttempts 1 (web/runtime.ts): their
// retries are the durable job's, which waits at least the error's retryAfterMs.
import { fetch } from 'undici';
import type { Logger } from '../ops/logger.ts';
import { parseRetryAfter, resolveHttpRetryPolicy, type HttpRetryPolicy } from '../retry/policy.ts';
import { RetrySignal, withRetries } from '../retry/run.ts';

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
  | { kind: 'refresh_token' }
  | { kind: 'fail'; message: string; status: number };

interface GraphqlBody {
  data?: unknown;
  errors?: Array<{ message?: string; extensions?: { code?: string } }> | string;
  extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: { currentlyAvailable?: number; restoreRate?: number } } };
}

const MAX_WAIT_MS = 30_000;
/** Shopify's waits are computed per answer (backoffWait, throttle restore, Retry-After), so the policy adds no backoff of its own. */
export const ADMIN_RETRY: HttpRetryPolicy = { maxAttempts: 6, baseDelayMs: 0, maxDelayMs: 0, deadlineMs: 5 * 60_000 };

/** 5xx and network errors: 500 ms doubling, capped. `attempt` is 1-based. */
export function backoffWait(attempt: number): number {
  return Math.min(MAX_WAIT_MS, 500 * 2 ** (attempt - 1));
}

/** Decides what a response means. `attempt` is 1-based, for the 5xx backoff. */
export function classifyAdminResponse(status: number, retryAfter: string | null, body: GraphqlBody | null, attempt: number): Classified {
  if (status === 401) return { kind: 'refresh_token' };
  if (status === 429) return { kind: 'retry', waitMs: retryAfterMs(retryAfter) ?? 1_000, reason: 'HTTP 429' };
  if (status >= 500) return { kind: 'retry', waitMs: backoffWait(attempt), reason: `HTTP ${status}` };
  if (status === 402) return { kind: 'fail', status, message: 'Shopify: the shop is frozen (payment required)' };
  if (status === 403) return { kind: 'fail', status, message: 'Shopify: access denied; the app may be missing an access scope' };
  if (status === 404) return { kind: 'fail', status, message: 'Shopify: shop not found (uninstalled or closed)' };
  if (status !== 200 || !body) return { kind: 'fail', status, message: `Shopify Admin API answered HTTP ${status}` };

  const errors = typeof body.errors === 'string' ? [{ message: body.errors }] : (body.errors ?? []);
  if (errors.some((e) => e.extensions?.code === 'THROTTLED' || /throttled/i.test(e.message ?? ''))) {
    const cost = body.extensions?.cost;
    const need = (cost?.requestedQueryCost ?? 50) - (cost?.throttleStatus?.currentlyAvailable ?? 0);
    const rate = cost?.throttleStatus?.restoreRate || 50;
    return { kind: 'retry', waitMs: Math.min(MAX_WAIT_MS, Math.max(100, Math.ceil((need / rate) * 1000))), reason: 'THROTTLED' };
  }
  if (errors.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR')) {
    return { kind: 'retry', waitMs: backoffWait(attempt), reason: 'INTERNAL_SERVER_ERROR' };
  }
  if (errors.length) return { kind: 'fail', status, message: `Shopify GraphQL error: ${errors.map((e) => e.message).join('; ')}` };
  return { kind: 'ok', data: body.data };
}

function retryAfterMs(v: string | null): number | null {
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
}

export interface AdminApi {
  request<T = any>(shop: string, query: string, variables?: Record<string, unknown>): Promise<T>;
}

export function createAdminApi(opts: AdminApiOptions): AdminApi {
  const loop = {
    policy: resolveHttpRetryPolicy({ maxAttempts: opts.maxAttempts }, ADMIN_RETRY),
    requestTimeoutMs: opts.timeoutMs ?? 20_000,
    now: Date.now,
    sleep: opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    random: Math.random,
  };
  return {
    request<T>(shop: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const operation = /\b(query|mutation)\s+(\w+)/.exec(query)?.[2] ?? 'operation';
      let refreshed = false;

      /** One POST; a 401 refreshes the token once and repeats it. */
      const attempt = async (timeoutMs: number, n: number): Promise<T> => {
        let forceToken = false;
        for (;;) {
          const token = await opts.accessToken(shop, { force: forceToken });
          let status: number;
          let retryAfter: string | null = null;
          let body: GraphqlBody | null = null;
          try {
            const res = await fetch(`https://${shop}/admin/api/${opts.apiVersion}/graphql.json`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json', 'x-shopify-access-token': token },
              body: JSON.stringify({ query, variables }),
              signal: AbortSignal.timeout(timeoutMs),
            });
            status = res.status;
            retryAfter = res.headers.get('retry-after');
            body = (await res.json().catch(() => null)) as GraphqlBody | null;
          } catch (e) {
            throw new RetrySignal(`Shopify unreachable: ${(e as Error).message}`, { retryAfterMs: backoffWait(n), cause: e });
          }
          const c = classifyAdminResponse(status, retryAfter, body, n);
          if (c.kind === 'ok') return c.data as T;
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
