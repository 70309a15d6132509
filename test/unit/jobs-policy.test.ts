// Pure job-queue policy (web/jobs/policy.ts, and the job half of web/retry/policy.ts): tables, no I/O.
import { describe, expect, it } from 'vitest';
import {
  assertQueueName,
  bucketJobId,
  describeError,
  DueTimes,
  MAX_ATTEMPTS_BY_WORKER,
  nextPollMs,
  msUntilNextBucket,
  pgBossJobRetryLimit,
  pgBossQueueRetry,
  recordedErrorMessage,
  resolveMaxAttempts,
  timeBucket,
} from '../../web/jobs/policy.ts';
import {
  afterFailure,
  jobBackoffDelay as backoffDelayMs,
  DEFAULT_JOB_RETRY as DEFAULT_RETRY,
  isRetryable,
  resolveJobRetryPolicy as resolveRetryPolicy,
} from '../../web/retry/policy.ts';
import { PermanentJobError } from '../../web/jobs/queue.ts';

describe('backoffDelayMs', () => {
  const p = { baseDelayMs: 1000, maxDelayMs: 60_000 };
  it.each([
    // attempt, random, expected: base * 2^(attempt-1) * (1 + random), capped
    [1, 0, 1000],
    [1, 0.5, 1500],
    [1, 0.999, 1999],
    [2, 0, 2000],
    [2, 1, 4000],
    [3, 0, 4000],
    [4, 0.25, 10_000],
    [6, 0, 32_000],
    [7, 0, 60_000], // 64 s, capped
    [50, 0.9, 60_000], // exponent stops at 16; still capped
    [0, 0, 1000], // a nonsense attempt is treated as the first
    [1, -3, 1000], // random is clamped to [0, 1]
    [1, 7, 2000],
  ])('attempt %i, random %f → %i ms', (attempt, random, expected) => {
    expect(backoffDelayMs(p, attempt, random)).toBe(expected);
  });

  it('never decreases from one attempt to the next at the same random, and never exceeds the cap', () => {
    for (const r of [0, 0.3, 0.99]) {
      let last = 0;
      for (let a = 1; a <= 30; a++) {
        const d = backoffDelayMs(p, a, r);
        expect(d).toBeGreaterThanOrEqual(last);
        expect(d).toBeLessThanOrEqual(p.maxDelayMs);
        last = d;
      }
    }
  });

  it('the lowest delay of attempt n+1 is at least the highest of attempt n (below the cap)', () => {
    for (let a = 1; a <= 4; a++) expect(backoffDelayMs(p, a + 1, 0)).toBeGreaterThanOrEqual(backoffDelayMs(p, a, 1));
  });

  it('zero base means immediate retries', () => {
    expect(backoffDelayMs({ baseDelayMs: 0, maxDelayMs: 0 }, 3, 0.5)).toBe(0);
  });
});

describe('afterFailure', () => {
  it.each([
    [1, 3, true, 'retry'],
    [2, 3, true, 'retry'],
    [3, 3, true, 'exhausted'],
    [4, 3, true, 'exhausted'],
    [1, 1, true, 'exhausted'],
    [1, 3, false, 'exhausted'],
  ] as const)('attempt %i of %i, retryable %s → %s', (attempt, max, retryable, expected) => {
    expect(afterFailure(attempt, max, retryable)).toBe(expected);
  });
});

describe('isRetryable', () => {
  it.each([
    [new Error('x'), true],
    [Object.assign(new Error('x'), { retryable: false }), false],
    [Object.assign(new Error('x'), { retryable: true }), true],
    [Object.assign(new Error('x'), { retryable: 'no' }), true],
    [new PermanentJobError('bad order'), false],
    [{ retryable: false }, false],
    ['a string', true],
    [null, true],
    [undefined, true],
  ])('%o → %s', (error, expected) => {
    expect(isRetryable(error)).toBe(expected);
  });
});

describe('resolveRetryPolicy', () => {
  it('layers overrides over the base', () => {
    expect(resolveRetryPolicy(DEFAULT_RETRY, { maxAttempts: 2 }, undefined, { baseDelayMs: 10, maxDelayMs: 20 })).toEqual({
      maxAttempts: 2,
      baseDelayMs: 10,
      maxDelayMs: 20,
    });
  });
  it.each([
    [{ maxAttempts: 0 }, /maxAttempts/],
    [{ maxAttempts: 1.5 }, /maxAttempts/],
    [{ baseDelayMs: -1 }, /baseDelayMs/],
    [{ baseDelayMs: 100, maxDelayMs: 50 }, /maxDelayMs/],
  ])('rejects %o', (override, message) => {
    expect(() => resolveRetryPolicy(DEFAULT_RETRY, override)).toThrow(message);
  });
});

describe('pg-boss retry settings', () => {
  const byWorker = MAX_ATTEMPTS_BY_WORKER.pgBossRetryLimit;
  it.each([
    // worker policy → queue columns: delays in whole seconds (>= 1); the limit is left to the worker
    [{ maxAttempts: 5, baseDelayMs: 5000, maxDelayMs: 600_000 }, { retryLimit: byWorker, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 }],
    [{ maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 400 }, { retryLimit: byWorker, retryDelay: 1, retryBackoff: true, retryDelayMax: 1 }],
    [{ maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 }, { retryLimit: byWorker, retryDelay: 1, retryBackoff: true, retryDelayMax: 1 }],
    [{ maxAttempts: 3, baseDelayMs: 1500, maxDelayMs: 2500 }, { retryLimit: byWorker, retryDelay: 2, retryBackoff: true, retryDelayMax: 3 }],
  ])('%o → %o', (policy, expected) => {
    expect(pgBossQueueRetry(policy)).toEqual(expected);
  });
  it.each([1, 3, 1000])('a job with its own maxAttempts %i gets retry_limit = maxAttempts (one claim to spare)', (n) => {
    expect(pgBossJobRetryLimit(n)).toBe(n);
  });
});

