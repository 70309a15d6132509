// The shop's IANA time zone (Shopify's Shop.ianaTimezone), for the home
// dashboard's days. Asked once per shop per hour per process: it rarely
// changes, and the dashboard must not cost a Shopify call per view. When
// Shopify cannot answer, UTC (remembered for a minute, then asked again).
import type { AppContext } from '../../context.ts';
import { SHOP_TIME_ZONE } from '../../shopify/operations.ts';
import { knownTimeZone } from '../dashboard.ts';

const KEEP_MS = 3_600_000;
const KEEP_FALLBACK_MS = 60_000;
const cache = new Map<string, { timeZone: string; source: 'shop' | 'fallback'; until: number }>();

export async function shopTimeZone(ctx: AppContext, domain: string): Promise<{ timeZone: string; source: 'shop' | 'fallback' }> {
  const now = ctx.now();
  const hit = cache.get(domain);
  if (hit && hit.until > now) return { timeZone: hit.timeZone, source: hit.source };
  let zone: string | null = null;
  try {
    const data = await ctx.admin.request(domain, SHOP_TIME_ZONE, {});
    zone = typeof data?.shop?.ianaTimezone === 'string' ? data.shop.ianaTimezone : null;
  } catch {
    zone = null;
  }
  const known = knownTimeZone(zone);
  const timeZone = known ?? 'UTC';
  const source = known ? 'shop' : 'fallback';
  cache.set(domain, { timeZone, source, until: now + (source === 'shop' ? KEEP_MS : KEEP_FALLBACK_MS) });
  return { timeZone, source };
}

/** Forget what Shopify said (tests change the simulated shop's zone). */
export function forgetShopTimeZone(domain?: string): void {
  if (domain) cache.delete(domain);
  else cache.clear();
}
