// The admin follows Shopify's `locale` parameter: the pages speak the shipped
// language it names (a regional tag picks its language; anything else is
// English), only that language's catalogue is downloaded, and dates, times and
// money are formatted for it, dates in the shop's time zone (Shopify's
// Shop.ianaTimezone). Real Chromium, the real app, stand-ins for App Bridge and Polaris.
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/admin-browser.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { installSession, installShop, placeOrder, waitForStatus } from '../support/scenario.ts';
import { forgetShopProfile } from '../../web/shopify/shop-profile.ts';

const suite = browserSuite();
const BAD_PHONE = { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } };

/** The catalogue chunks the page downloaded (web/frontend/vite.config.ts names them messages-<locale>-<hash>.js). */
function cataloguesOf(urls: string[]): string[] {
  return urls.map((u) => /\/assets\/messages-(\w+)-[\w-]+\.js$/.exec(new URL(u).pathname)?.[1]).filter((x): x is string => !!x);
}

describe("the admin in the merchant's language", () => {
  it.each([
    ['de', 'de', 'Same-Day-Versand einrichten', '0 von 7 Schritten erledigt'],
    ['fr-CA', 'fr', 'Configurer la livraison le jour même', '0 étapes sur 7 terminées'],
    ['es', 'es', 'Configura el envío en el día', '0 de 7 pasos hechos'],
    ['af', 'af', 'Stel dieselfde-dag-versending op', '0 van 7 stappe klaar'],
    ['pt-BR', 'en', 'Set up same-day dispatch', '0 of 7 steps done'],
  ])('locale=%s: the checklist in %s, and only that catalogue downloaded', async (locale, lang, heading, progress) => {
    const shop = `locale-${lang}-${locale.toLowerCase()}.myshopify.com`;
    await installSession(suite.s, shop);
    const admin = await suite.admin(shop);
    const requests: string[] = [];
    admin.page.on('request', (r) => requests.push(r.url()));
    await admin.open(`/?locale=${locale}`);
    await admin.page.getByText(heading, { exact: true }).waitFor();
    await admin.page.getByText(progress, { exact: true }).waitFor();
    expect(await admin.page.evaluate(() => (globalThis as any).document.documentElement.lang)).toBe(lang);
    expect(cataloguesOf(requests)).toEqual([lang]);
  }, 60_000);

  it('statuses, reasons, dates in the shop’s zone and money in German; the deliveries list and a delivery', async () => {
    const { s } = suite;
    const shop = 'locale-deliveries.myshopify.com';
    const sim = await installShop(s, shop);
    sim.ianaTimezone = 'Asia/Tokyo'; // not the machine's zone, not the browser's
    forgetShopProfile(shop);
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const stuck = await placeOrder(s, sim, BAD_PHONE);
    const attention = await waitForStatus(s.app, shop, stuck.orderId, 'NEEDS_ATTENTION');

    const { page, open } = await suite.admin(shop);
    await open('/deliveries?locale=de');
    const row = page.getByRole('row').filter({ hasText: stuck.payload.name });
    await row.getByText('Handlungsbedarf').waitFor();
    await row.getByText('Telefonnummer ist ungültig').waitFor();
    const tokyo = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(attention.createdAt);
    await row.getByText(tokyo, { exact: true }).waitFor();
    const bookedRow = page.getByRole('row').filter({ hasText: booked.orderName! });
    await bookedRow.getByText('Gebucht', { exact: true }).waitFor();
    const price = new Intl.NumberFormat('de', { style: 'currency', currency: booked.currency! }).format(booked.deliveryPrice! as unknown as number);
    await bookedRow.getByText(price, { exact: true }).waitFor();
    expect(price).toMatch(/,\d\d/); // a decimal comma: formatted for German, not an English string
    await screenshot(page, 'deliveries-de');

    await row.getByRole('link', { name: stuck.payload.name, exact: true }).click();
    await page.getByText(`Lieferung für ${stuck.payload.name}`).waitFor();
    await page.getByRole('button', { name: 'Speichern und erneut versuchen' }).waitFor();
    await page.getByText('Bestellung bezahlt', { exact: true }).waitFor(); // the timeline in words
    await page.getByText('Braucht Ihre Aufmerksamkeit', { exact: true }).waitFor();

    // A delivery that is not in this shop: the merchant's words and the way back, not "delivery x not found".
    await open('/deliveries/doesnotexist?locale=de');
    await page.getByText('Diese Lieferung finden wir nicht').waitFor();
    await page.getByRole('button', { name: 'Zu den Lieferungen' }).click();
    await page.getByText('Lieferungen durchsuchen').first().waitFor({ state: 'attached' });
    expect(new URL(page.url()).pathname).toBe('/deliveries');
  }, 90_000);
});
