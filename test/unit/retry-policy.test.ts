// The shared parts of web/retry: the job delay's Retry-After floor, "never sent",
// the retry scopes, the budget arithmetic and the in-process loop. Tables, no I/O.
import { describe, expect, it } from 'vitest';
import { jobRetryDelay, neverSent, retryAfterOf, worstCaseRequests } from '../../web/retry/policy.ts';
import { mayRetry, RetrySignal, withRetries, type RetryScope } from '../../web/retry/run.ts';

describe('retryAfterOf', () => {
  it.each([
    ['a positive number', { retryAfterMs: 1500 }, 1500],
    ['zero', { retryAfterMs: 0 }, undefined],
    ['negative', { retryAfterMs: -5 }, undefined],
    ['not finite', { retryAfterMs: Infinity }, undefined],
    ['a string', { retryAfterMs: '1500' }, undefined],
    ['absent', new Error('x'), undefined],
    ['not an object', 'boom', undefined],
    ['null', null, undefined],
  ])('%s', (_name, error, expected) => {
    expect(retryAfterOf(error)).toBe(expected);
  });
});

describe('jobRetryDelay', () => {
  const p = { baseDelayMs: 1000, maxDelayMs: 60_000 };
  it.each([
    ['no Retry-After: the backoff', new Error('x'), 1, 0, 1000],
    ['a shorter Retry-After: the backoff', { retryAfterMs: 400 }, 2, 0, 2000],
    ['a longer Retry-After: the wait asked for', { retryAfterMs: 7_000 }, 2, 0, 7_000],
    ['above the cap too: Retry-After is a floor, never shortened', { retryAfterMs: 120_000 }, 1, 0, 120_000],
  ])('%s', (_name, error, attempt, random, expected) => {
    expect(jobRetryDelay(p, attempt, random, error)).toBe(expected);
  });
});

describe('neverSent', () => {
  it.each([
    ['ECONNREFUSED', { code: 'ECONNREFUSED' }, true],
    ['a connect timeout, as the cause', { cause: { code: 'UND_ERR_CONNECT_TIMEOUT' } }, true],
    ['ENOTFOUND', { code: 'ENOTFOUND' }, true],
    ['EAI_AGAIN', { code: 'EAI_AGAIN' }, true],
    ['a reset after sending', { code: 'ECONNRESET' }, false],
    ['a headers timeout', { code: 'UND_ERR_HEADERS_TIMEOUT' }, false],
    ['nothing', undefined, false],
  ])('%s -> %s', (_name, e, expected) => {
    expect(neverSent(e)).toBe(expected);
  });
});

describe('mayRetry', () => {
  const unsent = new RetrySignal('refused');
  const sent = new RetrySignal('timed out', { sent: true });
  const answered = new RetrySignal('HTTP 503', { status: 503, answered: true });
  it.each([
    ['any', unsent, true], ['any', sent, true], ['any', answered, true],
    ['unsent', unsent, true], ['unsent', sent, false], ['unsent', answered, false],
    ['never', unsent, false], ['never', sent, false], ['never', answered, false],
  ] as Array<[RetryScope, RetrySignal, boolean]>)('%s, %o -> %s', (scope, s, expected) => {
    expect(mayRetry(scope, s)).toBe(expected);
  });
});

describe('worstCaseRequests', () => {
  it('multiplies the attempts of nested layers', () => {
    expect(worstCaseRequests()).toBe(1);
    expect(worstCaseRequests(10)).toBe(10);
    expect(worstCaseRequests(10, 5)).toBe(50);
    expect(worstCaseRequests(10, 1, 2)).toBe(20);
  });
  it.each([0, -1, 1.5, NaN])('refuses %s attempts', (n) => {
    expect(() => worstCaseRequests(10, n)).toThrow(RangeError);
  });
});

describe('withRetries', () => {
  function loop(maxAttempts = 4) {
    const sleeps: number[] = [];
    const clock = { now: 0 };
    return {
      sleeps,
      loop: {
        policy: { maxAttempts, baseDelayMs: 100, maxDelayMs: 1_000, deadlineMs: 60_000 },
        requestTimeoutMs: 5_000,
        now: () => clock.now,
        sleep: async (ms: number) => void (sleeps.push(ms), (clock.now += ms)),
        random: () => 0,
      },
    };
  }
  const giveUp = (s: RetrySignal, attempt: number, reason: string) => new Error(`${s.problem} after ${attempt}: ${reason}`);

  it('retries until an attempt succeeds, with the policy backoff', async () => {
    const { loop: l, sleeps } = loop();
    let n = 0;
    const r = await withRetries(l, 'any', async () => (++n < 3 ? Promise.reject(new RetrySignal('HTTP 503', { answered: true })) : 'ok'), { giveUp });
    expect(r).toBe('ok');
    expect(sleeps).toEqual([50, 100]);
  });

  it('stops after maxAttempts', async () => {
    const { loop: l } = loop(3);
    await expect(withRetries(l, 'any', async () => Promise.reject(new RetrySignal('HTTP 503')), { giveUp })).rejects.toThrow('HTTP 503 after 3: attempts_exhausted');
  });

  it("'unsent' gives up at once on an answer, and retries what never left", async () => {
    const { loop: l, sleeps } = loop();
    await expect(withRetries(l, 'unsent', async () => Promise.reject(new RetrySignal('HTTP 503', { answered: true })), { giveUp })).rejects.toThrow('after 1: not_retried');
    expect(sleeps).toEqual([]);
    let n = 0;
    expect(await withRetries(l, 'unsent', async () => (++n < 2 ? Promise.reject(new RetrySignal('refused')) : n), { giveUp })).toBe(2);
  });

  it('honours Retry-After as a floor', async () => {
    const { loop: l, sleeps } = loop();
    let n = 0;
    await withRetries(l, 'any', async () => (++n < 2 ? Promise.reject(new RetrySignal('HTTP 429', { retryAfterMs: 3_000 })) : n), { giveUp });
    expect(sleeps).toEqual([3_000]);
  });

  it('lets other errors through, and check() replace a signal', async () => {
    const { loop: l } = loop();
    await expect(withRetries(l, 'any', async () => Promise.reject(new TypeError('bug')), { giveUp })).rejects.toThrow(TypeError);
    const check = () => {
      throw new RangeError('outcome unknown');
    };
    await expect(withRetries(l, 'any', async () => Promise.reject(new RetrySignal('timed out', { sent: true })), { giveUp, check })).rejects.toThrow(RangeError);
  });
});
