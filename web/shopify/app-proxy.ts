// Shopify's app proxy signature (shopify.dev, "Authenticate app proxies"): Shopify adds
// shop, logged_in_customer_id, path_prefix, timestamp and signature to the query. The
// signature is the hex HMAC-SHA256, with the app secret, of every other parameter as
// "key=value" (a repeated key's values joined with ","), sorted and joined with nothing
// between. Like Shopify's library we also refuse a timestamp more than 90 s away and a
// repeated shop, timestamp or signature. Pure: the clock is a parameter.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PROXY_MAX_SKEW_MS = 90_000;

export type ProxyCheck =
  | { ok: true; shop: string; customerId: string | null }
  | { ok: false; reason: 'missing' | 'forged' | 'stale' | 'malformed' };

/** The message Shopify signs, from a raw query string ("a=1&b=2"). */
export function proxyMessage(params: URLSearchParams): string {
  const values = new Map<string, string[]>();
  for (const [k, v] of params) if (k !== 'signature') values.set(k, [...(values.get(k) ?? []), v]);
  return [...values].map(([k, vs]) => `${k}=${vs.join(',')}`).sort().join('');
}

/** Signs a query the way Shopify does (for our tests and the development stand-in). */
export function signProxyQuery(params: URLSearchParams, secret: string): string {
  return createHmac('sha256', secret).update(proxyMessage(params)).digest('hex');
}

export function verifyAppProxy(query: string, secret: string, now: number): ProxyCheck {
  const params = new URLSearchParams(query);
  const signature = params.getAll('signature');
  if (!signature[0]) return { ok: false, reason: 'missing' };
  if (signature.length > 1 || params.getAll('shop').length !== 1 || params.getAll('timestamp').length !== 1) return { ok: false, reason: 'malformed' };
  const given = /^[0-9a-f]{64}$/i.test(signature[0]) ? Buffer.from(signature[0], 'hex') : null;
  const expected = createHmac('sha256', secret).update(proxyMessage(params)).digest();
  if (!given || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const ts = Number(params.get('timestamp'));
  if (!/^\d{1,12}$/.test(params.get('timestamp')!) || Math.abs(now - ts * 1000) > PROXY_MAX_SKEW_MS) return { ok: false, reason: 'stale' };
  return { ok: true, shop: params.get('shop')!, customerId: params.get('logged_in_customer_id') || null };
}
