import { describe, expect, it } from 'vitest';
import { credentialFingerprint, DEFAULT_TOKEN_LIFETIME_SEC, TokenCache, tokenExpiresAt, type CachedToken } from '../../web/delivery/token.ts';

const T0 = 1_000_000;

describe('tokenExpiresAt', () => {
  it.each([
    ['1 hour: 60 s margin', 3600, T0 + 3540_000],
    ['5 minutes: 30 s margin (10 %)', 300, T0 + 270_000],
    ['10 s: 1 s margin', 10, T0 + 9_000],
    ['absent: the documented default', undefined, T0 + (DEFAULT_TOKEN_LIFETIME_SEC - 30) * 1000],
    ['zero: treated as absent', 0, T0 + 270_000],
    ['negative: treated as absent', -5, T0 + 270_000],
  ])('%s', (_name, expiresIn, expected) => {
    expect(tokenExpiresAt(T0, expiresIn)).toBe(expected);
  });
});

describe('TokenCache', () => {
  const fp = credentialFingerprint('https://c.example', 'id', 'secret');
  const token = (n: number, expiresAt = T0 + 60_000): CachedToken => ({ accessToken: `tok_${n}`, expiresAt });

  it('shares one in-flight fetch between concurrent callers and then serves from cache', async () => {
    const cache = new TokenCache();
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fetcher = async () => {
      fetches++;
      await gate;
      return token(fetches);
    };
    const all = Array.from({ length: 50 }, () => cache.getOrFetch('shop:test', fp, T0, fetcher));
    release();
    const got = await Promise.all(all);
    expect(fetches).toBe(1);
    expect(new Set(got.map((t) => t.accessToken))).toEqual(new Set(['tok_1']));
    await cache.getOrFetch('shop:test', fp, T0 + 1, fetcher);
    expect(fetches).toBe(1);
  });

  it('refetches after expiry, per key, and when the credentials change', async () => {
    const cache = new TokenCache();
    let n = 0;
    const fetcher = async () => token(++n);
    await cache.getOrFetch('a', fp, T0, fetcher);
    expect((await cache.getOrFetch('a', fp, T0 + 60_000, fetcher)).accessToken).toBe('tok_2'); // expired at its expiresAt
    expect((await cache.getOrFetch('b', fp, T0, fetcher)).accessToken).toBe('tok_3'); // another key
    const rotated = credentialFingerprint('https://c.example', 'id', 'new-secret');
    expect((await cache.getOrFetch('a', rotated, T0, fetcher)).accessToken).toBe('tok_4');
    expect(cache.size).toBe(2);
  });

  it('invalidates only the token that failed, so a fresher one survives', async () => {
    const cache = new TokenCache();
    cache.set('a', fp, token(2));
    cache.invalidate('a', 'tok_1');
    expect(cache.get('a', fp, T0)?.accessToken).toBe('tok_2');
    cache.invalidate('a', 'tok_2');
    expect(cache.get('a', fp, T0)).toBeUndefined();
  });

  it('passes a failed fetch to every waiter and does not cache it', async () => {
    const cache = new TokenCache();
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('refused');
    };
    const results = await Promise.allSettled([cache.getOrFetch('a', fp, T0, failing), cache.getOrFetch('a', fp, T0, failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect((await cache.getOrFetch('a', fp, T0, async () => token(7))).accessToken).toBe('tok_7');
  });

  it('force bypasses a valid cached token', async () => {
    const cache = new TokenCache();
    cache.set('a', fp, token(1));
    expect((await cache.getOrFetch('a', fp, T0, async () => token(2), true)).accessToken).toBe('tok_2');
  });
});
