// Every admin page within Built for Shopify's web vitals, with no serious or
// critical axe-core violation in our own markup: Lighthouse (desktop) and
// axe-core in Debian's Chromium (test/support/vitals.ts), against the real app
// with real data, App Bridge and Polaris from our stand-ins. Each page's
// figures are printed (VITALS lines) for the closing note. To audit another
// page, add an entry to PAGES; the customer tracking page (English and German)
// is audited the same way, without the admin stand-ins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import { ensureFrontendBuilt } from '../support/admin-browser.ts';
import { adminClient } from '../support/admin-client.ts';
import { installShop, placeOrder, SANDBOX_CLIENT, startScenario, waitForStatus, WEBHOOK_SECRET, type Scenario } from '../support/scenario.ts';
import { adminStandIns, auditPage, embeddedUrl, startAuditBrowser, vitalsLine, vitalsProblems, type AuditBrowser, type PageVitals } from '../support/vitals.ts';
import { updateEnvironment, updateSettings } from '../../web/settings/store.ts';
import { ensureTrackingToken } from '../../web/tracking/store.ts';

let s: Scenario;
let audit: AuditBrowser;
const SET_UP = 'vitals-home.myshopify.com';
const NEW = 'vitals-new.myshopify.com';
/** Orders booked and one stuck, but set-up unfinished (live never switched on): checklist open, banner and dashboard too. */
const BUSY = 'vitals-busy.myshopify.com';
const TRACKED = 'vitals-tracked.myshopify.com';
let attentionId = '';
let bookedId = '';
/** The customer's tracking pages (no admin, no stand-ins): an English and a German order. */
let trackingEn = '';
let trackingDe = '';

const BAD_PHONE = { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } };

/** Three orders booked and one stuck on a bad phone: the ids of the last booked and of the stuck one. */
async function withOrders(domain: string): Promise<{ booked: string; stuck: string }> {
  const sim = await installShop(s, domain);
  let booked = '';
  for (let i = 0; i < 3; i++) {
    const { orderId } = await placeOrder(s, sim);
    booked = (await waitForStatus(s.app, domain, orderId, 'CREATED')).id;
  }
  const stuck = await placeOrder(s, sim, BAD_PHONE);
  return { booked, stuck: (await waitForStatus(s.app, domain, stuck.orderId, 'NEEDS_ATTENTION')).id };
}

/** A shop past onboarding (live tested and active) with bookings, one needing attention, and an unmatched courier event. */
async function setUpShop(domain: string) {
  ({ booked: bookedId, stuck: attentionId } = await withOrders(domain));
  await updateEnvironment(s.app.db, s.app.server.services()!.box, domain, 'live', { ...SANDBOX_CLIENT, baseUrl: s.sandbox.url, pickupStoreId: 'store_sandbox_002', webhookSecret: WEBHOOK_SECRET });
  expect((await adminClient(s.app.url, domain).post('/api/environments/live/test-connection')).body).toMatchObject({ ok: true });
  const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain } });
  await s.app.db.courierEnvironment.updateMany({ where: { shopId: shop.id }, data: { lastWebhookAt: new Date() } });
  await updateSettings(s.app.db, domain, { activeEnvironment: 'live' });
  const env = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shopId: shop.id, environment: 'test' } });
  await s.app.db.courierEvent.create({ data: { environmentId: env.id, eventId: 'evt-vitals-1', type: 'delivery.status.updated', deliveryRef: 'unknown-ref', status: 'in_transit', payload: '{"id":"evt-vitals-1"}', state: 'UNMATCHED' } });
  expect((await adminClient(s.app.url, domain).get('/api/onboarding')).body.complete).toBe(true);
}

