import { describe, expect, it } from 'vitest';
import { httpBackoffDelay as backoffDelay, isRetryableStatus, nextRetry, parseRetryAfter, resolveHttpRetryPolicy as resolveRetryPolicy, type HttpRetryPolicy as RetryPolicy } from '../../web/retry/policy.ts';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, deadlineMs: 10_000 };
const NOW = Date.parse('2025-01-01T00:00:00Z');

describe('isRetryableStatus', () => {
  it.each([
    [408, true], [425, true], [429, true], [500, true], [502, true], [503, true], [504, true], [599, true],
    [501, false], [505, false], [400, false], [401, false], [403, false], [404, false], [409, false], [422, false], [200, false], [201, false],
  ])('%i -> %s', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['delta seconds', '3', 3_000],
    ['zero', '0', 0],
    ['fractional seconds', '1.5', 1_500],
    ['padded', ' 2 ', 2_000],
    ['HTTP date 10 s ahead', new Date(NOW + 10_000).toUTCString(), 10_000],
    ['HTTP date in the past', new Date(NOW - 10_000).toUTCString(), 0],
    ['first of several values', ['4', '9'], 4_000],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['garbage', 'soon', undefined],
    ['negative', '-5', undefined],
    ['a large delta-seconds value', '2025', 2_025_000],
  ] as const)('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value as string | string[] | undefined, NOW)).toBe(expected);
  });
});

describe('backoffDelay', () => {
  it.each([
    // attempt, random, expected: step = min(max, base * 2^(attempt-1)); delay = step/2 + step/2 * random
    [1, 0, 50], [1, 1, 100], [2, 0, 100], [2, 0.5, 150], [3, 1, 400], [4, 0, 400], [5, 1, 1_000], [10, 1, 1_000], [10, 0, 500],
  ])('attempt %i, random %f -> %i ms', (attempt, r, expected) => {
    expect(backoffDelay(attempt, policy, () => r)).toBe(expected);
  });

  it('grows with the attempt number whatever the jitter', () => {
    for (let a = 1; a < 4; a++) expect(backoffDelay(a + 1, policy, () => 0)).toBeGreaterThanOrEqual(backoffDelay(a, policy, () => 1));
  });
});

describe('nextRetry', () => {
  const r = () => 1;
  it.each([
    ['first failure', { attempt: 1, elapsedMs: 0 }, { retry: true, delayMs: 100 }],
    ['fourth failure', { attempt: 4, elapsedMs: 0 }, { retry: true, delayMs: 800 }],
    ['attempts used up', { attempt: 5, elapsedMs: 0 }, { retry: false, reason: 'attempts_exhausted' }],
    ['Retry-After longer than the backoff wins', { attempt: 1, elapsedMs: 0, retryAfterMs: 3_000 }, { retry: true, delayMs: 3_000 }],
    ['Retry-After shorter than the backoff does not shorten it', { attempt: 3, elapsedMs: 0, retryAfterMs: 10 }, { retry: true, delayMs: 400 }],
    ['Retry-After beyond maxDelayMs is still honoured', { attempt: 1, elapsedMs: 0, retryAfterMs: 5_000 }, { retry: true, delayMs: 5_000 }],
    ['Retry-After past the deadline stops', { attempt: 1, elapsedMs: 0, retryAfterMs: 60_000 }, { retry: false, reason: 'deadline_exhausted' }],
    ['deadline nearly used', { attempt: 2, elapsedMs: 9_900 }, { retry: false, reason: 'deadline_exhausted' }],
    ['deadline already passed', { attempt: 1, elapsedMs: 10_001 }, { retry: false, reason: 'deadline_exhausted' }],
  ] as const)('%s', (_name, input, expected) => {
    expect(nextRetry({ ...input, policy, random: r })).toEqual(expected);
  });

  it('a policy of one attempt never retries', () => {
    expect(nextRetry({ attempt: 1, elapsedMs: 0, policy: { ...policy, maxAttempts: 1 }, random: r })).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });
});

describe('resolveRetryPolicy', () => {
  it('fills defaults, ignores undefined and clamps nonsense', () => {
    expect(resolveRetryPolicy({ baseDelayMs: 5, maxAttempts: undefined })).toMatchObject({ baseDelayMs: 5, maxAttempts: 5 });
    expect(resolveRetryPolicy({ maxAttempts: 0, baseDelayMs: -1 })).toMatchObject({ maxAttempts: 1, baseDelayMs: 0 });
  });
});
