// The checkout rate's pure rules (web/rates/pricing.ts): markup, fixed fee, rounding,
// free above, zone, hours, fallback, weight bands, cache key, distance.
import { describe, expect, it } from 'vitest';
import {
  applyRounding, decideRate, distanceKm, markedUp, precheck, quoteCacheKey, shopifyRate, weightBand, withMarkup, type PricingRules, type RateInput,
} from '../../web/rates/pricing.ts';

const RULES: PricingRules = { markupPercent: '0', fixedFee: '0', freeAbove: null, rounding: 'none' };

describe('markedUp: markup %, then the fixed fee, then rounding (integer cents)', () => {
  it.each<[string, bigint, Partial<PricingRules>, bigint]>([
    ['no rules: the quote', 9500n, {}, 9500n],
    ['10 % markup', 9500n, { markupPercent: '10' }, 10450n],
    ['12.5 % markup rounds half up to the cent', 999n, { markupPercent: '12.5' }, 1124n], // 1123.875
    ['0.01 % markup of 1 cent stays 1 cent', 1n, { markupPercent: '0.01' }, 1n],
    ['fixed fee', 9500n, { fixedFee: '5' }, 10000n],
    ['fixed fee with cents', 9500n, { fixedFee: '4.99' }, 9999n],
    ['markup then fee', 10000n, { markupPercent: '10', fixedFee: '5.50' }, 11550n],
    ['up to a whole unit', 10001n, { rounding: 'up_whole' }, 10100n],
    ['a whole unit stays', 10000n, { rounding: 'up_whole' }, 10000n],
    ['nearest whole, down', 10049n, { rounding: 'nearest_whole' }, 10000n],
    ['nearest whole, half up', 10050n, { rounding: 'nearest_whole' }, 10100n],
    ['up to .99', 10001n, { rounding: 'up_99' }, 10099n],
    ['a whole unit goes to .99 of it', 10000n, { rounding: 'up_99' }, 10099n],
    ['.99 stays', 10099n, { rounding: 'up_99' }, 10099n],
    ['all together', 9500n, { markupPercent: '10', fixedFee: '5', rounding: 'up_99' }, 10999n], // 104.50 + 5 = 109.50 → 109.99
  ])('%s', (_what, quote, rules, expected) => {
    expect(markedUp(quote, { ...RULES, ...rules })).toBe(expected);
  });

  it('withMarkup and applyRounding on zero', () => {
    expect(withMarkup(0n, '50')).toBe(0n);
    expect(applyRounding(0n, 'up_whole')).toBe(0n);
    expect(applyRounding(0n, 'nearest_whole')).toBe(0n);
  });
});

const BASE: RateInput = {
  open: true, distanceKm: 5, maxDistanceKm: 20, orderCents: 30000n, currency: 'ZAR', rules: RULES, fallbackRate: null,
  quote: { kind: 'price', cents: 9500n, currency: 'ZAR' },
};

