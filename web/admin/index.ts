// The merchant admin: the embedded app's pages and its JSON API (/api/*).
// Mounted by web/app.ts after the Shopify auth routes and CSP headers.
import type { Express } from 'express';
import type { AppContext } from '../context.ts';
import type { Shopify } from '../shopify/app.ts';

export function mountAdmin(app: Express, deps: { ctx: AppContext; shopify: Shopify }): void {
  app.get('/', deps.shopify.ensureInstalledOnShop(), (_req, res) => {
    res.type('html').send('<!doctype html><title>Same-Day Dispatch</title><p>Same-Day Dispatch is installed.</p>');
  });
}
