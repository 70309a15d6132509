// Settings → Shopify Flow in real headless Chromium: the page lists the
// triggers and actions the app offers, which ones the shop's workflows use (as
// Flow's lifecycle callback said), links to Flow, and saves the test-deliveries setting.
import { expect, it } from 'vitest';
import { sendFlowLifecycle } from '../../dev/shop-sim/flow.ts';
import { FLOW_ACTION_INFO, FLOW_TRIGGER_INFO } from '../../web/flow/catalogue.ts';
import { waitForToast } from '../support/admin-browser.ts';
import { TEST_API_SECRET } from '../support/app.ts';
import { browserSuite } from '../support/browser-suite.ts';
import { installShop } from '../support/scenario.ts';

const suite = browserSuite();

it('lists the triggers and actions, marks the ones in use, links to Flow and saves the test-deliveries setting', async () => {
  const s = suite.s;
  const shop = 'flow-settings-ui.myshopify.com';
  const sim = await installShop(s, shop);
  expect((await sendFlowLifecycle({ appUrl: s.app.url, apiSecret: TEST_API_SECRET, shop: sim }, { trigger: 'delivery-needs-attention', enabled: true })).status).toBe(200);
  const { page, open } = await suite.admin(shop);
  // Settings is one page per section (issue 26): Flow's is /settings/flow.
  await open('/settings/flow');
  const section = page.locator('s-section').filter({ has: page.getByText('Send triggers for test deliveries too') });
  await section.waitFor();
  for (const t of [...FLOW_TRIGGER_INFO, ...FLOW_ACTION_INFO]) await section.getByText(t.name, { exact: true }).waitFor();
  await expect.poll(() => section.locator('s-badge', { hasText: 'Used by a workflow' }).count()).toBe(1);
  await expect.poll(() => section.locator('s-badge', { hasText: 'Not used' }).count()).toBe(FLOW_TRIGGER_INFO.length - 1);
  expect(await section.locator('s-link', { hasText: 'Shopify Flow' }).getAttribute('href')).toBe('shopify://admin/apps/flow');
  await section.getByLabel('Send triggers for test deliveries too').check();
  await waitForToast(page, 'Flow triggers will be sent for test deliveries too');
  expect(JSON.parse((await s.app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).settings).flow).toEqual({ sendTestDeliveries: true });
}, 90_000);