describe('decideRate', () => {
  it.each<[string, Partial<RateInput>, ReturnType<typeof decideRate>]>([
    ['a quote: priced by it', {}, { rate: true, cents: 9500n, source: 'quote' }],
    ['quote without currency: taken as checkout currency', { quote: { kind: 'price', cents: 9500n, currency: null } }, { rate: true, cents: 9500n, source: 'quote' }],
    ['closed: no rate', { open: false }, { rate: false, reason: 'closed', detail: expect.any(String) }],
    ['beyond the zone: no rate', { distanceKm: 20.01 }, { rate: false, reason: 'out_of_zone', detail: '20.0 km is beyond the 20 km limit' }],
    ['on the zone edge: a rate', { distanceKm: 20 }, { rate: true, cents: 9500n, source: 'quote' }],
    ['distance unknown with a zone: no rate', { distanceKm: null }, { rate: false, reason: 'unknown_distance', detail: expect.any(String) }],
    ['distance unknown, no zone: a rate', { distanceKm: null, maxDistanceKm: null }, { rate: true, cents: 9500n, source: 'quote' }],
    ['free above: at the threshold', { rules: { ...RULES, freeAbove: '300' } }, { rate: true, cents: 0n, source: 'free' }],
    ['free above: just under', { rules: { ...RULES, freeAbove: '300.01' } }, { rate: true, cents: 9500n, source: 'quote' }],
    ['timeout, no fallback: no rate', { quote: { kind: 'timeout' } }, { rate: false, reason: 'no_quote', detail: 'the courier did not answer in time' }],
    ['timeout with fallback: the flat rate', { quote: { kind: 'timeout' }, fallbackRate: '120' }, { rate: true, cents: 12000n, source: 'fallback' }],
    ['error with fallback: the flat rate, no markup', { quote: { kind: 'error', message: 'x' }, fallbackRate: '120.50', rules: { ...RULES, markupPercent: '10' } }, { rate: true, cents: 12050n, source: 'fallback' }],
    ['error, no fallback: the reason', { quote: { kind: 'error', message: 'courier said no' } }, { rate: false, reason: 'no_quote', detail: 'courier said no' }],
    ['fallback and free above: free', { quote: { kind: 'timeout' }, fallbackRate: '120', rules: { ...RULES, freeAbove: '100' } }, { rate: true, cents: 0n, source: 'free' }],
    ['closed beats a fallback', { open: false, fallbackRate: '120' }, { rate: false, reason: 'closed', detail: expect.any(String) }],
    ['quote in another currency: no rate', { quote: { kind: 'price', cents: 9500n, currency: 'USD' } }, { rate: false, reason: 'currency_mismatch', detail: 'the courier quoted in USD, checkout is in ZAR' }],
  ])('%s', (_what, change, expected) => {
    expect(decideRate({ ...BASE, ...change })).toEqual(expected);
  });

  it('precheck asks the courier only when open and in zone', () => {
    expect(precheck({ open: true, distanceKm: 3, maxDistanceKm: 5 })).toBeNull();
    expect(precheck({ open: true, distanceKm: null, maxDistanceKm: null })).toBeNull();
  });
});

describe('weight bands', () => {
  it.each([[0, 1000], [1, 1000], [1000, 1000], [1001, 2000], [2000, 2000], [4999, 5000], [10_000, 10_000], [29_999, 30_000], [30_001, 40_000], [55_000, 60_000], [999.2, 1000]])('%s g → %s g', (g, band) => {
    expect(weightBand(g)).toBe(band);
  });
});

describe('distance and cache key', () => {
  it('haversine: Rosebank → Sandton ≈ 4.4 km, Johannesburg → Cape Town ≈ 1262 km, a point to itself 0', () => {
    expect(distanceKm({ lat: -26.1456, lng: 28.0436 }, { lat: -26.1076, lng: 28.0567 })).toBeCloseTo(4.4, 1);
    expect(distanceKm({ lat: -26.2041, lng: 28.0473 }, { lat: -33.9249, lng: 18.4241 })).toBeGreaterThan(1255);
    expect(distanceKm({ lat: -26.2041, lng: 28.0473 }, { lat: -33.9249, lng: 18.4241 })).toBeLessThan(1270);
    expect(distanceKm({ lat: 1, lng: 1 }, { lat: 1, lng: 1 })).toBe(0);
  });

  it('the key: same store, destination within ~100 m and band share it; anything else does not', () => {
    const k = (o: Partial<Parameters<typeof quoteCacheKey>[0]> = {}) =>
      quoteCacheKey({ shop: 's.myshopify.com', environment: 'test', storeId: 'st1', destination: { lat: -26.14561, lng: 28.04362 }, bandGrams: 1000, currency: 'zar', ...o });
    expect(k()).toBe('s.myshopify.com|test|st1|-26.146|28.044|1000|ZAR');
    expect(k({ destination: { lat: -26.14559, lng: 28.04358 } })).toBe(k());
    expect(k({ storeId: 'st2' })).not.toBe(k());
    expect(k({ bandGrams: 2000 })).not.toBe(k());
    expect(k({ environment: 'live' })).not.toBe(k());
    expect(k({ destination: { lat: -26.1476, lng: 28.0436 } })).not.toBe(k());
  });
});

it("shopifyRate: Shopify's shape, total_price in subunits as a string", () => {
  expect(shopifyRate({ rate: true, cents: 10999n, source: 'quote' }, { serviceName: 'Same-day', serviceCode: 'SDD', description: 'Today', currency: 'zar' }))
    .toEqual({ service_name: 'Same-day', service_code: 'SDD', total_price: '10999', description: 'Today', currency: 'ZAR' });
});
