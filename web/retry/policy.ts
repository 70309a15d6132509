// Every retry decision in the app, pure (no I/O, no clock reads: callers pass
// `now` and `random`), table-tested in test/unit/retry-policy.test.ts,
// test/unit/delivery-retry.test.ts and test/unit/jobs-policy.test.ts.
//
// Two layers retry, and each outbound call is retried in ONE of them (see
// budget.ts for which, and the worst-case request counts that follow):
//   HttpRetryPolicy — inside one HTTP client call, in process: short waits,
//                     a deadline, Retry-After honoured.
//   JobRetryPolicy  — the durable job queue (web/jobs): survives restarts;
//                     long backoff, computed by pg-boss in SQL on PostgreSQL.
//
// We keep this small module rather than cockatiel: the job curve must match
// pg-boss's SQL exactly, Retry-After is a floor (cockatiel's backoff has no
// per-failure floor), and the callers need the give-up reason for their messages.

// ---------------------------------------------------------------------------
// HTTP clients (courier, Shopify Admin)

export interface HttpRetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  /** First backoff step; doubles per attempt. */
  baseDelayMs: number;
  /** Cap on one backoff step (Retry-After may ask for longer; the deadline still applies). */
  maxDelayMs: number;
  /** Overall budget for one logical call, from its first attempt. */
  deadlineMs: number;
}

export const DEFAULT_HTTP_RETRY: HttpRetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, deadlineMs: 30_000 };

export function resolveHttpRetryPolicy(p: Partial<HttpRetryPolicy> | undefined, base: HttpRetryPolicy = DEFAULT_HTTP_RETRY): HttpRetryPolicy {
  const r = { ...base, ...Object.fromEntries(Object.entries(p ?? {}).filter(([, v]) => v !== undefined)) };
  return {
    maxAttempts: Math.max(1, Math.floor(r.maxAttempts)),
    baseDelayMs: Math.max(0, r.baseDelayMs),
    maxDelayMs: Math.max(0, r.maxDelayMs),
    deadlineMs: Math.max(1, r.deadlineMs),
  };
}

/**
 * 408, 425 and 429 are "try again"; 5xx is a server fault, except 501/505 which will not
 * change on a retry. Everything else (other 4xx) is permanent.
 */
export function isRetryableStatus(status: number): boolean {
  if (status === 408 || status === 425 || status === 429) return true;
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

/** Retry-After as milliseconds from now: delta-seconds ("3", "1.5") or an HTTP date. */
export function parseRetryAfter(value: string | string[] | null | undefined, nowMs: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at) || !/[a-z]/i.test(v)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so delays
 * grow with each attempt but concurrent clients spread out. `attempt` = attempts made so far.
 */
export function httpBackoffDelay(attempt: number, p: Pick<HttpRetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const step = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(step / 2 + (step / 2) * r);
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'attempts_exhausted' | 'deadline_exhausted' };

/** After a retryable failure: wait how long, or stop. Retry-After is a floor, never shortened. */
export function nextRetry(input: {
  attempt: number;
  elapsedMs: number;
  retryAfterMs?: number | undefined;
  policy: HttpRetryPolicy;
  random: () => number;
}): RetryDecision {
  const { attempt, elapsedMs, retryAfterMs, policy, random } = input;
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'attempts_exhausted' };
  const backoff = httpBackoffDelay(attempt, policy, random);
  const delayMs = retryAfterMs === undefined ? backoff : Math.max(retryAfterMs, backoff);
  // The next attempt needs some time of its own, so stop if the wait alone uses up the budget.
  if (elapsedMs + delayMs >= policy.deadlineMs) return { retry: false, reason: 'deadline_exhausted' };
  return { retry: true, delayMs };
}

/** Network failures before the request could reach the service (so resending is safe). */
export function neverSent(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } } | undefined;
  const code = err?.code ?? err?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}

// ---------------------------------------------------------------------------
// The durable job queue

