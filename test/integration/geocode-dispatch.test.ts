// Geocoding wired into dispatch, over real HTTP against the local Nominatim
// double (dev/geocoder): an order without coordinates is geocoded and booked;
// a low-confidence match waits for the merchant with its candidate, and one
// click books it; nothing found → attention; a rate limit is waited out; with
// no geocoder configured nothing changes. SQLite and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeocoderDouble, type RunningGeocoderDouble } from '../../dev/geocoder/server.ts';
import { retentionSweep } from '../../web/privacy/erase.ts';
import { adminClient } from '../support/admin-client.ts';
import { startTestApp } from '../support/app.ts';
import { installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
let geo: RunningGeocoderDouble;
beforeAll(async () => {
  geo = await startGeocoderDouble({ port: 0 });
  s = await startScenario({ env: { GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: geo.url, GEOCODER_MIN_CONFIDENCE: '0.8' } });
});
afterAll(async () => {
  await s?.close();
  await geo?.close();
});
beforeEach(async () => {
  geo.reset();
  await s.courier.reset();
  await s.app.db.geocodeCache.deleteMany({});
});

const noCoordinates = { shipping_address: { address1: '1115 Burnett Street', address2: 'Hatfield', city: 'Pretoria', province: 'Gauteng', zip: '0083', latitude: null, longitude: null } };
const streetOnly = { shipping_address: { address1: '8115 Vilakazi Street', address2: null, city: 'Soweto', province: 'Gauteng', zip: '1804', latitude: null, longitude: null } };
const dropoffOf = (body: string | null) => JSON.parse(body!).dropoff as { latitude: number; longitude: number };

describe('dispatch geocodes an address without coordinates', () => {
  it('finds the coordinates, stores them marked as the geocoder’s and books the order', async () => {
    const shop = 'geo-ok.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, noCoordinates);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(dropoffOf(d.requestBody)).toMatchObject({ latitude: -25.75373, longitude: 28.23768 });
    expect(JSON.parse(d.overridesJson)).toMatchObject({ latitude: -25.75373, longitude: 28.23768, geocode: { state: 'used', provider: 'nominatim', confidence: 1 } });
    expect(d.events.find((e) => e.kind === 'geocoded')?.message).toBe('Coordinates found by the geocoder (nominatim, 100% sure)');
    const searches = geo.requests.filter((r) => r.path === '/search');
    expect(searches).toHaveLength(1);
    expect(searches[0]!.userAgent).toBe('same-day-dispatch (+https://app.example.test)');

    // A second order to the same address comes from the cache.
    const again = await placeOrder(s, sim, noCoordinates);
    await waitForStatus(s.app, shop, again.orderId, 'CREATED');
    expect(geo.requests.filter((r) => r.path === '/search')).toHaveLength(1);
  });

  it('low confidence: NEEDS_ATTENTION showing the candidate; "Use this location" (Fix with its coordinates) books it', async () => {
    const shop = 'geo-low.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, streetOnly);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('geocode_low_confidence');
    expect(d.reason).toMatch(/^The geocoder is 60% sure \(street match: Vilakazi Street/);
    expect(await s.courier.requests({ route: 'create' })).toHaveLength(0);

    const api = adminClient(s.app.url, shop);
    const view = await api.get(`/api/deliveries/${d.id}`);
    expect(view.status).toBe(200);
    expect(view.body.delivery.geocodeCandidate).toEqual({
      lat: -26.2384, lng: 27.9086, confidence: 0.6, precision: 'street', provider: 'nominatim',
      formattedAddress: 'Vilakazi Street, Orlando West, Soweto, Johannesburg, Gauteng, 1804, South Africa',
    });
    expect(view.body.delivery.actions).toContain('fix');

    const c = view.body.delivery.geocodeCandidate;
    expect((await api.post(`/api/deliveries/${d.id}/fix`, { latitude: c.lat, longitude: c.lng })).status).toBe(200);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(dropoffOf(booked.requestBody)).toMatchObject({ latitude: -26.2384, longitude: 27.9086 });
    expect(JSON.parse(booked.overridesJson).geocode).toBeUndefined();
    expect((await api.get(`/api/deliveries/${d.id}`)).body.delivery.geocodeCandidate).toBeNull();
  });

  it('zero results: NEEDS_ATTENTION geocode_no_result, nothing sent to the courier', async () => {
    const shop = 'geo-zero.myshopify.com';
    const sim = await installShop(s, shop);
    geo.setMode('zero');
    const { orderId } = await placeOrder(s, sim, noCoordinates);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('geocode_no_result');
    expect(d.reason).toBe('The geocoder found no place for this address; enter the coordinates');
    expect(await s.courier.requests({ route: 'create' })).toHaveLength(0);
  });

  it('rate limited: the job waits for Retry-After and tries again, then books', async () => {
    const shop = 'geo-429.myshopify.com';
    const sim = await installShop(s, shop);
    geo.setMode('rate_limit', { times: 1, retryAfter: '2' });
    const { orderId } = await placeOrder(s, sim, noCoordinates);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const searches = geo.requests.filter((r) => r.path === '/search');
    expect(searches).toHaveLength(2);
    // The job's own backoff here is under 500 ms: the gap is the geocoder's Retry-After.
    expect(searches[1]!.at - searches[0]!.at).toBeGreaterThanOrEqual(1_900);
    expect(dropoffOf(d.requestBody)).toMatchObject({ latitude: -25.75373, longitude: 28.23768 });
  });

  it('the retention sweep deletes expired geocoding answers', async () => {
    const shop = 'geo-sweep.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, noCoordinates);
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(await s.app.db.geocodeCache.count()).toBe(1);
    expect(await retentionSweep(s.app.db, { now: Date.now(), retentionDays: 90 })).toMatchObject({ geocodes: 0 });
    expect(await retentionSweep(s.app.db, { now: Date.now() + 31 * 24 * 3_600_000, retentionDays: 90 })).toMatchObject({ geocodes: 1 });
    expect(await s.app.db.geocodeCache.count()).toBe(0);
  });
});

describe('the Fix form’s address search (POST /api/geocode)', () => {
  const search = { address1: '1115 Burnett Street', city: 'Pretoria', province: 'Gauteng', zip: '0083', countryCode: 'za' };
  it('answers the places, best first; an empty list when nothing is found', async () => {
    const shop = 'geo-search.myshopify.com';
    await installShop(s, shop);
    const api = adminClient(s.app.url, shop);
    const r = await api.post('/api/geocode', search);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ places: [{ lat: -25.75373, lng: 28.23768, confidence: 1, precision: 'building', formattedAddress: '1115, Burnett Street, Hatfield, Pretoria, Gauteng, 0083, South Africa' }] });
    expect(geo.requests.at(-1)!.params).toMatchObject({ countrycodes: 'za', format: 'jsonv2' });
    expect((await api.get('/api/settings')).body.geocoder).toEqual({ active: { provider: 'nominatim', host: `127.0.0.1:${geo.port}`, minConfidence: 0.8, source: 'app' }, own: null });
    geo.setMode('zero');
    expect((await api.post('/api/geocode', { ...search, address1: '1 Nowhere Road' })).body).toEqual({ places: [] });
  });

  it('bad input names the field; a rate limit is a 429, an outage a 503, never a 500', async () => {
    const shop = 'geo-search-bad.myshopify.com';
    await installShop(s, shop);
    const api = adminClient(s.app.url, shop);
    const bad = await api.post('/api/geocode', { ...search, city: '', countryCode: 'South Africa' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ city: 'enter the city', countryCode: 'expected a two-letter country code like ZA' });
    expect((await api.post('/api/geocode', { ...search, lat: 1 })).status).toBe(422);
    geo.setMode('rate_limit', { times: 1 });
    const limited = await api.post('/api/geocode', search);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/rate limiting us/);
    geo.setMode('error', { times: 1 });
    expect((await api.post('/api/geocode', search)).status).toBe(503);
    expect(geo.requests.filter((r) => r.path === '/search')).toHaveLength(2);
  });
});

