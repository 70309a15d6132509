// The cart block (extensions/delivery-slots) in real Chromium: its Liquid rendered by liquidjs
// as Shopify would, served by a storefront stand-in whose app proxy signs and forwards to the
// running app. Choose a slot with the keyboard alone, a full slot is disabled, the proxy down
// falls back to "as soon as possible", the storefront's language, and axe-core finds nothing.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStorefront, type RunningStorefront } from '../../dev/shop-sim/storefront.ts';
import { launchBrowser, screenshot } from '../support/admin-browser.ts';
import { TEST_API_SECRET } from '../support/app.ts';
import { installShop, startScenario, type Scenario } from '../support/scenario.ts';
import { TestClock } from '../support/time.ts';

/** Thursday 08:00 in Johannesburg. */
const clock = new TestClock('2026-11-26T06:00:00Z');
const SHOP = 'slots-cart.myshopify.com';
const DAY = { open: '08:00', close: '18:00' };
const WINDOWS = { default: { timeZone: 'Africa/Johannesburg', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY }, cutoff: '16:00', closures: [], prepMinutes: 30 } };
const FRIDAY_FULL = '2026-11-27T06:30:00.000Z/2026-11-27T08:30:00.000Z';
const FRIDAY = '2026-11-27T08:30:00.000Z/2026-11-27T10:30:00.000Z';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let s: Scenario;
let browser: Browser;
let store: RunningStorefront;
const pages: Array<{ page: Page; errors: string[] }> = [];

beforeAll(async () => {
  [s, browser] = await Promise.all([startScenario({ runtime: { clock } }), launchBrowser()]);
  await installShop(s, SHOP, { settings: { windows: WINDOWS, slots: { enabled: true, capacity: 2, daysAhead: 6 } } });
  const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain: SHOP } });
  await s.app.db.slotCount.create({ data: { shopId: shop.id, windowKey: 'default', slotStart: '2026-11-27T06:30:00.000Z', count: 2 } });
  store = await startStorefront({ shop: SHOP, appUrl: s.app.url, apiSecret: TEST_API_SECRET, now: clock.now });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await browser?.close();
  await s?.close();
});
afterEach(async () => {
  for (const p of pages.splice(0)) {
    await p.page.close();
    expect(p.errors, 'errors in the page').toEqual([]);
  }
  store.proxyDown = false;
  store.attributes = {};
  store.updates.length = 0;
});

async function cart(locale = 'en', opts: { expectErrors?: boolean } = {}): Promise<Page> {
  const page = await browser.newPage({ locale: 'en-GB' });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (!opts.expectErrors) page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  pages.push({ page, errors });
  await page.goto(`${store.url}/cart?locale=${locale}`);
  return page;
}
const status = (page: Page) => page.locator('[data-sdd-status]');

