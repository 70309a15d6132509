// The shop simulator's rate request and our rate answer, held to Shopify's own documented samples
// (shopify.dev, REST Admin API, CarrierService: test/fixtures/shopify/README.md), so the fake cannot
// drift into a contract Shopify does not have.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rateRequestBody } from '../../dev/shop-sim/carrier-services.ts';
import { shopifyRate } from '../../web/rates/pricing.ts';
import { coordinatesOf, itemsCents, parseRateRequest, shippableGrams } from '../../web/rates/request.ts';
import { DEFAULT_SETTINGS } from '../../web/settings/schema.ts';

const SAMPLE_TEXT = readFileSync(new URL('../fixtures/shopify/carrier-service-rate-request.json', import.meta.url), 'utf8');
const sample = () => JSON.parse(SAMPLE_TEXT);

/** The first rate of the page's "Example response" (verbatim). Its dates are optional fields. */
const DOCUMENTED_RATE = {
  service_name: 'canadapost-overnight', service_code: 'ON', total_price: '1295', description: 'This is the fastest option by far', currency: 'CAD',
  min_delivery_date: '2013-04-12 14:48:45 -0400', max_delivery_date: '2013-04-12 14:48:45 -0400',
};

/**
 * Keys the simulator may send that Shopify's sample lacks. Shopify's sample omits the destination's
 * coordinates; the parser works without them (the geocoder fills the gap, see the first test), and the
 * simulator sends them so that tests need no geocoder.
 */
const SIMULATOR_EXTRAS = new Set(['rate.destination.latitude', 'rate.destination.longitude']);

type JsonType = 'null' | 'string' | 'number' | 'boolean' | 'array' | 'object';
const jsonType = (v: unknown): JsonType => (v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as JsonType));

/** Every key path (array elements as `[]`) with the JSON types seen there. */
function shape(v: unknown, path = '', out = new Map<string, Set<JsonType>>()): Map<string, Set<JsonType>> {
  if (path) out.set(path, (out.get(path) ?? new Set()).add(jsonType(v)));
  if (Array.isArray(v)) for (const e of v) shape(e, `${path}[]`, out);
  else if (v && typeof v === 'object') for (const [k, e] of Object.entries(v)) shape(e, path ? `${path}.${k}` : k, out);
  return out;
}

/** null stands for "absent here", so it matches a string or a number the other side sends. */
const compatible = (a: JsonType, b: JsonType) => a === b || (a === 'null' && (b === 'string' || b === 'number')) || (b === 'null' && (a === 'string' || a === 'number'));

/** What differs between the sample's shape and the simulator's: missing keys, type clashes, unlisted extras. */
function shapeDifferences(documented: unknown, simulated: unknown): string[] {
  const want = shape(documented);
  const got = shape(simulated);
  const out: string[] = [];
  for (const [path, types] of want) {
    const seen = got.get(path);
    if (!seen) out.push(`missing ${path}`);
    else for (const t of types) for (const s of seen) if (!compatible(t, s)) out.push(`${path}: ${s} where Shopify sends ${t}`);
  }
  for (const path of got.keys()) if (!want.has(path) && !SIMULATOR_EXTRAS.has(path)) out.push(`extra ${path}`);
  return out;
}

describe("Shopify's documented rate request", () => {
  it('parses as it is: weight in grams, prices in cents, no coordinates', () => {
    const r = parseRateRequest(sample());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(shippableGrams(r.rate)).toBe(1000);
    expect(itemsCents(r.rate)).toBe(1999n);
    expect(r.rate.currency).toBe('USD');
    expect(coordinatesOf(r.rate.destination)).toBeNull();
    expect(coordinatesOf(r.rate.origin)).toBeNull();
  });

  it("the simulator's request has the sample's shape: every key, compatible types, no unlisted extra", () => {
    expect(shapeDifferences(sample(), JSON.parse(rateRequestBody({})))).toEqual([]);
  });

  it('the shape check sees a missing key, a changed type and an extra key', () => {
    const sim = JSON.parse(rateRequestBody({}));
    delete sim.rate.origin.address_type;
    sim.rate.items[0].price = '300.00';
    sim.rate.destination.zip = '2196';
    expect(shapeDifferences(sample(), sim)).toEqual(['missing rate.origin.address_type', 'rate.items[].price: string where Shopify sends number', 'extra rate.destination.zip']);
  });
});

describe("our answer against Shopify's documented answer", () => {
  const ours = shopifyRate({ rate: true, cents: 12_999n, source: 'quote' }, { ...DEFAULT_SETTINGS.rates, currency: 'zar' });

  it('the same key names and types; total_price a string of subunits; a three-letter currency', () => {
    // We send no min/max_delivery_date: Shopify documents them as optional.
    for (const [k, v] of Object.entries(ours)) {
      expect(Object.keys(DOCUMENTED_RATE), `key ${k}`).toContain(k);
      expect(jsonType(v), `type of ${k}`).toBe(jsonType(DOCUMENTED_RATE[k as keyof typeof DOCUMENTED_RATE]));
    }
    expect(Object.keys(ours)).toEqual(expect.arrayContaining(['service_name', 'service_code', 'total_price', 'currency']));
    expect(ours.total_price).toMatch(/^\d+$/);
    expect(DOCUMENTED_RATE.total_price).toMatch(/^\d+$/);
    expect(ours.total_price).toBe('12999');
    expect(ours.currency).toMatch(/^[A-Z]{3}$/);
  });
});
