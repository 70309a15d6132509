// The shop's time zone (Shopify's Shop.ianaTimezone, GET /api/shop), read once
// at boot: every date and time on the pages is shown in it.
import type { ShopInfo } from './types.ts';

export async function shopZone(): Promise<string | null> {
  try {
    const res = await fetch('/api/shop', { headers: { Authorization: `Bearer ${await shopify.idToken()}`, Accept: 'application/json' } });
    if (!res.ok) return null;
    const body = (await res.json()) as Partial<ShopInfo>;
    return typeof body.timeZone === 'string' ? body.timeZone : null;
  } catch {
    return null;
  }
}
