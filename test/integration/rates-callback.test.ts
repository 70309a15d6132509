// The rate callback in-process on both databases: the delivery-windows seam (isOpen) is
// asked once per request with the pickup store, a closed or late answer means no rate, and
// a courier that cannot quote (no credentials) gives the fallback rate. Never a 500. Shopify's own
// sample request (no phone on either address) is priced by the sandbox courier once rates.quotePhone is set.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateRequestBody } from '../../dev/shop-sim/carrier-services.ts';
import { SandboxControl } from '../../dev/sandbox/control.ts';
import { startSandboxCourier, type RunningSandbox } from '../../dev/sandbox/courier.ts';
import { priceCents } from '../../dev/sandbox/validate.ts';
import { RATES_CALLBACK_PATH, ratesCallbackRoute } from '../../web/rates/route.ts';
import { windowsOpen, type OpenQuery, type SameDayOpen } from '../../web/rates/hours.ts';
import { ensureShop, updateEnvironment, updateSettings } from '../../web/settings/store.ts';
import { startTestApp, TEST_API_SECRET, type TestApp } from '../support/app.ts';
import { listenOnLoopback, type Listening } from '../support/listen.ts';
import { SANDBOX_CLIENT } from '../support/scenario.ts';

const SHOP = 'rates-cb.myshopify.com';
let app: TestApp;
let server: Listening;
let sandbox: RunningSandbox;
let isOpen: SameDayOpen = () => true;
const asked: OpenQuery[] = [];

beforeAll(async () => {
  sandbox = await startSandboxCourier({ stepIntervalMs: 0, webhooksEnabled: false });
  app = await startTestApp({ COURIER_TEST_BASE_URL: sandbox.url });
  await ensureShop(app.db, SHOP);
  await updateSettings(app.db, SHOP, { rates: { enabled: true, fallbackRate: '50', timeoutMs: 500 } });
  await updateEnvironment(app.db, app.ctx.box, SHOP, 'test', { pickupStoreId: 'store_1' });
  const e = express();
  e.post(RATES_CALLBACK_PATH, ...ratesCallbackRoute(app.ctx, { isOpen: (q) => (asked.push(q), isOpen(q)) }));
  server = await listenOnLoopback(e);
});

afterAll(async () => {
  await server?.close();
  await app?.close();
  await sandbox?.close();
});

async function checkout(shop = SHOP, body = rateRequestBody({})) {
  const started = Date.now();
  const res = await fetch(`${server.url}${RATES_CALLBACK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': createHmac('sha256', TEST_API_SECRET).update(body).digest('base64'), 'x-shopify-shop-domain': shop },
    body,
  });
  return { status: res.status, body: await res.json(), ms: Date.now() - started };
}

it('open, but the courier cannot quote (no credentials): the fallback rate', async () => {
  isOpen = () => true;
  const r = await checkout();
  expect(r).toMatchObject({ status: 200, body: { rates: [{ total_price: '5000', service_code: 'SDD_SAME_DAY', currency: 'ZAR' }] } });
  expect(asked.at(-1)).toMatchObject({ shop: SHOP, storeId: 'store_1' });
});

it('closed for this location: no rate, even with a fallback', async () => {
  isOpen = () => false;
  expect(await checkout()).toMatchObject({ status: 200, body: { rates: [] } });
});

it('the windows answer never comes: no rate, answered by the deadline', async () => {
  isOpen = () => new Promise<boolean>(() => {});
  const r = await checkout();
  expect(r).toMatchObject({ status: 200, body: { rates: [] } });
  expect(r.ms).toBeLessThan(1500);
});

it('a shop the app does not know: no rate, and windows are not asked', async () => {
  isOpen = () => true;
  const before = asked.length;
  expect(await checkout('stranger.myshopify.com')).toMatchObject({ status: 200, body: { rates: [] } });
  expect(asked.length).toBe(before);
});

it('out of hours by the shop\'s delivery windows (the app\'s default seam): no rate', async () => {
  isOpen = windowsOpen;
  const today = new Date(app.ctx.now()).getUTCDay();
  const other = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][(today + 3) % 7]!;
  await updateSettings(app.db, SHOP, { windows: { default: { timeZone: 'UTC', hours: { [other]: { open: '08:00', close: '17:00' } } } } });
  try {
    expect(await checkout()).toMatchObject({ status: 200, body: { rates: [] } });
  } finally {
    await updateSettings(app.db, SHOP, { windows: { default: null } });
  }
  expect(await checkout()).toMatchObject({ status: 200, body: { rates: [{ total_price: '5000' }] } });
});

it("Shopify's documented sample (no phone on either address): no rate, then priced once rates.quotePhone is set", async () => {
  isOpen = () => true;
  const shop = 'rates-sample.myshopify.com';
  await ensureShop(app.db, shop);
  await updateSettings(app.db, shop, { rates: { enabled: true, timeoutMs: 2000 } });
  await updateEnvironment(app.db, app.ctx.box, shop, 'test', { clientId: SANDBOX_CLIENT.clientId, clientSecret: SANDBOX_CLIENT.clientSecret, pickupStoreId: 'store_sandbox_001' });
  const courier = new SandboxControl(sandbox.url);
  const sample = JSON.parse(readFileSync(new URL('../fixtures/shopify/carrier-service-rate-request.json', import.meta.url), 'utf8'));
  // Verbatim but for the destination's coordinates (24 Sussex Dr., Ottawa): this app has no geocoder,
  // and the quote needs them. Country (CA) and currency (USD) stay: the sandbox quotes in the request's currency.
  sample.rate.destination.latitude = 45.4444;
  sample.rate.destination.longitude = -75.6939;
  const body = JSON.stringify(sample);

  expect(await checkout(shop, body)).toMatchObject({ status: 200, body: { rates: [] } });
  expect(await courier.requests({ route: 'quote' })).toHaveLength(0); // refused before the courier: no phone to send
  expect(app.logs.filter((l) => l.includes(shop)).at(-1)).toContain('set a phone for checkout quotes');

  await updateSettings(app.db, shop, { rates: { quotePhone: '+1 613 555 0100' } });
  const r = await checkout(shop, body);
  // 1000 g: the 1 kg band, SMALL; no markup, fee or rounding by default.
  const quote = priceCents({ serviceType: 'SAME_DAY', size: 'SMALL', weightGrams: 1000 });
  expect(r).toMatchObject({ status: 200, body: { rates: [{ service_code: 'SDD_SAME_DAY', total_price: String(quote), currency: 'USD' }] } });
  // The sandbox requires dropoff.phone in international format: the setting's is the only one there is.
  expect((await courier.requests({ route: 'quote' })).map((q) => q.status)).toEqual([200]);
});
