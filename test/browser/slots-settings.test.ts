// Settings › Delivery slots in real headless Chromium: the merchant turns slots on and sets
// their length, days ahead, capacity and lead time; a bad value is shown at its field.
import { expect, it } from 'vitest';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop } from '../support/scenario.ts';

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