describe('the cart block', () => {
  it('lists the days and slots; chosen with the keyboard alone, it writes the cart attributes', async () => {
    const page = await cart();
    await expect.poll(() => status(page).textContent()).toBe('Choose a delivery time.');
    const days = await page.locator('[data-sdd-day] option').allTextContents();
    expect(days).toEqual(['Thursday, November 26', 'Friday, November 27', 'Monday, November 30', 'Tuesday, December 1', 'Wednesday, December 2']);
    // Tab to the day list, the next day, Tab into the times, the arrow past the full slot.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.matches('[data-sdd-day]'))).toBe(true);
    expect(await page.locator('[data-sdd-times] label').first().textContent()).toBe(' As soon as possible');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('[data-sdd-times] label').first().textContent()).toMatch(/^ Friday/);
    // Into the times: Tab passes the full (disabled) slot; the arrows move and choose, Space chooses.
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => store.updates.length).toBe(2);
    expect(store.updates[0]!.attributes).toMatchObject({ _delivery_slot: '2026-11-27T10:30:00.000Z/2026-11-27T12:30:00.000Z' });
    expect(store.updates[1]).toEqual({ attributes: { _delivery_slot: FRIDAY, 'Delivery slot': 'Friday, November 27, 10:30 AM–12:30 PM' } });
    await expect.poll(() => status(page).textContent()).toBe('Saved: Friday, November 27, 10:30 AM–12:30 PM');
    expect(await page.locator(`input[value="${FRIDAY}"]`).isChecked()).toBe(true);
    await screenshot(page, 'delivery-slots-cart', { adminStandIns: false });
  });

  it('shows a full slot disabled, and says how many places are left', async () => {
    const page = await cart();
    await expect.poll(() => status(page).textContent()).toBe('Choose a delivery time.');
    await page.locator('[data-sdd-day]').selectOption('2026-11-27');
    const full = page.locator(`input[value="${FRIDAY_FULL}"]`);
    expect(await full.isDisabled()).toBe(true);
    expect(await page.locator('label', { has: full }).textContent()).toBe(' Friday, November 27, 08:30 AM–10:30 AM (full)');
    expect(await page.locator('label', { has: page.locator(`input[value="${FRIDAY}"]`) }).textContent()).toBe(' Friday, November 27, 10:30 AM–12:30 PM (2 left)');
  });

  it('keeps the slot already in the cart selected', async () => {
    store.attributes = { _delivery_slot: FRIDAY };
    const page = await cart();
    await expect.poll(() => status(page).textContent()).toBe('Choose a delivery time.');
    expect(await page.locator('[data-sdd-day]').inputValue()).toBe('2026-11-27');
    expect(await page.locator(`input[value="${FRIDAY}"]`).isChecked()).toBe(true);
    expect(store.updates).toEqual([]);
  });

  it('the proxy down: delivery as soon as possible, written to the cart', async () => {
    store.proxyDown = true;
    const page = await cart('en', { expectErrors: true });
    await expect.poll(() => status(page).textContent()).toBe('Delivery as soon as possible.');
    expect(await page.locator('[data-sdd-picker]').isHidden()).toBe(true);
    await expect.poll(() => store.updates).toEqual([{ attributes: { _delivery_slot: 'asap', 'Delivery slot': 'As soon as possible' } }]);
  });

  it.each([
    ['de', 'Lieferzeit', 'Wählen Sie eine Lieferzeit.', 'Donnerstag, 26. November'],
    ['fr', 'Heure de livraison', 'Choisissez un créneau de livraison.', 'jeudi 26 novembre'],
    ['af', 'Afleweringstyd', 'Kies ’n afleweringstyd.', 'Donderdag 26 November'],
    ['es', 'Delivery time', 'Choose a delivery time.', 'jueves, 26 de noviembre'],
  ])('in the storefront language %s (others in English)', async (locale, heading, choose, firstDay) => {
    const page = await cart(locale);
    await expect.poll(() => status(page).textContent()).toBe(choose);
    expect(await page.locator('legend').textContent()).toBe(heading);
    expect(await page.locator('[data-sdd-day] option').first().textContent()).toBe(firstDay);
  });

  it('axe-core finds no violation, loaded and after a choice', async () => {
    const page = await cart();
    await expect.poll(() => status(page).textContent()).toBe('Choose a delivery time.');
    await page.evaluate(AXE);
    const run = () => page.evaluate(async () => ((await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] })).violations as any[]).map((v) => `${v.id}: ${v.help}`));
    expect(await run()).toEqual([]);
    await page.locator(`input[value="2026-11-26T10:30:00.000Z/2026-11-26T12:30:00.000Z"]`).check();
    await expect.poll(() => status(page).textContent()).toMatch(/^Saved: /);
    expect(await run()).toEqual([]);
  });

  it('is small: no framework, a few KB of JavaScript', () => {
    const js = readFileSync(new URL('../../extensions/delivery-slots/assets/delivery-slots.js', import.meta.url), 'utf8');
    expect(js.length).toBeLessThan(6_000);
    expect(js).not.toMatch(/\bimport\b|require\(/);
  });
});
