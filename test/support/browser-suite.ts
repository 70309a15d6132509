// One browser test file's set-up: the built frontend, a scenario (app, sandbox,
// simulated Shopify), headless Chromium, and admin pages that fail the test
// when they logged an error. Call at the top level of a test file; `scenario`
// gives startScenario's options, read when the suite starts (after the file's
// earlier beforeAll hooks).
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureFrontendBuilt, launchBrowser, openAdmin, type AdminPage } from './admin-browser.ts';
import { startScenario, type Scenario } from './scenario.ts';

export function browserSuite(options: { scenario?: () => Parameters<typeof startScenario>[0] } = {}) {
  const state: { s: Scenario | null; browser: Browser | null; pages: AdminPage[] } = { s: null, browser: null, pages: [] };
  beforeAll(async () => {
    await ensureFrontendBuilt();
    [state.s, state.browser] = await Promise.all([startScenario(options.scenario?.()), launchBrowser()]);
  }, 120_000);
  afterAll(async () => {
    await state.browser?.close();
    await state.s?.close();
  });
  afterEach(async () => {
    for (const p of state.pages.splice(0)) {
      const errors = p.errors;
      await p.close();
      expect(errors, 'errors in the page').toEqual([]);
    }
  });
  return {
    get s(): Scenario {
      return state.s!;
    },
    async admin(shop: string): Promise<AdminPage> {
      const p = await openAdmin(state.browser!, state.s!.app.url, shop);
      state.pages.push(p);
      return p;
    },
  };
}