describe('resolveMaxAttempts', () => {
  it.each([
    // stored on the job, worker's policy → effective
    [3, 10, 3],
    [1, 10, 1],
    [1000, 10, 1000],
    [MAX_ATTEMPTS_BY_WORKER.sqlite, 10, 10],
    [MAX_ATTEMPTS_BY_WORKER.pgBossRetryLimit, 10, 10],
    [2, 1, 2],
  ])('stored %i, worker %i → %i', (stored, worker, expected) => {
    expect(resolveMaxAttempts(stored, worker)).toBe(expected);
  });
});

describe('time buckets', () => {
  it.each([
    [0, 1000, 0, 1000],
    [999, 1000, 0, 1],
    [1000, 1000, 1, 1000],
    [1_700_000_000_123, 60_000, 28_333_333, 60_000 - 20_123],
  ])('now %i, interval %i → bucket %i, next in %i ms', (now, interval, bucket, next) => {
    expect(timeBucket(now, interval)).toBe(bucket);
    expect(msUntilNextBucket(now, interval)).toBe(next);
  });
  it.each([0, 5, 1.5, -1000, Number.NaN])('rejects interval %f', (interval) => {
    expect(() => timeBucket(0, interval)).toThrow(/interval/);
  });
});

describe('bucketJobId', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  it('is a stable, well-formed UUID per (name, interval, bucket)', () => {
    const a = bucketJobId('sweep', 60_000, 42);
    expect(a).toMatch(UUID);
    expect(bucketJobId('sweep', 60_000, 42)).toBe(a);
  });
  it.each([
    ['sweep', 60_000, 43],
    ['sweep', 30_000, 42],
    ['other', 60_000, 42],
  ])('differs for %s/%i/%i', (name, interval, bucket) => {
    expect(bucketJobId(name, interval, bucket)).not.toBe(bucketJobId('sweep', 60_000, 42));
    expect(bucketJobId(name, interval, bucket)).toMatch(UUID);
  });
});

describe('describeError / recordedErrorMessage', () => {
  it.each([
    [new Error('courier 503'), 'courier 503'],
    [new TypeError('bad\n  input'), 'TypeError: bad input'],
    [new PermanentJobError('no address'), 'PermanentJobError: no address'],
    ['plain', 'plain'],
    [{ code: 'E1' }, '{"code":"E1"}'],
    [undefined, 'undefined'],
    [new Error(''), 'unknown error'],
  ])('%o → %s', (error, expected) => {
    expect(describeError(error)).toBe(expected);
  });
  it('bounds the length', () => {
    expect(describeError(new Error('x'.repeat(5000)), 100)).toHaveLength(100);
  });
  it.each([
    [{ message: 'ours' }, 'ours'],
    [{ value: { message: 'job timed out' } }, 'job timed out'],
    [{ value: 'pg-boss shut down while active' }, 'pg-boss shut down while active'],
    ['sqlite lastError', 'sqlite lastError'],
    ['', null],
    [null, null],
    [undefined, null],
    [{}, null],
  ])('%o → %s', (recorded, expected) => {
    expect(recordedErrorMessage(recorded)).toBe(expected);
  });
});

describe('assertQueueName', () => {
  it.each(['dispatch', 'shopify.writeback', 'a/b-c_d'])('accepts %s', (n) => expect(() => assertQueueName(n)).not.toThrow());
  it.each(['', 'has space', 'colon:name', 'x'.repeat(101)])('rejects %j', (n) => expect(() => assertQueueName(n)).toThrow());
});

describe('nextPollMs (idle polls back off, work brings them back)', () => {
  it.each([
    // last, base, max, found → next
    [250, 250, 2000, false, 500],
    [500, 250, 2000, false, 1000],
    [1000, 250, 2000, false, 2000],
    [2000, 250, 2000, false, 2000],
    [2000, 250, 2000, true, 250],
    [250, 250, 2000, true, 250],
    [100, 250, 2000, false, 250], // never below the base
    [250, 250, 250, false, 250], // a max at the base: no backoff
  ])('last %i, base %i, max %i, found %s → %i', (last, base, max, found, next) => {
    expect(nextPollMs(last, base, max, found)).toBe(next);
  });
});

describe('DueTimes (when delayed jobs of this process come due)', () => {
  it('gives the earliest time after a pass, forgetting the ones the pass saw', () => {
    const d = new DueTimes();
    for (const t of [300, 100, 200, 200]) d.add(t);
    expect(d.next(0)).toBe(100);
    expect(d.next(100)).toBe(200);
    expect(d.size).toBe(3);
    expect(d.next(250)).toBe(300);
    expect(d.next(300)).toBe(Infinity);
    expect(d.size).toBe(0);
  });

  it('keeps at most its limit, dropping the latest', () => {
    const d = new DueTimes(2);
    d.add(30);
    d.add(10);
    d.add(40); // beyond the limit and later than both: not kept
    d.add(20); // earlier: kept, 30 dropped
    expect(d.size).toBe(2);
    expect(d.next(10)).toBe(20);
    expect(d.next(20)).toBe(Infinity);
  });
});
