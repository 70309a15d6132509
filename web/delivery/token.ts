// Bearer token cache, one entry per key (e.g. `${shop}:${environment}`).
// - Concurrent callers for a key share one in-flight token request.
// - An entry remembers a fingerprint of (base URL, client id, client secret): rotated
//   credentials miss the cache instead of reusing a token issued to the old ones.
// - Tokens live until expires_in minus a safety margin; without expires_in we assume
//   DEFAULT_TOKEN_LIFETIME_SEC (the spec does not show the lifetime).
import { createHash } from 'node:crypto';

export const DEFAULT_TOKEN_LIFETIME_SEC = 300;
const MAX_MARGIN_SEC = 60;

export interface CachedToken {
  accessToken: string;
  /** Epoch ms after which we stop using the token (already minus the safety margin). */
  expiresAt: number;
  tokenType?: string;
  scope?: string;
}

/** When to stop using a token: lifetime minus min(60 s, 10 % of it). */
export function tokenExpiresAt(nowMs: number, expiresInSec: number | undefined): number {
  const life = expiresInSec !== undefined && Number.isFinite(expiresInSec) && expiresInSec > 0 ? expiresInSec : DEFAULT_TOKEN_LIFETIME_SEC;
  const margin = Math.min(MAX_MARGIN_SEC, life * 0.1);
  return nowMs + Math.floor((life - margin) * 1000);
}

export function credentialFingerprint(baseUrl: string, clientId: string, clientSecret: string): string {
  return createHash('sha256').update(`${baseUrl}\0${clientId}\0${clientSecret}`).digest('hex');
}

export class TokenCache {
  readonly #entries = new Map<string, { fp: string; token: CachedToken }>();
  readonly #inflight = new Map<string, Promise<CachedToken>>();

  /** A still-valid token for the key and credentials, if cached. */
  get(key: string, fp: string, nowMs: number): CachedToken | undefined {
    const e = this.#entries.get(key);
    return e && e.fp === fp && e.token.expiresAt > nowMs ? e.token : undefined;
  }

  set(key: string, fp: string, token: CachedToken): void {
    this.#entries.set(key, { fp, token });
  }

  /** Cached token, or one shared fetch for all concurrent callers of this key and credentials. */
  async getOrFetch(key: string, fp: string, nowMs: number, fetcher: () => Promise<CachedToken>, force = false): Promise<CachedToken> {
    if (!force) {
      const hit = this.get(key, fp, nowMs);
      if (hit) return hit;
    }
    const flightKey = `${key}\0${fp}`;
    const pending = this.#inflight.get(flightKey);
    if (pending) return pending;
    const p = (async () => {
      try {
        const token = await fetcher();
        this.set(key, fp, token);
        return token;
      } finally {
        this.#inflight.delete(flightKey);
      }
    })();
    this.#inflight.set(flightKey, p);
    return p;
  }

  /** Drops the key's token, but only if it is still the one that failed (a fresher one stays). */
  invalidate(key: string, accessToken?: string): void {
    const e = this.#entries.get(key);
    if (e && (accessToken === undefined || e.token.accessToken === accessToken)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The process-wide default cache. */
export const defaultTokenCache = new TokenCache();