/** Exponential backoff, capped, with jitter (jobBackoffDelay). */
export interface JobRetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_JOB_RETRY: JobRetryPolicy = { maxAttempts: 5, baseDelayMs: 5_000, maxDelayMs: 10 * 60_000 };

/** Layers partial policies over a base and validates the result. */
export function resolveJobRetryPolicy(base: JobRetryPolicy, ...overrides: Array<Partial<JobRetryPolicy> | undefined>): JobRetryPolicy {
  const p: JobRetryPolicy = { ...base };
  for (const o of overrides) {
    if (!o) continue;
    if (o.maxAttempts !== undefined) p.maxAttempts = o.maxAttempts;
    if (o.baseDelayMs !== undefined) p.baseDelayMs = o.baseDelayMs;
    if (o.maxDelayMs !== undefined) p.maxDelayMs = o.maxDelayMs;
  }
  assertMaxAttempts(p.maxAttempts);
  if (!Number.isFinite(p.baseDelayMs) || p.baseDelayMs < 0) throw new RangeError('retry.baseDelayMs must be >= 0');
  if (!Number.isFinite(p.maxDelayMs) || p.maxDelayMs < p.baseDelayMs) throw new RangeError('retry.maxDelayMs must be >= baseDelayMs');
  return p;
}

export function assertMaxAttempts(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new RangeError('maxAttempts must be an integer from 1 to 1000');
}

/**
 * Delay before the next attempt after attempt `attempt` (1-based) failed:
 *   min(maxDelayMs, baseDelayMs * 2^(attempt-1) * (1 + random))
 * i.e. doubling, with up to 100% upward jitter, capped. The exponent stops
 * growing at 16. This is exactly the curve pg-boss applies in SQL
 * (retry_delay * 2^min(16, retry_count+1)/2 * (1 + random()), capped by
 * retry_delay_max), so both backends back off the same way; pg-boss counts in
 * whole seconds (see pgBossQueueRetry in web/jobs/policy.ts).
 */
export function jobBackoffDelay(policy: Pick<JobRetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, attempt: number, random: number): number {
  const step = 2 ** Math.min(16, Math.max(1, attempt)) / 2;
  const r = Math.min(Math.max(random, 0), 1);
  return Math.round(Math.min(policy.maxDelayMs, policy.baseDelayMs * step * (1 + r)));
}

/** An error is retryable unless it carries `retryable: false`. */
export function isRetryable(error: unknown): boolean {
  return !(typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false);
}

/**
 * The wait a failed call asked for (an HTTP Retry-After, or Shopify's throttle
 * restore time), carried on the error as `retryAfterMs`: the job's next
 * attempt is not sooner. Undefined when the error names none.
 */
export function retryAfterOf(error: unknown): number | undefined {
  const v = typeof error === 'object' && error !== null ? (error as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** The job's next delay: its backoff, or longer when the failure asked for a longer wait. */
export function jobRetryDelay(policy: Pick<JobRetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, attempt: number, random: number, error: unknown): number {
  return Math.max(jobBackoffDelay(policy, attempt, random), retryAfterOf(error) ?? 0);
}

export type AfterFailure = 'retry' | 'exhausted';

/** What happens after attempt `attempt` of `maxAttempts` threw `error`. */
export function afterFailure(attempt: number, maxAttempts: number, retryable: boolean): AfterFailure {
  return retryable && attempt < maxAttempts ? 'retry' : 'exhausted';
}

// ---------------------------------------------------------------------------
// Budget arithmetic

/**
 * Worst-case requests of one call retried by nested loops: the product of each
 * layer's attempts (a layer that does not retry the call counts 1). Keeping
 * every call retried in one layer keeps this product equal to that layer's attempts.
 */
export function worstCaseRequests(...attemptsPerLayer: number[]): number {
  return attemptsPerLayer.reduce((n, a) => {
    if (!Number.isInteger(a) || a < 1) throw new RangeError('attempts per layer must be integers >= 1');
    return n * a;
  }, 1);
}
