// Pure retry policy: which outcomes are retried, how long to wait, when to stop.
// Creating an order is safe to retry only because every attempt carries the same
// Idempotency-Key and byte-identical body (see client.ts).

export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  /** First backoff step; doubles per attempt. */
  baseDelayMs: number;
  /** Cap on one backoff step (Retry-After may ask for longer; the deadline still applies). */
  maxDelayMs: number;
  /** Overall budget for one logical call, from its first attempt. */
  deadlineMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, deadlineMs: 30_000 };

export function resolveRetryPolicy(p: Partial<RetryPolicy> | undefined): RetryPolicy {
  const r = { ...DEFAULT_RETRY, ...Object.fromEntries(Object.entries(p ?? {}).filter(([, v]) => v !== undefined)) };
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
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
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
export function backoffDelay(attempt: number, p: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
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
  retryAfterMs?: number;
  policy: RetryPolicy;
  random: () => number;
}): RetryDecision {
  const { attempt, elapsedMs, retryAfterMs, policy, random } = input;
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'attempts_exhausted' };
  const backoff = backoffDelay(attempt, policy, random);
  const delayMs = retryAfterMs === undefined ? backoff : Math.max(retryAfterMs, backoff);
  // The next attempt needs some time of its own, so stop if the wait alone uses up the budget.
  if (elapsedMs + delayMs >= policy.deadlineMs) return { retry: false, reason: 'deadline_exhausted' };
  return { retry: true, delayMs };
}
