// Demo step: same-day price at checkout. The merchant turns rates on (the admin API, as the
// settings page does), the app registers its carrier service with Shopify, and the shop
// simulator's checkout asks it for a rate, signed as Shopify signs it.
import type { Stack } from './stack.ts';
import { shopDomain } from './merchant.ts';

export const DEMO_RATE_RULES = { enabled: true, markupPercent: '10', fixedFee: '5', rounding: 'up_99', maxDistanceKm: 40, fallbackRate: '99', quotePhone: '+27 11 555 0100' };

/** The admin API as the embedded page calls it: a fresh App Bridge session token per call. */
export async function adminCall<T = any>(stack: Stack, shop: string, method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const token = await stack.sim.sessionToken(shopDomain(shop));
  const res = await fetch(`${stack.urls.app}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

/** Turns rates on and registers the carrier service; throws with the app's answer when that fails. */
export async function enableRates(stack: Stack, shop: string, rules: Record<string, unknown> = DEMO_RATE_RULES) {
  const saved = await adminCall(stack, shop, 'PUT', '/api/settings', { settings: { rates: rules } });
  if (saved.status >= 300) throw new Error(`saving the rate rules answered HTTP ${saved.status}: ${JSON.stringify(saved.body)}`);
  const synced = await adminCall(stack, shop, 'POST', '/api/rates/sync');
  if (synced.status !== 200) throw new Error(`the carrier-service sync answered HTTP ${synced.status}: ${JSON.stringify(synced.body)}`);
  return synced.body as { carrierService: { id: string; name: string; callbackUrl: string; active: boolean } | null; problems: Array<{ code: string; message: string }> };
}

/** Prints the checkout rate; true when checkout got one. */
export async function demoCheckoutRate(stack: Stack, shop: string, out: (line: string) => void): Promise<boolean> {
  const status = await enableRates(stack, shop);
  const cs = status.carrierService;
  out(`carrier service ${cs ? `"${cs.name}" ${cs.active ? 'active' : 'inactive'} → ${cs.callbackUrl}` : '(not registered)'}`);
  for (const p of status.problems) out(`settings say: ${p.message}`);
  const r = await stack.sim.checkoutRates(shopDomain(shop));
  const rate = r.body?.rates?.[0];
  if (r.status !== 200 || !rate) {
    out(`checkout got no same-day rate (HTTP ${r.status}: ${JSON.stringify(r.body)})`);
    return false;
  }
  const price = `${(BigInt(rate.total_price) / 100n).toString()}.${String(BigInt(rate.total_price) % 100n).padStart(2, '0')}`;
  out(`checkout rate: ${rate.service_name} ${price} ${rate.currency} (code ${rate.service_code}; courier quote + 10% + 5, up to .99) in ${r.elapsedMs} ms`);
  return true;
}
