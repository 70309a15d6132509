// The customer tracking page in real headless Chromium at a phone viewport:
// the sandbox courier moves the delivery, the page the Shopify fulfillment links
// to renders under its own strict CSP (the stylesheet's and script's hashes must
// match) with no request beyond the document and its own checks, in the
// customer's language, passes axe-core with no serious or critical violation,
// and updates itself when the status changes (no reload). `npm run docs:screenshots`
// refreshes the README's English and German images.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { LIVE_POLL_SECONDS } from '../../web/tracking/page.ts';
import { ensureTrackingToken } from '../../web/tracking/store.ts';
import type { SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { ensureFrontendBuilt, launchBrowser, openAdmin, screenshot, waitForToast } from '../support/admin-browser.ts';
import { waitFor } from '../support/process.ts';
import { connectCourierAccount, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
let browser: Browser;
beforeAll(async () => {
  await ensureFrontendBuilt();
  s = await startScenario({ sandbox: { webhooksEnabled: true, webhookRetryDelaysMs: [50, 100, 200] } });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const PHONE = { width: 390, height: 844 };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page, as "rule: target" lines. */
async function axeProblems(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's own CSP stays as it is.
  await page.evaluate(AXE);
  const violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> = await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }).then((r: any) => r.violations));
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

const inStore = (sim: SimShop) => Object.assign(sim.profile, { name: 'Rosebank Florist', contactEmail: 'hello@rosebank-florist.example', phone: '+27 11 880 4020' });

/** A paid order the courier has taken out for delivery; the page the Shopify fulfillment links to. */
async function outForDelivery(domain: string, order: Record<string, unknown> = {}) {
  const sim = await installShop(s, domain, { settings: { fulfillment: { courierName: 'Swift Couriers' } } });
  inStore(sim);
  await connectCourierAccount(s, domain);
  const { orderId } = await placeOrder(s, sim, order);
  const d = await waitForStatus(s.app, domain, orderId, 'CREATED');
  await s.courier.advance(d.courierOrderId!, { to: 'out_for_delivery' });
  await waitFor(async () => (await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).courierStatus === 'out_for_delivery', 'out for delivery');
  const url = await waitFor(async () => sim.order(orderId)!.fulfillments[0]?.trackingInfo.url, 'the Shopify fulfillment with its tracking URL');
  return `${s.app.url}${new URL(url!).pathname}`;
}

async function openPhone(url: string, opts: { fakeClock?: boolean } = {}) {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: Array<{ url: string; type: string }> = [];
  let navigations = 0;
  page.on('console', (m) => { if (m.type() === 'error' && !/favicon/.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (!/favicon/.test(r.url())) requests.push({ url: r.url(), type: r.resourceType() }); });
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations++; });
  if (opts.fakeClock) await page.clock.install();
  const response = await page.goto(url);
  return { context, page, problems, requests, response: response!, navigations: () => navigations };
}

const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

describe('tracking page in Chromium', () => {
  it('in English: styled and scripted under its CSP, the store and its contact, the estimate; no overflow, no other request, no console error, no serious axe violation', async () => {
    const pageUrl = await outForDelivery('tracking-ui.myshopify.com');
    const { context, page, problems, requests, response } = await openPhone(pageUrl);
    expect(response.status()).toBe(200);

    // Rendered by the server from a status already stored: no poll (expect.poll's 1 s can lapse on one slow call).
    expect(await text(page, 'h1')).toBe('Out for delivery');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    const body = await page.locator('body').innerText();
    for (const shown of ['Rosebank Florist', 'Swift Couriers', 'Sandton', 'Hi Thandi', 'Last update', 'Order received', 'Picked up', 'Expected delivery', 'An estimate', 'hello@rosebank-florist.example', '+27 11 880 4020']) expect(body).toContain(shown);
    expect(body).not.toContain('Nkosi');
    // The inline stylesheet applied and the script ran: the CSP's hashes are theirs.
    expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).toBe('rgb(244, 245, 247)');
    expect(await page.locator('#announce').getAttribute('role')).toBe('status');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex,nofollow');
    expect(await page.locator('meta[http-equiv]').count()).toBe(0);
    expect(new Set(requests.map((r) => r.url))).toEqual(new Set([pageUrl]));
    expect(await axeProblems(page)).toEqual([]);
    await screenshot(page, 'tracking-page', { adminStandIns: false });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("in German, the order's customer language: words, dates and the zone; no serious axe violation", async () => {
    const pageUrl = await outForDelivery('tracking-de.myshopify.com', { customer_locale: 'de' });
    const { context, page, problems } = await openPhone(pageUrl);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await text(page, 'h1')).toBe('In Zustellung');
    const body = await page.locator('body').innerText();
    for (const shown of ['Rosebank Florist', 'Hallo Thandi', 'Kurier', 'Lieferung nach', 'Bestellung eingegangen', 'Abgeholt', 'Voraussichtliche Zustellung', 'Eine Schätzung', 'Fragen zu Ihrer Bestellung?', 'Zeitangaben: Südafrikanische Zeit.']) expect(body).toContain(shown);
    expect(body).not.toMatch(/Out for delivery|Order received|Expected delivery/);
    expect(await axeProblems(page)).toEqual([]);
    await screenshot(page, 'tracking-page-de', { adminStandIns: false });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('updates itself when the status changes: no reload, a polite notice, and no more checks once delivered', async () => {
    const domain = 'tracking-live.myshopify.com';
    inStore(await installShop(s, domain));
    await connectCourierAccount(s, domain);
    const { orderId } = await placeOrder(s, s.shopify.shop(domain));
    const d = await waitForStatus(s.app, domain, orderId, 'CREATED');
    const pageUrl = `${s.app.url}/track/${await ensureTrackingToken(s.app.db, d.id)}`;
    // The page's timers on a fake clock: each check is one step of it, not 30 s of the test.
    const { context, page, problems, requests, navigations } = await openPhone(pageUrl, { fakeClock: true });
    const checks = () => requests.filter((r) => r.type === 'fetch' && r.url === pageUrl).length;
    const tick = () => page.clock.runFor(LIVE_POLL_SECONDS * 1000);
    expect(await text(page, 'h1')).toBe('Booked with the courier');
    expect(await text(page, '#estimate-h')).toBe('Expected delivery');
    const quiet = await text(page, '#announce');

    // Nothing new: one check, nothing announced.
    await tick();
    await expect.poll(checks).toBe(1);
    await page.waitForLoadState('networkidle');
    expect(await text(page, '#announce')).toBe(quiet);

    // The courier picks it up: the next check shows it and says so.
    await s.courier.advance(d.courierOrderId!, { to: 'picked_up' });
    await waitFor(async () => (await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).courierStatus === 'picked_up', 'picked up');
    await tick();
    await page.locator('h1', { hasText: 'Picked up' }).waitFor();
    expect(await text(page, '#announce')).toMatch(/^Updated \d\d:\d\d: Picked up$/);
    expect(await page.title()).toBe('Picked up · Rosebank Florist');
    expect(await page.locator('#now li').count()).toBeGreaterThan(1);

    // Delivered: shown, and then the page stops asking.
    await s.courier.advance(d.courierOrderId!, { to: 'delivered' });
    await waitForStatus(s.app, domain, orderId, 'DELIVERED');
    await tick();
    await page.locator('h1', { hasText: 'Delivered' }).waitFor();
    expect(await page.locator('#estimate-h').count()).toBe(0);
    expect(await page.locator('body').innerText()).toContain('This delivery is complete.');
    const seen = checks();
    for (let i = 0; i < 5; i++) await tick();
    await page.waitForLoadState('networkidle');
    expect(checks()).toBe(seen);
    expect(navigations()).toBe(1);
    expect(await axeProblems(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('the 404 page for a link whose store uninstalled the app names the store; no serious axe violation', async () => {
    const pageUrl = await outForDelivery('tracking-gone.myshopify.com');
    await s.app.db.shop.update({ where: { domain: 'tracking-gone.myshopify.com' }, data: { uninstalledAt: new Date() } });
    const { context, page, problems, response } = await openPhone(pageUrl);
    expect(response.status()).toBe(404);
    expect(await page.locator('body').innerText()).toContain('This delivery from Rosebank Florist can no longer be tracked here.');
    expect(await axeProblems(page)).toEqual([]);
    expect(problems.filter((p) => !/404/.test(p))).toEqual([]);
    await context.close();
  });

  it('the merchant sets how long the link lives in the admin settings; a wrong value is named next to the field', async () => {
    const domain = 'tracking-settings.myshopify.com';
    await installShop(s, domain);
    const admin = await openAdmin(browser, s.app.url, domain);
    const { page } = admin;
    await admin.open('/settings/fulfillment');
    const field = page.getByRole('textbox', { name: 'Link expires this many days after the delivery' });
    await expect.poll(() => field.inputValue(), { timeout: 15_000 }).toBe('7');
    const stored = async () => JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain } })).settings).tracking?.expiryDays;

    await field.fill('120');
    await page.getByRole('button', { name: 'Save', exact: true }).click(); // the save bar's
    await page.getByRole('alert').filter({ hasText: /90/ }).waitFor();
    expect(await stored()).toBe(7);

    await field.fill('14');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitForToast(page, 'Settings saved'); // shown once the PUT answered: stored by then
    expect(await stored()).toBe(14);
    expect(admin.errors.filter((e) => !/HTTP 4\d\d|status of 400/.test(e))).toEqual([]);
    await admin.close();
  }, 60_000);
});
