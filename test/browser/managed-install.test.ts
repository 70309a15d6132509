// Shopify-managed installation, end to end against the shop simulator over
// HTTP: the shop has only the app installed (no session, no Shop row). The
// merchant opens the app in the admin; the embedded page loads at once (no
// OAuth redirect, no /exitiframe 404), and its first /api call exchanges the
// App Bridge session token for an expiring offline token. Real headless
// Chromium, the real app (in-process) routed to the simulator.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureFrontendBuilt, launchBrowser, openAdmin } from '../support/admin-browser.ts';
import { startTestApp, TEST_API_KEY, TEST_API_SECRET, type TestApp } from '../support/app.ts';
import { startShopSimulator, type RunningShopSimulator } from '../../dev/shop-sim/server.ts';
import { ShopSimControl } from '../../dev/shop-sim/control.ts';

let sim: RunningShopSimulator;
let ctl: ShopSimControl;
let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  await ensureFrontendBuilt();
  sim = await startShopSimulator({ apiKey: TEST_API_KEY, apiSecret: TEST_API_SECRET, appUrl: 'http://127.0.0.1:9' });
  ctl = new ShopSimControl(sim.url);
  app = await startTestApp({ SHOP_SIMULATOR_URL: sim.url });
  await ctl.updateSettings({ appUrl: app.url });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await sim?.close();
});

it('an embedded open with no stored session ends on the home page with a working /api/settings', async () => {
  const shop = 'managed.myshopify.com';
  await ctl.managedInstall(shop);
  expect(await app.db.session.count({ where: { shop } })).toBe(0);
  expect(await app.db.shop.count({ where: { domain: shop } })).toBe(0);

  // What the admin iframe loads: the app URL with embedded=1, shop, host, id_token, hmac.
  const { url } = await ctl.openApp(shop);
  const admin = await openAdmin(browser, app.url, shop, { sessionToken: () => ctl.sessionToken(shop) });
  const documents: Array<{ path: string; status: number }> = [];
  admin.page.on('response', (r) => {
    if (r.request().resourceType() === 'document') documents.push({ path: new URL(r.url()).pathname, status: r.status() });
  });
  const apiCalls: Array<{ path: string; status: number }> = [];
  admin.page.on('response', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/')) apiCalls.push({ path: new URL(r.url()).pathname, status: r.status() });
  });
  await admin.page.goto(url);
  await expect.poll(() => admin.page.getByText(/of 7 steps done/).count(), { timeout: 20_000 }).toBe(1);
  expect(documents).toEqual([{ path: '/', status: 200 }]);
  expect(new URL(admin.page.url()).pathname).toBe('/');
  expect(apiCalls.length).toBeGreaterThan(0);
  expect(apiCalls.filter((c) => c.status !== 200)).toEqual([]);

  const status = await admin.page.evaluate(async () => {
    const token = await (globalThis as any).shopify.idToken();
    const res = await fetch('/api/settings', { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.json() };
  });
  expect(status.status).toBe(200);
  expect(status.body).toHaveProperty('settings');

  // The exchange left an expiring offline token, stored encrypted, and recorded the install.
  const stored = await app.server.services()!.database.db.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
  expect(stored.accessToken).toMatch(/^enc:v1:/);
  expect(stored.expires!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
  expect(await app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).toMatchObject({ uninstalledAt: null });
  expect((await ctl.shop(shop)).accessTokenExpiresAt).not.toBeNull();

  // A customer asks for their data: the merchant sees the request in Settings and downloads the report.
  const delivered = await ctl.sendWebhook(shop, { topic: 'customers/data_request', customerId: '555' });
  expect(delivered.state).toBe('delivered');
  await admin.open('/settings/privacy');
  const section = admin.page; // Settings › Customer data requests
  await expect.poll(() => section.getByText('Download report').count(), { timeout: 15_000 }).toBe(1);
  const [download] = await Promise.all([admin.page.waitForEvent('download'), section.getByText('Download report').click()]);
  const report = JSON.parse(await new Promise<string>((resolve, reject) => {
    void download.createReadStream().then((s) => {
      let text = '';
      s.on('data', (c) => (text += c));
      s.on('end', () => resolve(text));
      s.on('error', reject);
    });
  }));
  expect(report.report).toMatchObject({ customerId: '555', deliveries: [] });
  await expect.poll(() => section.getByText('Not yet').count(), { timeout: 15_000 }).toBe(0);
  expect(admin.errors).toEqual([]);
  await admin.close();
}, 60_000);
