// The pure parts of web/geocoding: query and cache key, Nominatim's jsonv2
// answer and its confidence, the threshold decision, and the configuration.
import { describe, expect, it } from 'vitest';
import { geocodeCacheKey, normaliseAddress, queryFromAddress } from '../../web/geocoding/address.ts';
import { decideGeocode } from '../../web/geocoding/decision.ts';
import { parseSearchResponse, searchUrl } from '../../web/geocoding/nominatim.ts';
import { GeocodeError, type AddressQuery, type GeocodeResult } from '../../web/geocoding/types.ts';
import { ConfigError, loadConfig } from '../../web/config/env.ts';

const q: AddressQuery = { address1: '1115 Burnett Street', address2: 'Unit 4', city: 'Pretoria', province: 'Gauteng', zip: '0083', countryCode: 'ZA' };

describe('queryFromAddress', () => {
  it('takes the order address fields, country upper-cased', () => {
    expect(queryFromAddress({ address1: '1115 Burnett Street', address2: null, city: 'Pretoria', province: 'Gauteng', zip: '0083', country_code: 'za' }))
      .toEqual({ address1: '1115 Burnett Street', address2: null, city: 'Pretoria', province: 'Gauteng', zip: '0083', countryCode: 'ZA' });
  });
  it.each([
    ['no street', { address1: null, address2: null, city: 'Pretoria', province: null, zip: null, country_code: 'ZA' }],
    ['no city', { address1: '1 Main Road', address2: null, city: null, province: null, zip: null, country_code: 'ZA' }],
    ['no country', { address1: '1 Main Road', address2: null, city: 'Pretoria', province: null, zip: null, country_code: null }],
    ['no address', null],
  ])('none with %s', (_name, addr) => {
    expect(queryFromAddress(addr)).toBeNull();
  });
});

describe('normalised address and cache key', () => {
  it.each<[string, Partial<AddressQuery>]>([
    ['case', { address1: '1115 BURNETT STREET', city: 'pretoria' }],
    ['spacing and punctuation', { address1: ' 1115,  Burnett Street. ', zip: ' 0083 ' }],
    ['accents', { city: 'Prétoria' }],
    ['address2 (unit, floor)', { address2: 'Flat 12' }],
  ])('ignores %s', (_name, changes) => {
    expect(normaliseAddress({ ...q, ...changes })).toBe(normaliseAddress(q));
    expect(geocodeCacheKey('nominatim', { ...q, ...changes })).toBe(geocodeCacheKey('nominatim', q));
  });
  it.each<[string, Partial<AddressQuery>]>([
    ['house number', { address1: '1117 Burnett Street' }],
    ['city', { city: 'Johannesburg' }],
    ['zip', { zip: '0084' }],
    ['country', { countryCode: 'NA' }],
  ])('tells apart another %s', (_name, changes) => {
    expect(geocodeCacheKey('nominatim', { ...q, ...changes })).not.toBe(geocodeCacheKey('nominatim', q));
  });
  it('is per provider, and a hash: no address in the clear', () => {
    expect(geocodeCacheKey('google', q)).not.toBe(geocodeCacheKey('nominatim', q));
    expect(geocodeCacheKey('nominatim', q)).toMatch(/^[0-9a-f]{64}$/);
    expect(normaliseAddress(q)).toBe('za|0083|gauteng|pretoria|1115 burnett street');
  });
});

describe('Nominatim search URL', () => {
  it('asks jsonv2 with address details, in the address country, free-form without address2', () => {
    const u = new URL(searchUrl('http://127.0.0.1:4030/', q));
    expect(u.pathname).toBe('/search');
    expect(Object.fromEntries(u.searchParams)).toEqual({ q: '1115 Burnett Street, Pretoria, Gauteng, 0083', countrycodes: 'za', format: 'jsonv2', addressdetails: '1', limit: '5' });
  });
  it('sends a key only when there is one', () => {
    expect(new URL(searchUrl('https://geo.example', q, 'k-123')).searchParams.get('key')).toBe('k-123');
    expect(new URL(searchUrl('https://geo.example', q, null)).searchParams.has('key')).toBe(false);
  });
});

/** A jsonv2 place as Nominatim documents it. */
const place = (o: { lat?: string; lon?: string; rank?: number; house?: string; postcode?: string; name?: string } = {}) => ({
  place_id: 1, licence: 'Data © OpenStreetMap contributors', osm_type: 'node', osm_id: 2,
  lat: o.lat ?? '-25.7537300', lon: o.lon ?? '28.2376800', category: 'place', type: 'house', place_rank: o.rank ?? 30, importance: 0.00001,
  addresstype: 'place', name: '', display_name: o.name ?? '1115, Burnett Street, Hatfield, Pretoria, Gauteng, 0083, South Africa',
  address: { ...(o.house === '' ? {} : { house_number: o.house ?? '1115' }), road: 'Burnett Street', postcode: o.postcode ?? '0083', country_code: 'za' },
  boundingbox: ['-25.75', '-25.75', '28.23', '28.23'],
});