beforeAll(async () => {
  await ensureFrontendBuilt();
  [s, audit] = await Promise.all([startScenario({ runtime: { fulfillment: { reconcileIntervalMs: 0 } } }), startAuditBrowser()]);
  await setUpShop(SET_UP);
  await withOrders(BUSY);
  await installShop(s, NEW, { settings: { autoDispatch: false } });
  const sim = await installShop(s, TRACKED);
  for (const [locale, set] of [['en', (u: string) => { trackingEn = u; }], ['de', (u: string) => { trackingDe = u; }]] as const) {
    const { orderId } = await placeOrder(s, sim, { customer_locale: locale });
    const d = await waitForStatus(s.app, TRACKED, orderId, 'CREATED');
    set(`/track/${await ensureTrackingToken(s.app.db, d.id)}`);
  }
}, 180_000);

afterAll(async () => {
  await audit?.close();
  await s?.close();
});

/** The page shows its data (no skeleton left); then what is folded is opened, so axe checks it too. */
async function settled(page: Page) {
  await page.waitForFunction(() => {
    const doc = (globalThis as any).document;
    return !doc.querySelector('.skeleton') && doc.querySelector('#app')?.childElementCount > 0;
  }, { timeout: 15_000 });
  await page.evaluate(() => {
    for (const d of (globalThis as any).document.querySelectorAll('details')) d.open = true;
  });
}

/** The tracking page is server-rendered: its heading is there at once. */
async function trackingSettled(page: Page) {
  await page.waitForSelector('h1', { timeout: 15_000 });
}

const PAGES: Array<{ name: string; shop: string; path: () => string; customer?: boolean }> = [
  { name: 'Home (set up)', shop: SET_UP, path: () => '/' },
  { name: 'Home (new shop)', shop: NEW, path: () => '/' },
  { name: 'Home (orders, set-up open)', shop: BUSY, path: () => '/' },
  { name: 'Deliveries', shop: SET_UP, path: () => '/deliveries' },
  { name: 'Delivery (needs attention)', shop: SET_UP, path: () => `/deliveries/${attentionId}` },
  { name: 'Delivery (booked)', shop: SET_UP, path: () => `/deliveries/${bookedId}` },
  { name: 'Unmatched courier events', shop: SET_UP, path: () => '/unmatched' },
  { name: 'Settings › Courier', shop: SET_UP, path: () => '/settings' },
  { name: 'Settings › Dispatch rules', shop: SET_UP, path: () => '/settings/dispatch' },
  { name: 'Settings › Fulfillment', shop: SET_UP, path: () => '/settings/fulfillment' },
  { name: 'Settings › Delivery windows', shop: SET_UP, path: () => '/settings/windows' },
  { name: 'Settings › Delivery slots', shop: SET_UP, path: () => '/settings/slots' },
  { name: 'Settings › Checkout rate', shop: SET_UP, path: () => '/settings/rates' },
  { name: 'Settings › Data requests', shop: SET_UP, path: () => '/settings/privacy' },
  { name: 'Settings › Shopify Flow', shop: SET_UP, path: () => '/settings/flow' },
  { name: 'Home (set up), German', shop: SET_UP, path: () => '/?locale=de' },
  { name: 'Tracking page (customer)', shop: TRACKED, path: () => trackingEn, customer: true },
  { name: 'Tracking page (customer), German', shop: TRACKED, path: () => trackingDe, customer: true },
];

describe('Built for Shopify web vitals and accessibility', () => {
  const results: PageVitals[] = [];

  it.each(PAGES.map((p) => [p.name, p] as const))('%s: LCP ≤ 2.5 s, CLS ≤ 0.1, no serious or critical axe violation', async (_name, p) => {
    const [path, query] = p.path().split('?');
    const locale = new URLSearchParams(query).get('locale') ?? undefined;
    const v = p.customer
      ? await auditPage(audit, p.name, `${s.app.url}${path}`, { settled: trackingSettled, lcpRuns: 3 })
      : await auditPage(audit, p.name, embeddedUrl(s.app.url, path!, p.shop, locale), { prepare: (page) => adminStandIns(page, p.shop, s.app.url), settled, lcpRuns: 3 });
    results.push(v);
    console.log(vitalsLine(v));
    for (const x of v.axeExcluded) console.log(`  excluded (stand-in): ${x.rule} at ${x.targets.join(', ')}`);
    expect(vitalsProblems(v)).toEqual([]);
  }, 180_000);
});
