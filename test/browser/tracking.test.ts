// The customer tracking page in real headless Chromium at a phone viewport:
// the sandbox courier moves the delivery, the page the Shopify fulfillment links
// to renders under its own strict CSP (the stylesheet's hash must match) with
// no request beyond the document. `npm run docs:screenshots` refreshes the README's image.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
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

describe('tracking page in Chromium', () => {
  it('renders at a phone viewport: styled (CSP hash matches), no overflow, no other request, no console error', async () => {
    const domain = 'tracking-ui.myshopify.com';
    const sim = await installShop(s, domain, { settings: { fulfillment: { courierName: 'Swift Couriers' } } });
    await connectCourierAccount(s, domain);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, domain, orderId, 'CREATED');
    await s.courier.advance(d.courierOrderId!, { to: 'out_for_delivery' });
    await waitFor(async () => (await s.app.db.delivery.findUniqueOrThrow({ where: { id: d.id } })).courierStatus === 'out_for_delivery', 'out for delivery');
    const url = await waitFor(async () => sim.order(orderId)!.fulfillments[0]?.trackingInfo.url, 'the Shopify fulfillment with its tracking URL');
    const pageUrl = `${s.app.url}${new URL(url!).pathname}`;

    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' && !/favicon/.test(m.text())) problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => { if (!/favicon/.test(r.url())) requests.push(r.url()); });
    const response = await page.goto(pageUrl);
    expect(response!.status()).toBe(200);

    // Rendered by the server from a status already stored: no poll (expect.poll's 1 s can lapse on one slow call).
    expect(await page.locator('h1').textContent()).toBe('Out for delivery');
    const text = await page.locator('body').innerText();
    for (const shown of ['Swift Couriers', 'Sandton', 'Hi Thandi', 'Last update', 'Order received', 'Picked up']) expect(text).toContain(shown);
    expect(text).not.toContain('Nkosi');
    // The inline stylesheet applied: the CSP's hash is the stylesheet's.
    expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).toBe('rgb(244, 245, 247)');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex,nofollow');
    expect(requests).toEqual([pageUrl]);
    await screenshot(page, 'tracking-page', { adminStandIns: false });
    expect(problems).toEqual([]);
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
