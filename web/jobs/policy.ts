// Pure job-queue policy: queue names, attempt limits per backend, time buckets
// for every(), and how errors are recorded. The retry decisions themselves
// (backoff, retryable, when to stop) are web/retry/policy.ts's. No I/O, no
// clock reads, so all of it is table-tested in test/unit/jobs-policy.test.ts.
import { createHash } from 'node:crypto';
import type { JobRetryPolicy } from '../retry/policy.ts';

/** Queue names: what both backends accept (pg-boss's rule), at most 100 characters. */
export const QUEUE_NAME = /^[\w.\-/]{1,100}$/;

/** A queue's group, as one key (holds, the pacer's wakes). Queue names have no '|'; a group may. */
export const holdKey = (name: string, group: string): string => `${name}|${group}`;
export function splitHoldKey(key: string): [name: string, group: string] {
  const i = key.indexOf('|');
  return [key.slice(0, i), key.slice(i + 1)];
}

export function assertQueueName(name: string): void {
  if (typeof name !== 'string' || !QUEUE_NAME.test(name)) {
    throw new TypeError(`job queue name ${JSON.stringify(name)} must be 1-100 letters, digits, _ . - or /`);
  }
}

/**
 * A job's stored maxAttempts when it was enqueued without its own: the worker's
 * policy decides when the job runs. SQLite stores 0; pg-boss stores this
 * retry_limit, so pg-boss itself never gives up on such a job.
 */
export const MAX_ATTEMPTS_BY_WORKER = { sqlite: 0, pgBossRetryLimit: 1_000_000 } as const;

/** The maxAttempts a claimed job runs under: its own if it was enqueued with one, else its worker's. */
export function resolveMaxAttempts(stored: number, workerMaxAttempts: number): number {
  return Number.isInteger(stored) && stored >= 1 && stored <= 1000 ? stored : workerMaxAttempts;
}

/**
 * pg-boss queue retry settings for a worker's policy. Delays are whole
 * seconds, at least 1 (pg-boss's own floor with backoff). retryLimit leaves
 * the decision to the worker (MAX_ATTEMPTS_BY_WORKER).
 */
export function pgBossQueueRetry(policy: JobRetryPolicy) {
  const retryDelay = Math.max(1, Math.ceil(policy.baseDelayMs / 1000));
  return {
    retryLimit: MAX_ATTEMPTS_BY_WORKER.pgBossRetryLimit,
    retryDelay,
    retryBackoff: true as const,
    retryDelayMax: Math.max(retryDelay, Math.ceil(policy.maxDelayMs / 1000)),
  };
}

/**
 * pg-boss retry_limit for a job enqueued with its own maxAttempts: one more
 * claim than attempts. The extra claim exists so that a job whose LAST attempt
 * was lost (worker killed, expireInSeconds passed) is claimed once more and
 * reported to onExhausted instead of failing silently (base.ts runAttempt).
 */
export function pgBossJobRetryLimit(maxAttempts: number): number {
  return maxAttempts;
}

/** The time bucket `now` falls in, for work that runs once per interval. */
export function timeBucket(nowMs: number, intervalMs: number): number {
  assertInterval(intervalMs);
  return Math.floor(nowMs / intervalMs);
}

/** Milliseconds from `nowMs` until the next bucket starts (always > 0). */
export function msUntilNextBucket(nowMs: number, intervalMs: number): number {
  assertInterval(intervalMs);
  return (timeBucket(nowMs, intervalMs) + 1) * intervalMs - nowMs;
}

export function assertInterval(intervalMs: number): void {
  if (!Number.isInteger(intervalMs) || intervalMs < 10) throw new RangeError('interval must be an integer number of milliseconds >= 10');
}

/**
 * The job id of one bucket of recurring work: the same on every instance, so
 * only the first instance to enqueue a bucket succeeds (both backends ignore an
 * insert whose id exists, in any state, until retention deletes the row). A
 * UUID-shaped SHA-256 prefix, because pg-boss ids are uuid columns.
 */
export function bucketJobId(name: string, intervalMs: number, bucket: number): string {
  const h = createHash('sha256').update(`every\0${name}\0${intervalMs}\0${bucket}`).digest('hex');
  // Version 8 (custom) and the RFC 9562 variant, so it is a well-formed UUID.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * How a failure is recorded (SQLite `Job.lastError`, pg-boss job output) and
 * logged: the error's name and message, one line, bounded. No stack, no payload.
 */
export function describeError(error: unknown, maxLength = 1000): string {
  let text: string;
  if (error instanceof Error) text = error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  else if (typeof error === 'string') text = error;
  else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  text = text.replace(/\s+/g, ' ').trim() || 'unknown error';
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

/**
 * Reads back an error recorded by a previous attempt: our own `{ message }`
 * output, pg-boss's `{ value: { message } }` (expiry) or `{ value: '...' }`
 * (shutdown), or SQLite's `lastError` text.
 */
export function recordedErrorMessage(recorded: unknown): string | null {
  if (recorded === null || recorded === undefined) return null;
  if (typeof recorded === 'string') return recorded || null;
  if (typeof recorded !== 'object') return String(recorded);
  const o = recorded as { message?: unknown; value?: unknown };
  if (typeof o.message === 'string') return o.message;
  if (typeof o.value === 'string') return o.value;
  if (typeof o.value === 'object' && o.value !== null && typeof (o.value as { message?: unknown }).message === 'string') {
    return (o.value as { message: string }).message;
  }
  return Object.keys(o).length ? describeError(o) : null;
}

/**
 * The wait before the next poll of an idle loop (the SQLite queue, the inbox, the Flow relay).
 * After a pass that found work, the base interval; after one that found nothing, twice the last
 * wait, up to `maxMs`. Work this process creates wakes the loop itself, so the idle polls are for
 * other processes' work and rows due by time: an idle app's polls were about half its CPU
 * (docs/benchmarks.md, twenty-third session).
 */
export function nextPollMs(lastMs: number, baseMs: number, maxMs: number, found: boolean): number {
  return found ? baseMs : Math.min(maxMs, Math.max(baseMs, lastMs * 2));
}

/**
 * When jobs this process enqueued (or retried) with a delay come due, so the queue wakes then
 * instead of waiting for an idle poll. Ascending; at most `limit` kept (the latest are dropped,
 * and an idle poll finds those).
 */
export class DueTimes {
  readonly #times: number[] = [];
  readonly limit: number;
  constructor(limit = 1024) {
    this.limit = limit;
  }

  add(at: number): void {
    const t = this.#times;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.limit) return;
    t.splice(lo, 0, at);
    if (t.length > this.limit) t.pop();
  }

  /** Forgets the times a claim that started at `passedAt` has seen; the earliest left, or Infinity. */
  next(passedAt: number): number {
    const t = this.#times;
    let n = 0;
    while (n < t.length && t[n]! <= passedAt) n++;
    if (n > 0) t.splice(0, n);
    return t[0] ?? Infinity;
  }

  get size(): number {
    return this.#times.length;
  }
}
