// The checkout rate's settings section in real headless Chromium: the merchant turns
// the rate on, the app registers its carrier service with the (simulated) Shopify, and
// the section says what is missing (here: a phone for checkout quotes, then a plan without
// carrier-calculated shipping).
import { expect, it } from 'vitest';
import { carrierState } from '../../dev/shop-sim/carrier-services.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop } from '../support/scenario.ts';

const suite = browserSuite();

it('turning the rate on registers the carrier service; a bad value is shown at its field; a missing quote phone and the plan problem are said', async () => {
  const { s } = suite;
  const shop = 'rates-ui.myshopify.com';
  const sim = await installShop(s, shop);
  const { page, open } = await suite.admin(shop);
  await open('/settings/rates');
  await page.getByText('Same-day price at checkout', { exact: true }).waitFor();
  await page.getByText('Not registered with Shopify yet.', { exact: false }).waitFor();

  await page.getByRole('checkbox', { name: 'Offer a same-day rate at checkout' }).check();
  await page.getByRole('textbox', { name: 'Markup %' }).fill('ten');
  await page.getByRole('textbox', { name: 'Phone for checkout quotes' }).fill('021 555 0199');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'expected a percentage like 10 or 12.5' }).waitFor();
  await page.getByRole('alert').filter({ hasText: 'expected a phone number in international format' }).waitFor();
  expect(carrierState(sim).services).toEqual([]);

  // Saved with no quote phone: registered, with a warning naming the field.
  await page.getByRole('textbox', { name: 'Markup %' }).fill('10');
  await page.getByRole('textbox', { name: 'Phone for checkout quotes' }).fill('');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('Registered with Shopify as "Same-day delivery" (active).', { exact: false }).waitFor();
  const noPhone = page.getByText('Set a phone for checkout quotes ("Phone for checkout quotes" below)', { exact: false });
  await noPhone.waitFor();
  expect(await noPhone.evaluate((el) => (el as unknown as { tone?: string }).tone)).toBe('warning'); // rates still work with a buyer's or location's phone

  await page.getByRole('textbox', { name: 'Phone for checkout quotes' }).fill('+27 21 555 0199');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await noPhone.waitFor({ state: 'detached' });
  expect(carrierState(sim).services).toEqual([expect.objectContaining({ name: 'Same-day delivery', active: true, callbackUrl: `${s.app.config.publicWebhookBaseUrl}/carrier-service/rates` })]);
  const stored = JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings);
  expect(stored.rates).toMatchObject({ enabled: true, markupPercent: '10', quotePhone: '+27 21 555 0199' });
  expect(stored.eligibility.shippingLines).toContain('SDD_SAME_DAY');

  carrierState(sim).plan = { publicDisplayName: 'Basic', partnerDevelopment: false, shopifyPlus: false };
  await open('/settings/rates');
  await page.getByText('The Basic plan has no carrier-calculated shipping', { exact: false }).waitFor();
}, 60_000);
