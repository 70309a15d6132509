// The geocoding cache on a real database (SQLite and PostgreSQL) in front of
// the Nominatim client and the local double: one request per normalised
// address, "found nothing" remembered for less time, errors never cached, the
// answer encrypted at rest.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeocoderDouble, type RunningGeocoderDouble } from '../../dev/geocoder/server.ts';
import type { Database, Db } from '../../web/db/client.ts';
import { protectPersonalData, reencryptPersonalData } from '../../web/db/protected-data.ts';
import { cachedGeocode, DEFAULT_NEGATIVE_TTL_MS, DEFAULT_TTL_MS, GeocodeCacheStore } from '../../web/geocoding/cache.ts';
import { geocodeCacheKey } from '../../web/geocoding/address.ts';
import { NominatimGeocoder } from '../../web/geocoding/nominatim.ts';
import { geocodeAddress } from '../../web/geocoding/service.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { loadOrderFixture } from '../support/orders.ts';
import type { AddressQuery } from '../../web/geocoding/types.ts';
import { SecretBox } from '../../web/security/crypto.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase } from '../support/db.ts';

let url: string;
let database: Database;
let db: Db;
let double: RunningGeocoderDouble;
let clock = Date.parse('2026-11-23T08:00:00Z');
const key1 = randomBytes(32);
beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  db = protectPersonalData(database.db, new SecretBox([key1]));
  double = await startGeocoderDouble();
});
afterAll(async () => {
  await double?.close();
  await database?.close();
  await dropDatabase(url);
});
beforeEach(async () => {
  double.reset();
  await database.db.geocodeCache.deleteMany({});
});

const geocoder = new NominatimGeocoder({ baseUrl: 'http://127.0.0.1:1', userAgent: 'same-day-dispatch (+https://dispatch.example.com)' });
const client = () => new NominatimGeocoder({ baseUrl: double.url, userAgent: 'same-day-dispatch (+https://dispatch.example.com)', now: () => clock });
const store = () => new GeocodeCacheStore(db, { now: () => clock });
const pretoria: AddressQuery = { address1: '1115 Burnett Street', city: 'Pretoria', province: 'Gauteng', zip: '0083', countryCode: 'ZA' };

describe('cachedGeocode', () => {
  it('asks once per normalised address, then answers from the cache', async () => {
    const first = await cachedGeocode(client(), store(), pretoria);
    expect(first).toMatchObject({ cached: false, result: { lat: -25.75373, lng: 28.23768, confidence: 1 } });
    const again = await cachedGeocode(client(), store(), { ...pretoria, address1: '1115  BURNETT street', address2: 'Unit 4' });
    expect(again).toEqual({ ...first, cached: true });
    expect(double.requests).toHaveLength(1);
  });

  it('stores the answer encrypted, under a hash of the address', async () => {
    await cachedGeocode(client(), store(), pretoria);
    const [row] = await database.db.geocodeCache.findMany({});
    expect(row!.key).toBe(geocodeCacheKey('nominatim', pretoria));
    expect(row!.result).not.toContain('Burnett');
    expect(row!.expiresAt.getTime()).toBe(clock + DEFAULT_TTL_MS);
    expect((await store().get(row!.key))).toMatchObject({ hit: true, result: { formattedAddress: expect.stringContaining('Burnett Street') } });
  });

  it('remembers "found nothing" for a day, then asks again', async () => {
    double.setMode('zero');
    expect(await cachedGeocode(client(), store(), pretoria)).toEqual({ result: null, cached: false });
    expect(await cachedGeocode(client(), store(), pretoria)).toEqual({ result: null, cached: true });
    expect(double.requests).toHaveLength(1);
    clock += DEFAULT_NEGATIVE_TTL_MS;
    double.setMode('normal');
    expect(await cachedGeocode(client(), store(), pretoria)).toMatchObject({ cached: false, result: { confidence: 1 } });
  });

  it('never caches a rate limit or a failure', async () => {
    double.setMode('rate_limit', { times: 1, retryAfter: '3' });
    await expect(cachedGeocode(client(), store(), pretoria)).rejects.toMatchObject({ kind: 'rate_limited', retryAfterMs: 3_000 });
    await expect(cachedGeocode(geocoder, store(), pretoria)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await database.db.geocodeCache.count()).toBe(0);
    expect(await cachedGeocode(client(), store(), pretoria)).toMatchObject({ cached: false });
  });

  it('a key rotation re-encrypts cached answers with the rest of the personal data', async () => {
    await cachedGeocode(client(), store(), pretoria);
    const before = (await database.db.geocodeCache.findFirstOrThrow({})).result;
    const rotated = new SecretBox([randomBytes(32), key1]);
    expect(await reencryptPersonalData(database.db, rotated)).toBeGreaterThanOrEqual(1);
    const after = (await database.db.geocodeCache.findFirstOrThrow({})).result;
    expect(after).not.toBe(before);
    expect(JSON.parse(rotated.decrypt(after!))).toMatchObject({ lat: -25.75373 });
  });

  it('sweeps expired answers', async () => {
    await cachedGeocode(client(), store(), pretoria);
    double.setMode('zero');
    await cachedGeocode(client(), store(), { ...pretoria, address1: '1 Nowhere Lane' });
    clock += DEFAULT_NEGATIVE_TTL_MS;
    expect(await store().sweep()).toBe(1);
    expect(await database.db.geocodeCache.count()).toBe(1);
  });
});

describe('geocodeAddress (what dispatch calls)', () => {
  const address = (name: string) => parseOrderSnapshot(loadOrderFixture(name)).shipping_address;

  it('the fixture order without coordinates gets them, confidently', async () => {
    expect(await geocodeAddress(client(), store(), address('no-coordinates'), 0.8)).toEqual({
      kind: 'ok', lat: -25.75373, lng: 28.23768, confidence: 1, cached: false,
      formattedAddress: '1115, Burnett Street, Hatfield, Pretoria, Gauteng, 0083, South Africa',
    });
  });

  it('a street-only match waits for confirmation; nothing found leaves it to the merchant', async () => {
    const soweto = { ...address('local-phone')!, latitude: null, longitude: null };
    expect(await geocodeAddress(client(), store(), soweto, 0.8)).toMatchObject({ kind: 'needs_confirmation', candidate: { precision: 'street' } });
    double.setMode('zero');
    expect(await geocodeAddress(client(), store(), { ...soweto, address1: '1 Nowhere Lane' }, 0.8)).toMatchObject({ kind: 'none' });
  });

  it('does nothing without a geocoder or with an address too incomplete to look up', async () => {
    expect(await geocodeAddress(null, store(), address('no-coordinates'), 0.8)).toBeNull();
    expect(await geocodeAddress(client(), store(), { ...address('no-coordinates')!, city: null }, 0.8)).toBeNull();
    expect(double.requests).toHaveLength(0);
  });
});
