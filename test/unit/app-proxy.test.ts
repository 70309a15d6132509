// Shopify's app proxy signature (web/shopify/app-proxy.ts), as shopify.dev documents it:
// sorted "key=value" pairs, a repeated key's values joined with ",", hex HMAC-SHA256.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { proxyMessage, signProxyQuery, verifyAppProxy } from '../../web/shopify/app-proxy.ts';

const SECRET = 'hush';
const NOW = Date.parse('2026-11-27T10:00:00Z');
const TS = String(NOW / 1000);

function signed(pairs: Array<[string, string]>, secret = SECRET): string {
  const p = new URLSearchParams(pairs);
  p.append('signature', signProxyQuery(p, secret));
  return p.toString();
}
const base = (): Array<[string, string]> => [['shop', 'a-shop.myshopify.com'], ['logged_in_customer_id', ''], ['path_prefix', '/apps/same-day'], ['timestamp', TS]];

describe('the signed message', () => {
  it("is shopify.dev's example: extra=1,2 and the rest sorted, nothing between", () => {
    // From shopify.dev/docs/apps/build/online-store/app-proxies/authenticate-app-proxies.
    const q = new URLSearchParams('extra=1&extra=2&shop=shop-name.myshopify.com&logged_in_customer_id=1&path_prefix=%2Fapps%2Fawesome_reviews&timestamp=1317327555&signature=4c68c8624d737112c91818c11017d24d334b524cb5c2b8ba08daa056f7395ddb');
    expect(proxyMessage(q)).toBe('extra=1,2logged_in_customer_id=1path_prefix=/apps/awesome_reviewsshop=shop-name.myshopify.comtimestamp=1317327555');
    // The documented signature, with the documented secret.
    expect(verifyAppProxy(q.toString(), 'hush', 1317327555_000)).toEqual({ ok: true, shop: 'shop-name.myshopify.com', customerId: '1' });
  });
  it("the docs' earlier example, without logged_in_customer_id", () => {
    const q = 'extra=1&extra=2&shop=shop-name.myshopify.com&path_prefix=%2Fapps%2Fawesome_reviews&timestamp=1317327555&signature=a9718877bea71c2484f91608a7eaea1532bdf71f5c56825065fa4ccabe549ef3';
    expect(verifyAppProxy(q, 'hush', 1317327555_000)).toEqual({ ok: true, shop: 'shop-name.myshopify.com', customerId: null });
  });
});

describe('verifyAppProxy', () => {
  it('valid: the shop, no customer when logged out', () => {
    expect(verifyAppProxy(signed([...base(), ['location', '42']]), SECRET, NOW)).toEqual({ ok: true, shop: 'a-shop.myshopify.com', customerId: null });
  });
  it('valid with a repeated parameter', () => {
    expect(verifyAppProxy(signed([...base(), ['x', '1'], ['x', '2']]), SECRET, NOW).ok).toBe(true);
  });
  it.each<[string, string, string]>([
    ['missing signature', new URLSearchParams(base()).toString(), 'missing'],
    ['empty signature', `${new URLSearchParams(base())}&signature=`, 'missing'],
    ['signed with another secret', signed(base(), 'other'), 'forged'],
    ['a parameter added after signing', `${signed(base())}&location=7`, 'forged'],
    ['a parameter changed after signing', signed(base()).replace('a-shop', 'b-shop'), 'forged'],
    ['not hex', `${new URLSearchParams(base())}&signature=${'z'.repeat(64)}`, 'forged'],
    ['a short signature', `${new URLSearchParams(base())}&signature=abcd`, 'forged'],
    ['two signatures', `${signed(base())}&signature=abcd`, 'malformed'],
    ['two shops', signed([...base(), ['shop', 'evil.myshopify.com']]), 'malformed'],
    ['no timestamp', signed(base().filter(([k]) => k !== 'timestamp')), 'malformed'],
    ['stale: 91 s old', signed(base().map(([k, v]) => [k, k === 'timestamp' ? String(NOW / 1000 - 91) : v])), 'stale'],
    ['from the future: 91 s ahead', signed(base().map(([k, v]) => [k, k === 'timestamp' ? String(NOW / 1000 + 91) : v])), 'stale'],
    ['a signature with more after it', `${signed(base())}ab`, 'forged'],
    ['a signature with text before it', signed(base()).replace('signature=', 'signature=zz'), 'forged'],
    ['a timestamp with text after it', signed(base().map(([k, v]) => [k, k === 'timestamp' ? `${TS}x` : v])), 'stale'],
    ['a timestamp with text before it', signed(base().map(([k, v]) => [k, k === 'timestamp' ? `x${TS}` : v])), 'stale'],
    ['a timestamp that is not a number', signed(base().map(([k, v]) => [k, k === 'timestamp' ? 'soon' : v])), 'stale'],
  ])('%s', (_name, query, reason) => {
    expect(verifyAppProxy(query, SECRET, NOW)).toEqual({ ok: false, reason });
  });
  it('90 s old is still fresh', () => {
    expect(verifyAppProxy(signed(base().map(([k, v]) => [k, k === 'timestamp' ? String(NOW / 1000 - 90) : v])), SECRET, NOW).ok).toBe(true);
  });
  it('the signer is HMAC-SHA256 hex of the message', () => {
    const p = new URLSearchParams(base());
    expect(signProxyQuery(p, SECRET)).toBe(createHmac('sha256', SECRET).update(proxyMessage(p)).digest('hex'));
  });
});
