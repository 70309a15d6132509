// The Deliveries page's bulk bar in real headless Chromium: rows selected with
// their checkboxes, one action for all, each order's result in its row and in
// the bar, through the real /api/bulk against the sandbox courier.
import { expect, it } from 'vitest';
import { screenshot, type AdminPage } from '../support/admin-browser.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop, placeOrder, waitForStatus } from '../support/scenario.ts';

const suite = browserSuite();

const STANDARD = { shipping_lines: [{ title: 'Standard', code: 'standard' }] };

it('selects rows, dispatches them with one click and shows each result, partial failures included; quotes book nothing', async () => {
  const { s } = suite;
  const shop = 'bulk-ui.myshopify.com';
  const sim = await installShop(s, shop);
  const skipped = await placeOrder(s, sim, STANDARD);
  const heavy = await placeOrder(s, sim, { ...STANDARD, total_weight: 2_000_000 });
  const booked = await placeOrder(s, sim);
  await waitForStatus(s.app, shop, skipped.orderId, 'SKIPPED');
  await waitForStatus(s.app, shop, heavy.orderId, 'SKIPPED');
  await waitForStatus(s.app, shop, booked.orderId, 'CREATED');

  const p = await suite.admin(shop);
  const { page } = p;
  await p.open('/deliveries');
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
  const select = (name: string) => page.getByRole('checkbox', { name: `Select ${name}`, exact: true });
  await row(booked.payload.name).getByText('Created').waitFor();
  // No bar until something is selected.
  expect(await page.getByRole('button', { name: 'Dispatch', exact: true }).count()).toBe(0);

  for (const o of [skipped, booked, heavy]) await select(o.payload.name).check();
  await page.getByText('3 selected').waitFor();
  await page.getByRole('button', { name: 'Dispatch', exact: true }).click();
  await page.getByText('Dispatch: 2 queued, 1 refused, 0 not found').waitFor();
  await page.locator('s-list-item').filter({ hasText: `${booked.payload.name}: delivery is CREATED; nothing to retry` }).waitFor();
  await page.locator('s-list-item').filter({ hasText: `${skipped.payload.name}: Queued for dispatch` }).waitFor();
  // Each row's result badge sits beside its checkbox, in the first cell: a delivery whose status is PENDING
  // also shows "Queued" in its status cell once the list refreshes.
  const result = (name: string, text: string) => row(name).locator('s-table-cell').first().getByText(text, { exact: true });
  await result(booked.payload.name, 'Refused').waitFor();
  await result(skipped.payload.name, 'Queued').waitFor();
  await screenshot(page, 'deliveries-bulk');

  // The courier books one and refuses the other; the list shows it on Refresh.
  await waitForStatus(s.app, shop, skipped.orderId, 'CREATED');
  await waitForStatus(s.app, shop, heavy.orderId, 'NEEDS_ATTENTION');
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await row(heavy.payload.name).getByText('Needs attention').waitFor();
  await row(skipped.payload.name).getByText('Created').waitFor();
  expect(await s.courier.ordersCreatedFor(booked.orderId)).toBe(1);

  // Quotes for the same selection: prices and the courier's refusal; nothing booked.
  const created = (await s.courier.stats()).ordersCreated;
  await page.getByRole('button', { name: 'Get quotes', exact: true }).click();
  await page.getByText('Get quotes: 2 quoted, 1 refused, 0 not found').waitFor();
  const price = (await s.app.db.delivery.findFirstOrThrow({ where: { shopifyOrderId: booked.orderId } })).deliveryPrice!;
  await page.locator('s-list-item').filter({ hasText: `${booked.payload.name}: ZAR ${price}` }).waitFor();
  await page.locator('s-list-item').filter({ hasText: new RegExp(`${heavy.payload.name}: Courier: .*weightKg`) }).waitFor();
  expect((await s.courier.stats()).ordersCreated).toBe(created);

  await page.getByRole('button', { name: 'Clear selection', exact: true }).click();
  await eventuallyGone(page);
}, 90_000);

async function eventuallyGone(page: AdminPage['page']) {
  await expect.poll(() => page.getByRole('button', { name: 'Get quotes', exact: true }).count(), { timeout: 10_000 }).toBe(0);
}