describe('a shop’s own geocoder (settings)', () => {
  it('is used instead of the app-wide one; its key is encrypted at rest and never sent to the browser', async () => {
    const own = await startGeocoderDouble({ port: 0 });
    try {
      const shop = 'geo-own.myshopify.com';
      const sim = await installShop(s, shop);
      const api = adminClient(s.app.url, shop);
      const bad = await api.put('/api/settings', { geocoder: { provider: 'nominatim', url: 'ftp://x', apiKey: '' } });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toMatchObject({ 'geocoder.url': 'expected the http(s) base URL of the geocoder', 'geocoder.apiKey': 'must not be empty' });
      expect((await api.put('/api/settings', { geocoder: { provider: 'nominatim', url: `${own.url}/`, apiKey: 'shop-geo-key-9876' } })).status).toBe(200);

      const settings = await api.get('/api/settings');
      expect(settings.body.geocoder).toEqual({
        active: { provider: 'nominatim', host: `127.0.0.1:${own.port}`, minConfidence: 0.8, source: 'shop' },
        own: { provider: 'nominatim', url: own.url, apiKey: { set: true, last4: '9876' } },
      });
      expect(JSON.stringify(settings.body)).not.toContain('shop-geo-key-9876');
      const row = await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } });
      expect(row.geocoderKeyEnc).toBeTruthy();
      expect(row.geocoderKeyEnc).not.toContain('shop-geo-key-9876');

      const { orderId } = await placeOrder(s, sim, noCoordinates);
      await waitForStatus(s.app, shop, orderId, 'CREATED');
      expect(own.requests.filter((r) => r.path === '/search').map((r) => r.keySent)).toEqual([true]);
      expect(geo.requests).toHaveLength(0);

      // Turned off: the app-wide one again.
      expect((await api.put('/api/settings', { geocoder: { provider: null } })).status).toBe(200);
      expect((await api.get('/api/settings')).body.geocoder).toMatchObject({ active: { source: 'app' }, own: null });
    } finally {
      await own.close();
    }
  });
});

describe('no geocoder configured', () => {
  it('an address without coordinates goes to NEEDS_ATTENTION as before, and nothing is looked up', async () => {
    const app = await startTestApp({ COURIER_TEST_BASE_URL: s.sandbox.url });
    try {
      const shop = 'geo-none.myshopify.com';
      const sim = await installShop(s, shop, { app });
      const { orderId } = await placeOrder(s, sim, noCoordinates, { appUrl: app.url });
      const d = await waitForStatus(app, shop, orderId, 'NEEDS_ATTENTION');
      expect(d.reasonCode).toBe('missing_coordinates');
      expect(d.reason).toBe('Shipping address has no coordinates');
      expect(JSON.parse(d.overridesJson)).toEqual({});
      expect(geo.requests).toHaveLength(0);
      const api = adminClient(app.url, shop);
      expect((await api.get(`/api/deliveries/${d.id}`)).body.delivery).toMatchObject({ geocoder: false, geocodeCandidate: null });
      const r = await api.post('/api/geocode', { address1: '1115 Burnett Street', city: 'Pretoria', countryCode: 'ZA' });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatch(/^No geocoder is configured: set one in Settings, or GEOCODER_PROVIDER/);
      expect((await api.get('/api/settings')).body.geocoder).toEqual({ active: null, own: null });
    } finally {
      await app.close();
    }
  });
});
