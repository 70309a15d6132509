// App Bridge session tokens, as Shopify issues them: a JWT signed HS256 with
// the app's API secret (https://shopify.dev/docs/apps/build/authentication-authorization/session-tokens).
import { createHmac, randomUUID } from 'node:crypto';
import { TEST_API_KEY, TEST_API_SECRET } from './app.ts';

export interface SessionTokenOptions {
  apiKey?: string;
  apiSecret?: string;
  /** The staff member's user id (`sub`). */
  userId?: string;
  /** Lifetime in seconds (Shopify's are 60 s). */
  ttlSec?: number;
  /** Seconds since the epoch; default now. */
  now?: number;
  /** Claims to override or add (e.g. a wrong `aud` for a negative test). */
  claims?: Record<string, unknown>;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

export function signJwtHs256(payload: Record<string, unknown>, secret: string): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(payload));
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** A session token for `shop` (my-store.myshopify.com), valid now. */
export function sessionToken(shop: string, opts: SessionTokenOptions = {}): string {
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const payload = {
    iss: `https://${shop}/admin`,
    dest: `https://${shop}`,
    aud: opts.apiKey ?? TEST_API_KEY,
    sub: opts.userId ?? '42',
    exp: now + (opts.ttlSec ?? 60),
    nbf: now - 1,
    iat: now - 1,
    jti: randomUUID(),
    sid: randomUUID(),
    ...opts.claims,
  };
  return signJwtHs256(payload, opts.apiSecret ?? TEST_API_SECRET);
}

export function bearer(shop: string, opts: SessionTokenOptions = {}): { authorization: string } {
  return { authorization: `Bearer ${sessionToken(shop, opts)}` };
}
