// web/geocoding's Nominatim client over real HTTP against the local double
// (dev/geocoder), which answers in Nominatim's documented jsonv2 format and can
// find nothing, rate limit, fail or answer slowly.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeocoderDouble, type RunningGeocoderDouble } from '../../dev/geocoder/server.ts';
import { createGeocoder, decideGeocode, geocoderUserAgent } from '../../web/geocoding/index.ts';
import { NominatimGeocoder } from '../../web/geocoding/nominatim.ts';
import { GeocodeError, GeocodeRateLimitedError, GeocodeTimeoutError, GeocodeZeroResultsError, type AddressQuery } from '../../web/geocoding/types.ts';

let double: RunningGeocoderDouble;
beforeAll(async () => {
  double = await startGeocoderDouble();
});
afterAll(async () => {
  await double.close();
});
beforeEach(() => double.reset());

const pretoria: AddressQuery = { address1: '1115 Burnett Street', city: 'Pretoria', province: 'Gauteng', zip: '0083', countryCode: 'ZA' };
const soweto: AddressQuery = { address1: '8115 Vilakazi Street', city: 'Soweto', province: 'Gauteng', zip: '1804', countryCode: 'ZA' };
const client = (o: Partial<ConstructorParameters<typeof NominatimGeocoder>[0]> = {}) =>
  new NominatimGeocoder({ baseUrl: double.url, userAgent: geocoderUserAgent('https://dispatch.example.com'), ...o });

describe('Nominatim client against the local double', () => {
  it('geocodes a known address: building match, coordinates to 7 places, the request the policy asks for', async () => {
    const r = await client().geocode(pretoria);
    expect(r).toMatchObject({ provider: 'nominatim', lat: -25.75373, lng: 28.23768, confidence: 1, precision: 'building' });
    expect(r.formattedAddress).toMatch(/^1115, Burnett Street, Hatfield, Pretoria/);
    expect(double.requests).toEqual([expect.objectContaining({
      path: '/search',
      userAgent: 'same-day-dispatch (+https://dispatch.example.com)',
      params: { q: '1115 Burnett Street, Pretoria, Gauteng, 0083', countrycodes: 'za', format: 'jsonv2', addressdetails: '1', limit: '5' },
      keySent: false,
    })]);
  });

  it('a street-only match is below the default threshold: the candidate waits for confirmation', async () => {
    const r = await client().geocode(soweto);
    expect(r).toMatchObject({ confidence: 0.6, precision: 'street' });
    expect(decideGeocode(r, 0.8)).toMatchObject({ kind: 'needs_confirmation', candidate: { lat: -26.2384, lng: 27.9086 } });
  });

  it('an ambiguous address (two buildings far apart) needs confirmation too', async () => {
    const r = await client().geocode({ address1: '7 Church Street', city: 'Pretoria', countryCode: 'ZA' });
    expect(r.candidates).toHaveLength(2);
    expect(decideGeocode(r, 0.8).kind).toBe('needs_confirmation');
  });

  it('zero results', async () => {
    double.setMode('zero');
    await expect(client().geocode(pretoria)).rejects.toBeInstanceOf(GeocodeZeroResultsError);
    // An address the double does not know is the same answer.
    double.reset();
    await expect(client().geocode({ ...pretoria, address1: '1 Nowhere Lane' })).rejects.toMatchObject({ kind: 'zero_results', retryable: false });
  });

  it('rate limited: HTTP 429 with its Retry-After', async () => {
    double.setMode('rate_limit', { retryAfter: '7', times: 1 });
    const e = await client().geocode(pretoria).catch((x) => x);
    expect(e).toBeInstanceOf(GeocodeRateLimitedError);
    expect(e).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7_000, retryable: true });
    await expect(client().geocode(pretoria)).resolves.toMatchObject({ confidence: 1 }); // only once
  });

  it('a timeout when the answer is slower than the budget', async () => {
    double.setMode('slow', { delayMs: 3_000 });
    const started = Date.now();
    const e = await client({ timeoutMs: 300 }).geocode(pretoria).catch((x) => x);
    expect(e).toBeInstanceOf(GeocodeTimeoutError);
    expect(e).toMatchObject({ retryable: true, message: 'The geocoder did not answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a server error is retryable, and the key never shows in the message', async () => {
    double.setMode('error');
    const e = await client({ apiKey: 'secret-geo-key-123' }).geocode(pretoria).catch((x) => x);
    expect(e).toMatchObject({ kind: 'unavailable', status: 503, retryable: true });
    expect(`${e.message} ${e.stack}`).not.toContain('secret-geo-key-123');
    expect(double.requests.at(-1)!.keySent).toBe(true);
  });

  it('nothing listening: unavailable', async () => {
    const gone = await startGeocoderDouble();
    await gone.close();
    await expect(client({ baseUrl: gone.url }).geocode(pretoria)).rejects.toMatchObject({ kind: 'unavailable', retryable: true });
  });

  it('keeps the minimum interval between requests to one server (the public one: over 1 s)', async () => {
    const c = client({ minIntervalMs: 300 });
    await c.geocode(pretoria); // a warm connection, so arrival times follow send times
    double.reset();
    await Promise.all([c.geocode(pretoria), c.geocode(pretoria), client({ minIntervalMs: 300 }).geocode(pretoria)]);
    const at = double.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(at).toHaveLength(3);
    // The first of these waited for the warm-up's slot too; slack for network jitter under load.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(250);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(250);
  });

  it('the double holds us to the usage policy: a generic User-Agent is refused', async () => {
    const res = await fetch(`${double.url}/search?q=x&format=jsonv2`, { headers: { 'user-agent': 'node' } });
    expect(res.status).toBe(403);
    await expect(client({ userAgent: 'undici' }).geocode(pretoria)).rejects.toMatchObject({ kind: 'denied', status: 403 });
    expect(() => client({ userAgent: ' ' })).toThrow(GeocodeError);
  });

  it('createGeocoder: none without configuration, Nominatim with it', () => {
    expect(createGeocoder(null, { appUrl: 'https://a.example' })).toBeNull();
    expect(createGeocoder({ provider: 'nominatim', url: double.url, apiKey: null, minConfidence: 0.8 }, { appUrl: 'https://a.example' })?.provider).toBe('nominatim');
  });
});
