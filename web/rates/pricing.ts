// The checkout rate, decided: pure data in, data out (table-tested in
// test/unit/rates-pricing.test.ts, mutation-tested). Money is integer cents
// (bigint) or decimal strings; distances are kilometres (not money: floats are fine).
import type { Rounding } from '../settings/rates-schema.ts';
import { toCents } from '../order/money.ts';

export interface PricingRules {
  markupPercent: string;
  fixedFee: string;
  freeAbove: string | null;
  rounding: Rounding;
}

/** A schema-validated amount or percentage ("12.5", "149.99") in hundredths. */
export function hundredths(text: string): bigint {
  const c = toCents(text);
  if (c === null || c < 0n) throw new RangeError(`not an amount: ${text}`);
  return c;
}

/** cents × (1 + percent/100), half up to the cent. */
export function withMarkup(cents: bigint, markupPercent: string): bigint {
  const factor = 10_000n + hundredths(markupPercent); // in basis points of 1/100 %
  return (cents * factor + 5_000n) / 10_000n;
}

export function applyRounding(cents: bigint, rounding: Rounding): bigint {
  switch (rounding) {
    case 'none':
      return cents;
    case 'up_whole':
      return ((cents + 99n) / 100n) * 100n;
    case 'nearest_whole':
      return ((cents + 50n) / 100n) * 100n;
    case 'up_99':
      // The smallest X.99 at or above the price.
      return (cents / 100n) * 100n + 99n;
  }
}

/** The price the buyer pays for a courier price, before the free-above rule. */
export function markedUp(quoteCents: bigint, rules: PricingRules): bigint {
  return applyRounding(withMarkup(quoteCents, rules.markupPercent) + hundredths(rules.fixedFee), rules.rounding);
}

export type QuoteOutcome =
  | { kind: 'price'; cents: bigint; currency: string | null }
  | { kind: 'timeout' }
  | { kind: 'error'; message: string };

export interface RateInput {
  /** Same-day open now for the pickup location (delivery windows). */
  open: boolean;
  /** null: one of the two points has no coordinates. */
  distanceKm: number | null;
  maxDistanceKm: number | null;
  /** Items' value in the checkout currency. */
  orderCents: bigint;
  currency: string;
  rules: PricingRules;
  fallbackRate: string | null;
  /** Absent when no quote was needed yet (zone or hours already refused). */
  quote?: QuoteOutcome;
}

export type NoRateReason = 'closed' | 'out_of_zone' | 'unknown_distance' | 'no_quote' | 'currency_mismatch';
export type RateDecision =
  | { rate: true; cents: bigint; source: 'quote' | 'fallback' | 'free' }
  | { rate: false; reason: NoRateReason; detail: string };

/** Before any courier call: may this checkout get a same-day rate at all? null = ask the courier. */
export function precheck(i: Pick<RateInput, 'open' | 'distanceKm' | 'maxDistanceKm'>): RateDecision | null {
  if (!i.open) return { rate: false, reason: 'closed', detail: 'same-day delivery is closed now for this location' };
  if (i.maxDistanceKm !== null) {
    if (i.distanceKm === null) return { rate: false, reason: 'unknown_distance', detail: 'no coordinates to measure the distance from the pickup store' };
    if (i.distanceKm > i.maxDistanceKm) return { rate: false, reason: 'out_of_zone', detail: `${i.distanceKm.toFixed(1)} km is beyond the ${i.maxDistanceKm} km limit` };
  }
  return null;
}

export function decideRate(i: RateInput): RateDecision {
  const refused = precheck(i);
  if (refused) return refused;
  const free = i.rules.freeAbove !== null && i.orderCents >= hundredths(i.rules.freeAbove);
  const q = i.quote;
  if (q?.kind === 'price') {
    if (q.currency && q.currency.toUpperCase() !== i.currency.toUpperCase()) {
      return { rate: false, reason: 'currency_mismatch', detail: `the courier quoted in ${q.currency}, checkout is in ${i.currency}` };
    }
    return free ? { rate: true, cents: 0n, source: 'free' } : { rate: true, cents: markedUp(q.cents, i.rules), source: 'quote' };
  }
  if (i.fallbackRate === null) return { rate: false, reason: 'no_quote', detail: q?.kind === 'error' ? q.message : 'the courier did not answer in time' };
  return free ? { rate: true, cents: 0n, source: 'free' } : { rate: true, cents: hundredths(i.fallbackRate), source: 'fallback' };
}

/** Weight bands (grams, upper bounds): quotes are asked for the band's top weight, so one quote serves the band. */
export const WEIGHT_BANDS_G = [1_000, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000] as const;
const OVER_BAND_STEP_G = 10_000;

export function weightBand(grams: number): number {
  const g = Math.max(0, Math.ceil(grams));
  for (const top of WEIGHT_BANDS_G) if (g <= top) return top;
  return Math.ceil(g / OVER_BAND_STEP_G) * OVER_BAND_STEP_G;
}

export interface LatLng {
  lat: number;
  lng: number;
}

/** Great-circle distance (haversine, mean Earth radius). Straight line: the courier prices the road. */
export function distanceKm(a: LatLng, b: LatLng): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Cache key: pickup store, destination to about 100 m, weight band (and the environment, whose prices differ). */
export function quoteCacheKey(k: { shop: string; environment: string; storeId: string; destination: LatLng; bandGrams: number; currency: string }): string {
  return [k.shop, k.environment, k.storeId, k.destination.lat.toFixed(3), k.destination.lng.toFixed(3), k.bandGrams, k.currency.toUpperCase()].join('|');
}

/** Shopify's answer: total_price in subunits, as a string. */
export function shopifyRate(d: Extract<RateDecision, { rate: true }>, s: { serviceName: string; serviceCode: string; description: string; currency: string }) {
  return { service_name: s.serviceName, service_code: s.serviceCode, total_price: d.cents.toString(), description: s.description, currency: s.currency.toUpperCase() };
}
