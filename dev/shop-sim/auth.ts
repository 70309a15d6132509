// Shopify's signatures and tokens as the simulator issues and checks them: App Bridge session
// tokens (HS256 JWTs), the OAuth query hmac, the webhook body hmac, and the token exchange
// constants. Pure functions.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Shopify's token exchange grant (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/token-exchange). */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const OFFLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:offline-access-token';
export const ONLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:online-access-token';
const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** An App Bridge session token as Shopify issues it: HS256 under the app's secret. */
export function signSessionToken(claims: Record<string, unknown>, secret: string): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claims));
  return `${head}.${body}.${createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url')}`;
}

/** Verifies a session token; returns its claims or why it is not valid. */
export function verifySessionToken(token: string, o: { apiKey: string; apiSecret: string; shop: string; now?: number }): { claims: Record<string, any> } | { error: string } {
  const parts = token.split('.');
  if (parts.length !== 3) return { error: 'not a JWT' };
  const expected = createHmac('sha256', o.apiSecret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { error: 'signature does not verify with the app secret' };
  let claims: Record<string, any>;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return { error: 'payload is not JSON' };
  }
  const now = Math.floor((o.now ?? Date.now()) / 1000);
  if (claims.aud !== o.apiKey) return { error: 'aud is not this app\'s client id' };
  if (typeof claims.exp !== 'number' || claims.exp <= now) return { error: 'the session token has expired' };
  if (typeof claims.nbf === 'number' && claims.nbf > now + 5) return { error: 'the session token is not valid yet' };
  let dest: string | null = null;
  try {
    dest = new URL(String(claims.dest)).hostname;
  } catch {
    /* below */
  }
  if (dest !== o.shop) return { error: `dest ${String(claims.dest)} is not https://${o.shop}` };
  return { claims };
}

export function normalizeShop(input: string): string {
  const s = input.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/+$/, '');
  return s.includes('.') ? s : `${s}.myshopify.com`;
}

/**
 * The hmac Shopify puts on the OAuth redirect: hex HMAC-SHA256 under the API
 * secret over the other query parameters, sorted by name and form-encoded
 * with %20 for spaces; exactly what @shopify/shopify-api's validateHmac
 * recomputes (utils/hmac-validator: stringifyQueryForAdmin).
 */
export function signOAuthQuery(params: Record<string, string>, secret: string): string {
  const q = new URLSearchParams();
  for (const k of Object.keys(params).filter((k) => k !== 'hmac' && k !== 'signature').sort((a, b) => a.localeCompare(b))) q.append(k, params[k]!);
  return createHmac('sha256', secret).update(q.toString().replace(/\+/g, '%20')).digest('hex');
}

/** Shopify's webhook signature: base64 HMAC-SHA256 of the raw body. */
export function signWebhookBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}
