// The shop profile (web/shopify/shop-profile.ts): what is read from SHOP_PROFILE's answer, and how long it is kept.
import { afterEach, describe, expect, it } from 'vitest';
import { forgetShopProfile, knownTimeZone, readShopProfile, shopProfile, UNKNOWN_SHOP } from '../../web/shopify/shop-profile.ts';
import type { AdminApi } from '../../web/shopify/admin-api.ts';

const ANSWER = {
  shop: {
    name: ' Thandi Flowers ', contactEmail: 'hello@thandi.example', ianaTimezone: 'Africa/Johannesburg',
    shopAddress: { phone: '+27 11 555 0100', countryCodeV2: 'ZA' }, primaryDomain: { localization: { defaultLocale: 'af' } },
  },
};

describe('readShopProfile', () => {
  it.each<[string, unknown, Partial<ReturnType<typeof readShopProfile>>]>([
    ['a full answer', ANSWER, { name: 'Thandi Flowers', contactEmail: 'hello@thandi.example', phone: '+27 11 555 0100', primaryLocale: 'af', countryCode: 'ZA', timeZone: 'Africa/Johannesburg', source: 'shop' }],
    ['no shop', { shop: null }, UNKNOWN_SHOP],
    ['no data', null, UNKNOWN_SHOP],
    ['a zone Intl does not know: UTC, fallback, the rest kept', { shop: { ...ANSWER.shop, ianaTimezone: 'Nowhere/Special' } }, { name: 'Thandi Flowers', timeZone: 'UTC', source: 'fallback' }],
    ['no localization (a domain that redirects), no address phone, blank email', { shop: { ...ANSWER.shop, contactEmail: ' ', shopAddress: { phone: null, countryCodeV2: null }, primaryDomain: { localization: null } } }, { contactEmail: null, phone: null, countryCode: null, primaryLocale: null }],
    ['a malformed country', { shop: { ...ANSWER.shop, shopAddress: { countryCodeV2: 'ZAF' } } }, { countryCode: null }],
  ])('%s', (_name, data, expected) => {
    expect(readShopProfile(data)).toMatchObject(expected);
  });

  it('knownTimeZone: the zone as Intl names it, or null', () => {
    expect(knownTimeZone('Africa/Johannesburg')).toBe('Africa/Johannesburg');
    expect(knownTimeZone('Not/AZone')).toBeNull();
    expect(knownTimeZone('')).toBeNull();
    expect(knownTimeZone(null)).toBeNull();
    expect(knownTimeZone(undefined)).toBeNull(); // not the machine's own zone
  });
});

describe('shopProfile: one question per shop an hour; a minute when Shopify could not answer', () => {
  afterEach(() => forgetShopProfile());
  // Shopify, answering from a list (an Error is a failed request).
  function shopify(answers: unknown[]) {
    let calls = 0;
    const admin: AdminApi = {
      async request() {
        const a = answers[Math.min(calls++, answers.length - 1)];
        if (a instanceof Error) throw a;
        return a as any;
      },
    };
    return { admin, calls: () => calls };
  }

  it('keeps an answer for an hour', async () => {
    const s = shopify([ANSWER]);
    let now = 0;
    const ctx = { admin: s.admin, now: () => now };
    expect((await shopProfile(ctx, 'a.myshopify.com')).name).toBe('Thandi Flowers');
    now = 3_599_999;
    await shopProfile(ctx, 'a.myshopify.com');
    expect(s.calls()).toBe(1);
    now = 3_600_000;
    await shopProfile(ctx, 'a.myshopify.com');
    expect(s.calls()).toBe(2);
  });

  it('a failed request is the unknown shop for a minute, then asked again', async () => {
    const s = shopify([new Error('Shopify down'), ANSWER]);
    let now = 0;
    const ctx = { admin: s.admin, now: () => now };
    expect(await shopProfile(ctx, 'b.myshopify.com')).toEqual(UNKNOWN_SHOP);
    now = 59_999;
    expect(await shopProfile(ctx, 'b.myshopify.com')).toEqual(UNKNOWN_SHOP);
    now = 60_000;
    expect((await shopProfile(ctx, 'b.myshopify.com')).timeZone).toBe('Africa/Johannesburg');
    expect(s.calls()).toBe(2);
  });
});
