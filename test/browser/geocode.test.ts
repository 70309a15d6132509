// Geocoding in the merchant admin, in real headless Chromium against the local
// Nominatim double (dev/geocoder): the candidate of an address the geocoder was
// not sure of, booked with one click; and the Fix form's address search
// filling latitude and longitude.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeocoderDouble, type RunningGeocoderDouble } from '../../dev/geocoder/server.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop, placeOrder, waitForStatus } from '../support/scenario.ts';

let geo: RunningGeocoderDouble;

// Registered before browserSuite's hooks: the double starts before the app and closes after it.
beforeAll(async () => {
  geo = await startGeocoderDouble({ port: 0 });
});
afterAll(async () => {
  await geo?.close();
});

const suite = browserSuite({ scenario: () => ({ env: { GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: geo.url } }) });

describe('geocoding in the admin', () => {
  it('"Use this location" books an order the geocoder was not sure of', async () => {
    const { s } = suite;
    const shop = 'geo-candidate-ui.myshopify.com';
    const sim = await installShop(s, shop);
    const { orderId } = await placeOrder(s, sim, { shipping_address: { address1: '8115 Vilakazi Street', address2: null, city: 'Soweto', zip: '1804', latitude: null, longitude: null } });
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');

    const { page, open } = await suite.admin(shop);
    await open(`/deliveries/${d.id}`);
    await page.getByText('Check the map location').first().waitFor();
    await page.getByText('Vilakazi Street, Orlando West, Soweto, Johannesburg, Gauteng, 1804, South Africa', { exact: true }).waitFor();
    await page.getByText('-26.2384, 27.9086 · 60% sure (street match) · nominatim').waitFor();
    // The action that fixes it is the primary one, and comes first; Retry is there, secondary.
    const primary = await page.evaluate(() => [...(globalThis as any).document.querySelectorAll('s-button')].filter((b: any) => b.variant === 'primary').map((b: any) => b.textContent.trim()));
    expect(primary).toEqual(['Use this location']);
    await page.getByRole('button', { name: 'Retry', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Use this location' }).click();
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(JSON.parse(booked.requestBody!).dropoff).toMatchObject({ latitude: -26.2384, longitude: 27.9086 });
    await page.getByText('Created', { exact: true }).first().waitFor({ timeout: 15_000 });
  }, 90_000);

  it('the Fix form’s address search fills latitude and longitude; the merchant saves them', async () => {
    const { s } = suite;
    const shop = 'geo-search-ui.myshopify.com';
    const sim = await installShop(s, shop);
    geo.setMode('zero', { times: 1 });
    const { orderId } = await placeOrder(s, sim, { shipping_address: { address1: '1115 Burnett Street', city: 'Pretoria', zip: '0083', latitude: null, longitude: null } });
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('geocode_no_result');
    await s.app.db.geocodeCache.deleteMany({}); // "found nothing" is cached for a day; the search should ask again

    const { page, open } = await suite.admin(shop);
    await open(`/deliveries/${d.id}`);
    await page.getByText('Address not found on the map').first().waitFor();
    const searches = geo.requests.length;
    await page.getByRole('button', { name: 'Find the address on the map' }).click();
    await page.getByText('1115, Burnett Street, Hatfield, Pretoria, Gauteng, 0083, South Africa (-25.75373, 28.23768; 100% sure)').waitFor();
    expect(geo.requests.length).toBe(searches + 1); // one request per press, no type-ahead
    await page.getByRole('button', { name: 'Use 1115, Burnett Street, Hatfield, Pretoria, Gauteng, 0083, South Africa', exact: true }).click();
    expect(await page.getByRole('textbox', { name: 'Latitude' }).inputValue()).toBe('-25.75373');
    expect(await page.getByRole('textbox', { name: 'Longitude' }).inputValue()).toBe('28.23768');
    await page.getByRole('button', { name: 'Save and retry' }).click();
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(JSON.parse(booked.requestBody!).dropoff).toMatchObject({ latitude: -25.75373, longitude: 28.23768 });
  }, 90_000);
});
