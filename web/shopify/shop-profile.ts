// The shop as its customers know it, and its clock: Shopify's store name, public
// contact email and phone, storefront language and IANA zone, from one Admin
// query (SHOP_PROFILE). Read by the tracking page and the home dashboard.
// Asked once per shop per hour per process: neither may cost a Shopify call per
// view. When Shopify cannot answer: no name or contact, UTC, remembered for a
// minute, then asked again. readShopProfile is pure (test/unit/shop-profile.test.ts).
import type { AdminApi } from './admin-api.ts';
import { SHOP_PROFILE } from './operations.ts';

export interface ShopProfile {
  /** The store's name as customers see it; null when unknown. */
  name: string | null;
  /** The public-facing contact email (Shop.contactEmail, not the owner's). */
  contactEmail: string | null;
  /** The phone of the shop's address as it appears to buyers. */
  phone: string | null;
  /** The storefront's default language (the primary domain's), a BCP 47 tag such as "de" or "en-ZA". */
  primaryLocale: string | null;
  /** ISO 3166 country of the shop's address: the region a bare language is formatted for. */
  countryCode: string | null;
  /** IANA zone; UTC when unknown. */
  timeZone: string;
  /** 'shop' when Shopify answered with a zone Intl knows. */
  source: 'shop' | 'fallback';
}

export const UNKNOWN_SHOP: ShopProfile = { name: null, contactEmail: null, phone: null, primaryLocale: null, countryCode: null, timeZone: 'UTC', source: 'fallback' };

/** The zone as Intl names it, or null when Intl does not know it. */
export function knownTimeZone(zone: string | null | undefined): string | null {
  if (!zone) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** The profile from SHOP_PROFILE's data; whatever is missing or malformed is unknown. */
export function readShopProfile(data: unknown): ShopProfile {
  const shop = (data as { shop?: Record<string, any> } | null | undefined)?.shop;
  if (!shop || typeof shop !== 'object') return UNKNOWN_SHOP;
  const zone = knownTimeZone(text(shop.ianaTimezone));
  const country = text(shop.shopAddress?.countryCodeV2);
  return {
    name: text(shop.name),
    contactEmail: text(shop.contactEmail),
    phone: text(shop.shopAddress?.phone),
    primaryLocale: text(shop.primaryDomain?.localization?.defaultLocale),
    countryCode: country && /^[A-Z]{2}$/.test(country) ? country : null,
    timeZone: zone ?? 'UTC',
    source: zone ? 'shop' : 'fallback',
  };
}

const KEEP_MS = 3_600_000;
const KEEP_FALLBACK_MS = 60_000;
const cache = new Map<string, { profile: ShopProfile; until: number }>();

export async function shopProfile(ctx: { admin: AdminApi; now(): number }, domain: string): Promise<ShopProfile> {
  const hit = cache.get(domain);
  if (hit && hit.until > ctx.now()) return hit.profile;
  let profile: ShopProfile;
  try {
    profile = readShopProfile(await ctx.admin.request(domain, SHOP_PROFILE, {}));
  } catch {
    profile = UNKNOWN_SHOP;
  }
  // The clock after the answer: a slow Shopify must not shorten what it said.
  cache.set(domain, { profile, until: ctx.now() + (profile.source === 'shop' ? KEEP_MS : KEEP_FALLBACK_MS) });
  return profile;
}

/** Forget what Shopify said (tests change the simulated shop). */
export function forgetShopProfile(domain?: string): void {
  if (domain) cache.delete(domain);
  else cache.clear();
}
