// The home dashboard in real headless Chromium, for a shop that finished
// onboarding: the figures, the 14-day SVG chart, the links to the Deliveries
// page (needing attention) and to the unmatched events, and the checklist
// folded away but still reachable.
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/admin-browser.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { adminClient } from '../support/admin-client.ts';
import { installShop, placeOrder, SANDBOX_CLIENT, waitForStatus, WEBHOOK_SECRET } from '../support/scenario.ts';
import { updateEnvironment, updateSettings } from '../../web/settings/store.ts';
import { forgetShopProfile } from '../../web/shopify/shop-profile.ts';
import { reconcileOnce } from '../../web/fulfillment/reconcile.ts';
import { TestClock } from '../support/time.ts';

/**
 * The app's clock: Thursday 21:30 UTC, 23:30 in the shop's Johannesburg, running on from there. "Today"
 * and "this week" are the shop's days, so the figures are the same at any hour the suite runs.
 */
const clock = new TestClock('2026-11-26T21:30:00Z');
const ZONE = 'Africa/Johannesburg';
const suite = browserSuite({ scenario: () => ({ runtime: { clock } }) });

const eventually = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });
const BAD_PHONE = { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } };
const DAY = 86_400_000;

/** Every onboarding step done: live credentials tested through the API, live traffic seen, live active. */
async function setUpShop(domain: string) {
  const { s } = suite;
  const sim = await installShop(s, domain);
  sim.ianaTimezone = ZONE;
  forgetShopProfile();
  await updateEnvironment(s.app.db, s.app.server.services()!.box, domain, 'live', { ...SANDBOX_CLIENT, baseUrl: s.sandbox.url, pickupStoreId: 'store_sandbox_002', webhookSecret: WEBHOOK_SECRET });
  expect((await adminClient(s.app.url, domain).post('/api/environments/live/test-connection')).body).toMatchObject({ ok: true });
  const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain } });
  await s.app.db.courierEnvironment.updateMany({ where: { shopId: shop.id }, data: { lastWebhookAt: clock.date() } });
  await updateSettings(s.app.db, domain, { activeEnvironment: 'live' });
  expect((await adminClient(s.app.url, domain).get('/api/settings')).body.onboarding.complete).toBe(true);
  // Test orders keep going to the test courier; book two today through the real path, one of them stuck.
  await updateSettings(s.app.db, domain, { activeEnvironment: 'test' });
  const { orderId } = await placeOrder(s, sim);
  await waitForStatus(s.app, domain, orderId, 'CREATED');
  const stuck = await placeOrder(s, sim, BAD_PHONE);
  await waitForStatus(s.app, domain, stuck.orderId, 'NEEDS_ATTENTION');
  await updateSettings(s.app.db, domain, { activeEnvironment: 'live' });
  // History: two deliveries 3 days ago, delivered 45 and 75 minutes after payment.
  const d3 = new Date(clock.now() - 3 * DAY);
  for (const [i, minutes] of [45, 75].entries()) {
    await s.app.db.delivery.create({
      data: { shopId: shop.id, shopifyOrderId: `7700${i}`, orderName: `#H${i}`, environment: 'live', status: 'DELIVERED', orderJson: '{}', createdAt: d3, dispatchedAt: d3, deliveryPrice: '80.00', currency: 'ZAR', courierStatusAt: new Date(d3.getTime() + minutes * 60_000) },
    });
  }
  const env = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shopId: shop.id, environment: 'test' } });
  // A real status event for a courier id no booking has: reconciliation (every 60 s in the app) keeps it unmatched.
  await s.app.db.courierEvent.create({ data: { environmentId: env.id, eventId: 'evt-home-1', type: 'delivery.status.updated', deliveryRef: 'unknown-ref', status: 'in_transit', payload: '{}', state: 'UNMATCHED' } });
  expect((await reconcileOnce(s.app.ctx, { shopDomain: domain })).rematched).toBe(1);
  expect(await s.app.db.courierEvent.count({ where: { environmentId: env.id, state: 'UNMATCHED' } })).toBe(1);
}

describe('home dashboard', () => {
  it('after onboarding: counts, a 14-day chart, working links, and the checklist folded away', async () => {
    const domain = 'home-dashboard.myshopify.com';
    await setUpShop(domain);
    const p = await suite.admin(domain);
    const { page, open } = p;
    await open('/');

    await eventually(() => page.getByTestId('bookings-today').textContent()).toBe('1');
    expect(await page.getByTestId('bookings-week').textContent()).toBe('3'); // Thursday: Monday's two rows are this week
    expect(await page.getByTestId('median-delivery').textContent()).toBe('1 hr'); // Intl.DurationFormat, in the merchant's language
    expect(await page.getByTestId('attention-count').getAttribute('data-count')).toBe('1');
    expect(await page.getByTestId('unmatched-count').getAttribute('data-count')).toBe('1');
    await page.getByText(`Days in ${ZONE}`).waitFor();
    expect(await page.getByTestId('dashboard-chart').locator('g[data-date]').last().getAttribute('data-date')).toBe('2026-11-26');

    // The chart: inline SVG labelled by its title, 14 day groups of 3 bars, each day labelled.
    const chart = page.getByRole('group', { name: 'Bookings and outcomes, last 14 days' });
    await chart.waitFor();
    expect(await chart.evaluate((el) => el.tagName)).toBe('svg');
    expect(await chart.getByRole('img').count()).toBe(14);
    expect(await chart.locator('g[data-date] rect').count()).toBe(42);
    expect(await chart.getByRole('img').last().getAttribute('aria-label')).toMatch(/: 1 booked, 0 delivered, 0 problems$/); // the stuck order was never booked
    expect(await page.locator('script[src*="chart"], link[href*="chart"]').count()).toBe(0);

    // Onboarding folded: closed, its summary visible, its steps one click away.
    const folded = page.getByTestId('onboarding-folded');
    expect(await folded.evaluate((el) => (el as any).open)).toBe(false);
    expect(await page.getByText('1. Enter your live courier credentials').isVisible()).toBe(false);
    await screenshot(page, 'home');
    await page.getByText('You are all set: show the set-up checklist').click();
    await page.getByText('1. Enter your live courier credentials').waitFor();
    await page.getByText('You are all set: show the set-up checklist').click();

    // Links: attention → Deliveries filtered to needing attention; unmatched → the events page.
    await page.getByRole('link', { name: '1 delivery needs attention', exact: true }).click();
    await eventually(() => new URL(page.url()).pathname).toBe('/deliveries');
    expect(new URL(page.url()).searchParams.get('status')).toBe('NEEDS_ATTENTION,FAILED');
    await page.getByText('Phone number is not valid').first().waitFor();
    await page.goBack();
    await page.getByRole('link', { name: '1 unmatched courier event', exact: true }).click();
    await eventually(() => new URL(page.url()).pathname).toBe('/unmatched');
    await page.getByText('for courier id unknown-ref').waitFor();
  }, 120_000);

  it('before onboarding is done: the checklist stays open and no empty dashboard shows', async () => {
    const { s } = suite;
    const domain = 'home-new.myshopify.com';
    await installShop(s, domain, { settings: { autoDispatch: false } });
    const p = await suite.admin(domain);
    await p.open('/');
    await p.page.getByText('Set up same-day dispatch').waitFor();
    expect(await p.page.getByTestId('onboarding-folded').count()).toBe(0);
    await p.page.waitForLoadState('networkidle');
    expect(await p.page.getByTestId('dashboard-chart').count()).toBe(0);
  }, 60_000);
});