describe('reading a jsonv2 answer', () => {
  it.each<[string, unknown[], number, string]>([
    // [name, places, confidence, precision]
    ['the house number found', [place()], 1, 'building'],
    ['a street match (rank 26)', [place({ rank: 26, house: '' })], 0.6, 'street'],
    ['a building without the house number asked for', [place({ house: '' })], 0.6, 'street'],
    ['another house number', [place({ house: '1117' })], 0.6, 'street'],
    ['a suburb (rank 19)', [place({ rank: 19, house: '' })], 0.3, 'area'],
    ['a city (rank 16)', [place({ rank: 16, house: '' })], 0.1, 'area'],
    ['a different postcode', [place({ postcode: '0028' })], 0.8, 'building'],
    ['two buildings far apart (ambiguous)', [place(), place({ lat: '-25.7000000' })], 0.5, 'building'],
    ['two entries for one building', [place(), place({ lat: '-25.7537400' })], 1, 'building'],
    ['the best candidate first', [place({ rank: 26, house: '' }), place()], 1, 'building'],
  ])('%s', (_name, places, confidence, precision) => {
    const r = parseSearchResponse(places, q)!;
    expect(r).toMatchObject({ provider: 'nominatim', confidence, precision });
    expect(r.candidates).toHaveLength(places.length);
  });

  it('gives coordinates as numbers to 7 places, with the formatted address', () => {
    const r = parseSearchResponse([place({ lat: '-25.75373004', lon: '28.2376800' })], q)!;
    expect([r.lat, r.lng, r.formattedAddress]).toEqual([-25.75373, 28.23768, '1115, Burnett Street, Hatfield, Pretoria, Gauteng, 0083, South Africa']);
  });

  it('an empty list is no result', () => {
    expect(parseSearchResponse([], q)).toBeNull();
  });

  it.each([
    ['an error object', { error: { code: 400, message: 'bad' } }],
    ['a place without coordinates', [{ display_name: 'x' }]],
    ['a latitude out of range', [place({ lat: '123' })]],
    ['a latitude that is not a number', [place({ lat: 'north' })]],
  ])('refuses %s', (_name, body) => {
    expect(() => parseSearchResponse(body, q)).toThrow(GeocodeError);
  });
});

const result = (confidence: number): GeocodeResult => {
  const c = { lat: -25.75373, lng: 28.23768, confidence, formattedAddress: '1115, Burnett Street, Pretoria', precision: 'street' as const };
  return { provider: 'nominatim', ...c, candidates: [c] };
};

describe('decideGeocode', () => {
  it.each<[string, GeocodeResult | null, number, string]>([
    ['above the threshold', result(1), 0.8, 'ok'],
    ['at the threshold', result(0.8), 0.8, 'ok'],
    ['below the threshold', result(0.6), 0.8, 'needs_confirmation'],
    ['a threshold of 0 takes anything found', result(0.1), 0, 'ok'],
    ['nothing found', null, 0, 'none'],
  ])('%s', (_name, r, threshold, kind) => {
    expect(decideGeocode(r, threshold).kind).toBe(kind);
  });

  it('shows the candidate to confirm and says how sure it is', () => {
    const d = decideGeocode(result(0.6), 0.8);
    expect(d).toEqual({
      kind: 'needs_confirmation', candidate: result(0.6).candidates[0], candidates: result(0.6).candidates,
      message: 'The geocoder is 60% sure (street match: 1115, Burnett Street, Pretoria); confirm the location or enter the coordinates',
    });
  });
});

describe('GEOCODER_* configuration', () => {
  it('is off unless a provider is named', () => {
    expect(loadConfig({}).geocoder).toBeNull();
    expect(loadConfig({ GEOCODER_URL: 'http://127.0.0.1:4030' }).geocoder).toBeNull();
  });
  it('defaults to the public Nominatim and 0.8', () => {
    expect(loadConfig({ GEOCODER_PROVIDER: 'nominatim' }).geocoder).toEqual({ provider: 'nominatim', url: 'https://nominatim.openstreetmap.org', apiKey: null, minConfidence: 0.8 });
  });
  it('takes a URL, a key and a threshold', () => {
    expect(loadConfig({ GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: 'http://127.0.0.1:4030/', GEOCODER_API_KEY: 'k', GEOCODER_MIN_CONFIDENCE: '0.5' }).geocoder)
      .toEqual({ provider: 'nominatim', url: 'http://127.0.0.1:4030', apiKey: 'k', minConfidence: 0.5 });
  });
  it('names each bad variable', () => {
    expect(() => loadConfig({ GEOCODER_PROVIDER: 'mapquest', GEOCODER_URL: 'ftp://x', GEOCODER_MIN_CONFIDENCE: '2' })).toThrow(ConfigError);
    try {
      loadConfig({ GEOCODER_PROVIDER: 'mapquest', GEOCODER_URL: 'ftp://x', GEOCODER_MIN_CONFIDENCE: '2' });
    } catch (e) {
      expect((e as Error).message.split('\n')).toEqual([
        'Configuration error: GEOCODER_PROVIDER is invalid: expected one of nominatim',
        'Configuration error: GEOCODER_URL is invalid: expected the http(s) base URL of the geocoder',
        'Configuration error: GEOCODER_MIN_CONFIDENCE is invalid: expected a number from 0 to 1',
      ]);
    }
  });
});
