// The merchant admin in real headless Chromium: the app (in-process, SQLite)
// serves the built frontend; the sandbox courier and the simulated Shopify
// stand behind it; App Bridge and Polaris are local stand-ins routed in place
// of Shopify's CDN (test/browser/stand-ins). Everything the merchant does here
// goes through the real /api with real session tokens.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureFrontendBuilt, launchBrowser, openAdmin, screenshot, toastsShown, waitForToast, type AdminPage } from '../support/admin-browser.ts';
import { TEST_API_KEY } from '../support/app.ts';
import { placeOrder, SANDBOX_CLIENT, startScenario, waitForStatus, type Scenario, installShop, installSession } from '../support/scenario.ts';
import { waitFor } from '../support/process.ts';

let s: Scenario;
let browser: Browser;
const pages: AdminPage[] = [];

beforeAll(async () => {
  await ensureFrontendBuilt();
  s = await startScenario();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

afterEach(async () => {
  for (const p of pages.splice(0)) {
    const errors = p.errors;
    await p.close();
    expect(errors, 'errors in the page').toEqual([]);
  }
});

async function admin(shop: string): Promise<AdminPage> {
  const p = await openAdmin(browser, s.app.url, shop);
  pages.push(p);
  return p;
}

/** expect.poll with room for a loaded CI machine (vitest's default is 1 s). */
const eventually = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

const BAD_PHONE = { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } };
/** The endpoint URL the page shows, reachable from the sandbox (the public base is a placeholder host in tests). */
const reachable = (url: string) => url.replace('https://app.example.test', s.app.url);

describe('onboarding', () => {
  it('a new shop completes every step against the sandbox courier, each step turning done from real state', async () => {
    const shop = 'onboarding-ui.myshopify.com';
    await installSession(s, shop);
    const { page, open } = await admin(shop);
    await open('/');

    // The page is the built app, with the API key App Bridge reads.
    expect(await page.locator('meta[name="shopify-api-key"]').getAttribute('content')).toBe(TEST_API_KEY);
    await eventually(() => page.getByText('0 of 7 steps done').count()).toBe(1);
    const progress = (n: number) => eventually(() => page.getByText(`${n} of 7 steps done`).count()).toBe(1);

    // 1. Credentials (the sandbox is the default test base URL).
    await page.getByRole('textbox', { name: 'Client id', exact: true }).fill(SANDBOX_CLIENT.clientId);
    await page.getByLabel('Client secret', { exact: true }).fill(SANDBOX_CLIENT.clientSecret);
    await page.getByRole('button', { name: 'Save credentials' }).click();
    await progress(1);
    // A done step folds away; opened again, the secret is not shown back, only that it is set.
    await page.getByRole('button', { name: 'Change: Enter your test courier credentials' }).click();
    await page.getByText(`Saved (ends in ${SANDBOX_CLIENT.clientSecret.slice(-4)}). Leave empty to keep it.`).waitFor();
    expect(await page.getByLabel('Client secret', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(SANDBOX_CLIENT.clientSecret);
    await page.getByRole('button', { name: 'Hide: Enter your test courier credentials' }).click();

    // 2. Connection test: a real token request to the sandbox.
    // The step folds away as soon as it is done, taking its result banner with it, so the
    // test reads what stays: the count, the step's detail, and the toast App Bridge was given.
    await page.getByRole('button', { name: 'Test connection', exact: true }).click();
    await progress(2);
    await page.getByText('The courier issued a token for the saved credentials.', { exact: true }).waitFor();
    expect(await toastsShown(page)).toContainEqual(['Test connection works', false]);

    // 3. Pickup store.
    await page.getByRole('textbox', { name: 'Pickup store id', exact: true }).fill('store_sandbox_001');
    await page.getByRole('button', { name: 'Save pickup store', exact: true }).click();
    await progress(3);

    // 4. Webhook URL (copy button) and secret; the merchant registers the URL in the courier portal (the sandbox).
    const urlField = page.getByRole('textbox', { name: 'Webhook URL', exact: true });
    const webhookUrl = await urlField.inputValue();
    expect(webhookUrl).toMatch(/^https:\/\/app\.example\.test\/webhooks\/delivery\/ep_[\w-]+$/);
    await page.getByRole('button', { name: 'Copy webhook URL' }).click();
    await waitForToast(page, 'Copied'); // the toast, not its 5 s on screen
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(webhookUrl);
    const secret = 'whsec_ui_test_0123456789abcdef';
    await s.courier.setWebhook(SANDBOX_CLIENT.clientId, { url: reachable(webhookUrl), secret });
    await page.getByLabel('Webhook signing secret', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Save webhook secret' }).click();
    await progress(4);

    // 5. Test webhook: sent by the sandbox, received and verified by the app. As in step 2, the
    // result banner folds away with the step and the toast lasts 4 s: read the count, the detail, the toast given.
    await page.getByRole('button', { name: 'Send test webhook' }).click();
    await waitForToast(page, 'Test webhook received and verified');
    await progress(5);
    await page.getByText('A signed test webhook reached the app and verified.', { exact: true }).waitFor();

    // 6. Auto-dispatch.
    await page.getByRole('button', { name: 'Turn on auto-dispatch' }).click();
    await progress(6);

    // 7. Live: refused until live is set up, then switched.
    const switchButton = page.getByRole('button', { name: 'Switch to live' });
    expect(await switchButton.isDisabled()).toBe(true);
    await page.getByText('Enter the live courier credentials first').first().waitFor();
    await page.getByRole('textbox', { name: 'Live client id' }).fill(SANDBOX_CLIENT.clientId);
    await page.getByLabel('Live client secret', { exact: true }).fill(SANDBOX_CLIENT.clientSecret);
    await page.getByRole('textbox', { name: 'Live API base URL' }).fill(s.sandbox.url);
    await page.getByRole('button', { name: 'Save live credentials' }).click();
    await page.getByText('Test the live connection first: it must pass with the current live credentials').first().waitFor();
    await page.getByRole('button', { name: 'Test live connection' }).click();
    await page.getByText('Choose the live pickup store first').first().waitFor();
    await page.getByRole('textbox', { name: 'Live pickup store id' }).fill('store_sandbox_002');
    await page.getByRole('button', { name: 'Save live pickup store' }).click();
    const liveUrl = await page.getByRole('textbox', { name: 'Live webhook URL' }).inputValue();
    expect(liveUrl).not.toBe(webhookUrl);
    await page.getByLabel('Live webhook signing secret', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Save live webhook secret' }).click();
    await eventually(() => switchButton.isDisabled()).toBe(false);
    await switchButton.click();
    await page.getByText('New orders go to the live courier.').waitFor();

    // Now the checklist shows the live environment: its test webhook is still to do.
    await progress(6);
    await s.courier.setWebhook(SANDBOX_CLIENT.clientId, { url: reachable(liveUrl), secret });
    const toastsBefore = (await toastsShown(page)).length;
    await page.getByRole('button', { name: 'Send live test webhook' }).click();
    await waitForToast(page, 'Test webhook received and verified', { after: toastsBefore });
    await progress(7);
    await page.getByText('You are all set').waitFor();

    const stored = await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } });
    expect(JSON.parse(stored.settings)).toMatchObject({ activeEnvironment: 'live', autoDispatch: true });
    await screenshot(page, 'onboarding');
  }, 120_000);
});

describe('deliveries', () => {
  it('a delivery that needs attention: the merchant fixes the phone and sees it become CREATED', async () => {
    const shop = 'attention-ui.myshopify.com';
    const sim = await installShop(s, shop, { settings: { fulfillment: { trackingUrlTemplate: 'https://track.example.com/{jobId}' } } });
    // Two orders that book fine, and one with a phone the courier cannot use.
    for (let i = 0; i < 2; i++) {
      const { orderId } = await placeOrder(s, sim);
      await waitForStatus(s.app, shop, orderId, 'CREATED');
    }
    const { orderId, payload } = await placeOrder(s, sim, BAD_PHONE);
    const stuck = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');

    const { page, open } = await admin(shop);
    await open('/deliveries');
    const row = page.getByRole('row').filter({ hasText: payload.name });
    await row.getByText('Needs attention').waitFor();
    await row.getByText('Phone number is not valid').waitFor();
    await row.getByText("Phone '0825' is not a valid ZA number").first().waitFor();
    // Scannable: the reason said once, the row one or two lines (it was 120–170 px with the reason twice).
    expect(await row.getByText('Phone number is not valid').count()).toBe(1);
    expect((await row.boundingBox())!.height).toBeLessThan(80);
    expect(await page.getByRole('row').filter({ hasText: 'Created' }).count()).toBe(2);
    await screenshot(page, 'deliveries');

    await row.getByRole('link', { name: payload.name, exact: true }).click();
    await page.getByText(`Delivery for ${payload.name}`).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/deliveries/${stuck.id}`);
    await page.getByText('Phone number is not valid').first().waitFor();
    await screenshot(page, 'delivery-attention');

    // A number that is still wrong is refused next to the field, and nothing is queued.
    const phone = page.getByRole('textbox', { name: 'Phone number' });
    await phone.fill('123');
    await page.getByRole('button', { name: 'Save and retry' }).click();
    await page.getByRole('alert').filter({ hasText: "Phone '123' is not a valid ZA number" }).waitFor();
    expect((await s.app.db.delivery.findUniqueOrThrow({ where: { id: stuck.id } })).status).toBe('NEEDS_ATTENTION');

    await phone.fill('082 555 1234');
    await page.getByRole('button', { name: 'Save and retry' }).click();
    await waitForToast(page, 'Corrected and queued again');
    // The page follows the dispatch job until the courier answers.
    const created = await waitForStatus(s.app, shop, orderId, 'CREATED');
    await page.getByText('Created', { exact: true }).first().waitFor({ timeout: 15_000 });
    await page.getByText(created.dispatchJobId!).first().waitFor();
    expect(await page.getByRole('link', { name: 'Track delivery' }).getAttribute('href')).toBe(`https://track.example.com/${created.dispatchJobId}`);
    await page.getByText('Corrected phone and retried').waitFor();
    // The exact request is folded; the keyboard opens it.
    await page.getByText('Request sent to the courier').focus();
    await page.keyboard.press('Enter');
    await page.getByText('"phone": "+27825551234"').waitFor();
    await page.getByText('+27825551234 (corrected)', { exact: true }).waitFor(); // the drop-off shows the phone as sent
    await page.getByText('"amount": 1249.90').waitFor(); // the exact bytes sent, not a re-serialised 1249.9
    expect(await page.getByRole('button', { name: 'Save and retry' }).count()).toBe(0);
    await screenshot(page, 'delivery-created');
  }, 90_000);

  it('filters the list by status, search and date, and pages through it', async () => {
    const shop = 'filters-ui.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    // 22 skipped (auto-dispatch off), one needing attention, one booked.
    const skipped: string[] = [];
    for (let i = 0; i < 22; i++) {
      const { orderId } = await placeOrder(s, sim);
      skipped.push(orderId);
    }
    await waitFor(async () => (await s.app.db.delivery.count({ where: { shop: { domain: shop }, status: 'SKIPPED' } })) === 22, '22 skipped');
    await s.app.db.shop.update({ where: { domain: shop }, data: { settings: JSON.stringify({ autoDispatch: true }) } });
    const attention = await placeOrder(s, sim, BAD_PHONE);
    await waitForStatus(s.app, shop, attention.orderId, 'NEEDS_ATTENTION');
    const booked = await placeOrder(s, sim);
    await waitForStatus(s.app, shop, booked.orderId, 'CREATED');
    // One old delivery, for the date filter.
    const old = await s.app.db.delivery.findFirstOrThrow({ where: { shopifyOrderId: skipped[0] } });
    await s.app.db.delivery.update({ where: { id: old.id }, data: { createdAt: new Date('2026-01-15T10:00:00Z') } });

    const { page, open } = await admin(shop);
    await open('/deliveries');
    const bodyRows = page.locator('s-table-body s-table-row');
    await eventually(() => bodyRows.count()).toBe(20);

    // Pages.
    await page.getByRole('button', { name: 'Next page' }).click();
    await eventually(() => bodyRows.count()).toBe(4);
    await page.getByRole('link', { name: old.orderName!, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await eventually(() => bodyRows.count()).toBe(20);

    // Status.
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Needs attention (1)' });
    await eventually(() => bodyRows.count()).toBe(1);
    await bodyRows.first().getByRole('link', { name: attention.payload.name, exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('NEEDS_ATTENTION,FAILED');
    expect(new URL(page.url()).searchParams.get('shop')).toBe(shop); // Shopify's parameters are kept
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Created (1)' });
    await eventually(() => bodyRows.count()).toBe(1);
    await bodyRows.first().getByRole('link', { name: booked.payload.name, exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'All (24)' });
    await eventually(() => bodyRows.count()).toBe(20);

    // Search by order name, then by reference (the Shopify order id).
    const search = page.getByRole('searchbox', { name: 'Search deliveries' });
    await search.fill(booked.payload.name);
    await eventually(() => bodyRows.count()).toBe(1);
    await bodyRows.first().getByRole('link', { name: booked.payload.name, exact: true }).waitFor();
    await search.fill(attention.orderId);
    await eventually(() => bodyRows.count()).toBe(1);
    await bodyRows.first().getByRole('link', { name: attention.payload.name, exact: true }).waitFor();
    await search.fill('no-such-order');
    await page.getByText('No deliveries match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await eventually(() => bodyRows.count()).toBe(20);

    // Dates: only the old one, then everything after it.
    await page.getByLabel('From', { exact: true }).fill('2026-01-01');
    await page.getByLabel('To', { exact: true }).fill('2026-01-31');
    await eventually(() => bodyRows.count()).toBe(1);
    await bodyRows.first().getByRole('link', { name: old.orderName!, exact: true }).waitFor();
    await page.getByLabel('From', { exact: true }).fill('2026-02-01');
    await page.getByLabel('To', { exact: true }).fill('');
    await eventually(() => bodyRows.count()).toBe(20);
    await page.getByRole('button', { name: 'Next page' }).click();
    await eventually(() => bodyRows.count()).toBe(3);
    expect(await page.getByRole('link', { name: old.orderName!, exact: true }).count()).toBe(0);
  }, 90_000);

  it('explains what will appear when there are no deliveries yet', async () => {
    const shop = 'empty-ui.myshopify.com';
    await installSession(s, shop);
    const { page, open } = await admin(shop);
    await open('/deliveries');
    await page.getByText('No deliveries yet').waitFor();
    await page.getByText(/When a customer pays for an order with one of your same-day shipping methods/).waitFor();
    await screenshot(page, 'deliveries-empty');
  });
});

describe('settings', () => {
  it('one page per section; each form saves through the save bar, names bad fields, and asks before unsaved changes are lost', async () => {
    const shop = 'settings-ui.myshopify.com';
    await installShop(s, shop);
    const { page, open } = await admin(shop);
    await open('/');
    // The app nav routes without a reload (App Bridge's shopify:navigate); Settings opens on its first section.
    await page.locator('s-app-nav').getByText('Settings').click();
    await page.getByText('Test environment', { exact: true }).waitFor();
    await page.getByText('Live environment', { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    expect(await sections.locator('s-link').allTextContents()).toEqual(['Courier', 'Dispatch rules', 'Fulfillment and tracking', 'Delivery windows', 'Delivery slots', 'Checkout rate', 'Customer data requests', 'Shopify Flow']);
    expect(await page.getByRole('textbox', { name: 'Test client id' }).inputValue()).toBe(SANDBOX_CLIENT.clientId);
    expect(await page.getByLabel('Test client secret', { exact: true }).inputValue()).toBe('');
    await page.getByText(`Saved (ends in ${SANDBOX_CLIENT.clientSecret.slice(-4)})`).first().waitFor();
    // No change, no save bar: the page has no Save of its own.
    const saveBar = page.getByRole('region', { name: 'Unsaved changes' });
    const saves: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && new URL(r.url()).pathname === '/api/settings') saves.push(r.postData() ?? '');
    });
    expect(await saveBar.isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isVisible()).toBe(false);

    // Shopify locations → pickup stores: a change shows the save bar; leaving asks first, staying keeps the edit.
    await page.getByRole('textbox', { name: 'Test store for Cape Town store' }).fill('store_sandbox_002');
    await saveBar.waitFor();
    await sections.getByRole('link', { name: 'Dispatch rules' }).click();
    await page.getByRole('dialog', { name: 'Leave page with unsaved changes?' }).waitFor();
    await page.getByRole('button', { name: 'Stay' }).click();
    expect(new URL(page.url()).pathname).toBe('/settings');
    expect(await page.getByRole('textbox', { name: 'Test store for Cape Town store' }).inputValue()).toBe('store_sandbox_002');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitForToast(page, 'Settings saved');
    await saveBar.waitFor({ state: 'hidden' });
    expect(saves).toHaveLength(1); // one Save, one request
    const env = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shop: { domain: shop }, environment: 'test' } });
    expect(JSON.parse(env.locationStores)).toEqual({ '71000000002': 'store_sandbox_002' });
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    await screenshot(page, 'settings');

    // Dispatch rules: wrong values are refused by the API, each shown next to its field; nothing is saved.
    await sections.getByRole('link', { name: 'Dispatch rules' }).click();
    await eventually(() => new URL(page.url()).pathname).toBe('/settings/dispatch');
    await page.getByRole('textbox', { name: 'Destination countries' }).fill('ZA, South Africa');
    await page.getByRole('textbox', { name: 'Maximum delivery price' }).fill('lots');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Settings not saved').first().waitFor();
    await page.getByRole('alert').filter({ hasText: 'expected a two-letter country code like ZA' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'expected an amount like 150 or 149.99' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Destination countries' }).getAttribute('aria-invalid')).toBe('true');
    expect(await saveBar.isVisible()).toBe(true);
    await screenshot(page, 'settings-errors');
    expect(JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).maxDeliveryPrice).toBeNull();

    // Discard asks first, then puts the saved values back.
    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    await page.getByRole('dialog', { name: 'Discard all unsaved changes?' }).waitFor();
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await saveBar.waitFor({ state: 'hidden' });
    expect(saves).toHaveLength(2); // the refused save; Discard sends nothing
    expect(await page.getByRole('textbox', { name: 'Maximum delivery price' }).inputValue()).toBe('');
    await eventually(() => page.getByRole('alert').count()).toBe(0);

    await page.getByRole('textbox', { name: 'Destination countries' }).fill('ZA, NA');
    await page.getByRole('textbox', { name: 'Maximum delivery price' }).fill('150');
    const toastsBefore = (await toastsShown(page)).length;
    await page.getByRole('textbox', { name: 'Maximum delivery price' }).press('Enter'); // Enter saves, as in Shopify's admin
    await waitForToast(page, 'Settings saved', { after: toastsBefore });
    await eventually(() => page.getByRole('alert').count()).toBe(0);
    const stored = await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } });
    expect(JSON.parse(stored.settings)).toMatchObject({ maxDeliveryPrice: '150', eligibility: { countries: ['ZA', 'NA'] } });

    // Leaving with unsaved changes, the merchant can choose to leave: the edit is dropped.
    await page.getByRole('textbox', { name: 'Maximum delivery price' }).fill('999');
    await page.locator('s-app-nav').getByText('Deliveries').click();
    await page.getByRole('button', { name: 'Leave page' }).click();
    await eventually(() => new URL(page.url()).pathname).toBe('/deliveries');
    expect(JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).maxDeliveryPrice).toBe('150');
    expect(await page.evaluate(() => (globalThis as any).__standInDialogs)).toEqual([
      ['Leave page with unsaved changes?', false],
      ['Discard all unsaved changes?', true],
      ['Leave page with unsaved changes?', true],
    ]);
  }, 90_000);

  it('after a webhook secret change, shows how long the previous secret is still accepted', async () => {
    const shop = 'settings-rotate.myshopify.com';
    await installShop(s, shop);
    const { page, open } = await admin(shop);
    await open('/settings');
    await page.getByLabel('Test webhook signing secret', { exact: true }).fill('whsec_rotated_in_the_browser_0001');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitForToast(page, 'Settings saved');
    await page.getByText(/The previous webhook secret \(ends in cdef\) is still accepted for 2[34] h \d+ min\./).waitFor();
  }, 60_000);
});
