// Delivery windows in the admin, in real headless Chromium: a scheduled delivery shows its
// state and planned time in the list and on its page, Dispatch now sends it, and the
// settings component saves a window and names the field of a bad value.
import { describe, expect, it } from 'vitest';
import { screenshot, waitForToast } from '../support/admin-browser.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop, placeOrder, waitForStatus } from '../support/scenario.ts';
import { parseStoredSettings } from '../../web/settings/schema.ts';
import { TestClock } from '../support/time.ts';

/** The app's clock: Monday 2026-11-23 21:45 UTC, running on from there. */
const clock = new TestClock('2026-11-23T21:45:00Z');
const suite = browserSuite({ scenario: () => ({ runtime: { clock } }) });

const DAY = { open: '08:00', close: '18:00' };
/** Closed today (UTC): the next opening is tomorrow 08:00 plus 30 minutes. */
const closedToday = () => ({
  default: { timeZone: 'UTC', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: null, closures: ['2026-11-23'], prepMinutes: 30 },
});

describe('delivery windows in the admin', () => {
  it('a scheduled delivery shows Scheduled and its dispatch time; Dispatch now sends it', async () => {
    const { s } = suite;
    const shop = 'windows-ui.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: closedToday() } });
    const { orderId, payload } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'SCHEDULED');
    const planned = d.scheduledFor!.toISOString();
    expect(planned).toBe('2026-11-24T08:30:00.000Z');

    const { page, open } = await suite.admin(shop);
    await open('/deliveries');
    const row = page.getByRole('row').filter({ hasText: payload.name });
    await row.getByText('Scheduled', { exact: true }).waitFor();
    await row.getByText(/^Dispatch at /).waitFor();
    expect(await row.locator('[data-scheduled-at]').getAttribute('data-scheduled-at')).toBe(planned);
    await row.getByText('Scheduled for Tue 2026-11-24 08:30 (UTC): the location is closed today').first().waitFor();
    await screenshot(page, 'deliveries-scheduled');

    await row.getByRole('link', { name: payload.name, exact: true }).click();
    await page.getByText(`Delivery for ${payload.name}`).waitFor();
    expect(await page.locator('[data-scheduled-at]').getAttribute('data-scheduled-at')).toBe(planned);
    await page.getByText('Scheduled for the next opening').first().waitFor();
    await page.getByRole('button', { name: 'Dispatch now' }).click();
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    await page.getByText('Created', { exact: true }).first().waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-scheduled-at]').count()).toBe(0);
  }, 90_000);

  it('settings: a window is saved for the default, and a bad time is refused next to its field', async () => {
    const { s } = suite;
    const shop = 'windows-settings-ui.myshopify.com';
    await installShop(s, shop);
    const { page, open } = await suite.admin(shop);
    await open('/settings/windows');
    await page.getByRole('checkbox', { name: 'Use a delivery window' }).click();
    await page.getByRole('textbox', { name: 'Time zone', exact: true }).fill('Europe/London');
    await page.getByRole('textbox', { name: 'Monday opens', exact: true }).fill('8am');
    await page.getByRole('textbox', { name: 'Monday closes', exact: true }).fill('18:00');
    await page.getByRole('button', { name: 'Save', exact: true }).click(); // the save bar's
    await page.getByRole('alert').filter({ hasText: 'expected a 24-hour time like 08:30' }).waitFor();
    expect(parseStoredSettings((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).windows.default).toBeNull();

    await page.getByRole('textbox', { name: 'Monday opens', exact: true }).fill('08:00');
    await page.getByRole('textbox', { name: 'Same-day cut-off', exact: true }).fill('15:00');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitForToast(page, 'Delivery windows saved');
    const saved = parseStoredSettings((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).windows.default;
    expect(saved).toMatchObject({ timeZone: 'Europe/London', cutoff: '15:00', hours: { mon: { open: '08:00', close: '18:00' }, tue: null } });
    await screenshot(page, 'settings-windows');
  }, 90_000);
});
