// Settings › Delivery slots in real headless Chromium: the merchant turns slots on and sets
// their length, days ahead, capacity and lead time (a bad value is shown at its field); and the
// delivery page shows the slot the customer chose.
import { expect, it } from 'vitest';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop, placeOrder, waitForStatus } from '../support/scenario.ts';

const suite = browserSuite();

it('turns delivery slots on with their rules; a bad value is shown at its field', async () => {
  const { s } = suite;
  const shop = 'slots-ui.myshopify.com';
  await installShop(s, shop);
  const { page, open } = await suite.admin(shop);
  await open('/settings/slots');
  await page.getByRole('checkbox', { name: 'Offer delivery slots on the cart' }).check();
  await page.getByRole('textbox', { name: 'Orders per slot' }).fill('0');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'must be at least 1 (empty: no limit)' }).waitFor();
  expect(JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).slots.enabled).toBe(false);

  await page.getByRole('textbox', { name: 'Orders per slot' }).fill('4');
  await page.getByRole('textbox', { name: 'Slot length (minutes)' }).fill('60');
  await page.getByRole('textbox', { name: 'Courier lead time (minutes)' }).fill('45');
  await page.getByRole('combobox', { name: 'When a chosen slot is no longer valid' }).selectOption('asap');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect.poll(async () => JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).slots)
    .toEqual({ enabled: true, slotMinutes: 60, daysAhead: 6, capacity: 4, sameDayAsap: true, leadMinutes: 45, invalidSlot: 'asap' });
}, 60_000);

it("the delivery page shows the customer's slot", async () => {
  const { s } = suite;
  const shop = 'slots-page.myshopify.com';
  const DAY = { open: '00:00', close: '23:59' };
  const windows = { default: { timeZone: 'UTC', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: null, closures: [], prepMinutes: 0 } };
  const sim = await installShop(s, shop, { settings: { windows, slots: { enabled: true, slotMinutes: 60, daysAhead: 2, leadMinutes: 0 } } });
  const t = new Date();
  const start = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + 1, 10);
  const value = `${new Date(start).toISOString()}/${new Date(start + 3_600_000).toISOString()}`;
  const { orderId } = await placeOrder(s, sim, { note_attributes: [{ name: '_delivery_slot', value }] });
  const d = await waitForStatus(s.app, shop, orderId, 'SCHEDULED');
  const { page, open } = await suite.admin(shop);
  await open(`/deliveries/${d.id}`);
  const badge = page.locator(`[data-slot="${new Date(start).toISOString()}"]`);
  await badge.waitFor();
  expect(await badge.textContent()).toMatch(/^Delivery slot: .+–.+$/);
}, 60_000);
