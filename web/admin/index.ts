// The merchant admin: the embedded app's pages and its JSON API (/api/*).
// Mounted by web/app.ts after the Shopify auth routes and CSP headers.
import type { Express } from 'express';
import type { AppContext } from '../context.ts';
import type { Shopify } from '../shopify/app.ts';
import { adminApi } from './api.ts';
import { mountFrontend } from './frontend.ts';

export function mountAdmin(app: Express, deps: { ctx: AppContext; shopify: Shopify }): void {
  app.use('/api', adminApi(deps));
  mountFrontend(app, { shopify: deps.shopify, config: deps.ctx.config });
}
