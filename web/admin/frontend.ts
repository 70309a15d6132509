// Serves the built embedded app (web/frontend/dist, `npm run build`): hashed
// assets with long caching, and index.html for every page path with the app's
// API key in <meta name="shopify-api-key"> (App Bridge reads it).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import type { AppConfig } from '../config/env.ts';
import type { Shopify } from '../shopify/app.ts';

export const FRONTEND_DIST = resolve(import.meta.dirname, '../frontend/dist');
/** Client-side routes of the embedded app (web/frontend/src/router.ts). */
export const PAGE_PATHS = ['/', '/settings', '/deliveries', '/deliveries/:id'];
const API_KEY_PLACEHOLDER = '%SHOPIFY_API_KEY%';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function mountFrontend(app: Express, deps: { shopify: Shopify; config: AppConfig; dist?: string }): void {
  const dist = deps.dist ?? FRONTEND_DIST;
  let cached: { mtimeMs: number; html: string } | null = null;

  function indexHtml(): string | null {
    const file = join(dist, 'index.html');
    if (!existsSync(file)) return null;
    const mtimeMs = statSync(file).mtimeMs;
    if (!cached || cached.mtimeMs !== mtimeMs) {
      cached = { mtimeMs, html: readFileSync(file, 'utf8').replaceAll(API_KEY_PLACEHOLDER, escapeHtml(deps.config.shopify.apiKey)) };
    }
    return cached.html;
  }

  app.use('/assets', express.static(join(dist, 'assets'), { index: false, immutable: true, maxAge: '365d', fallthrough: true }));

  const page = (_req: Request, res: Response) => {
    const html = indexHtml();
    if (!html) {
      res.status(503).type('html').send('<!doctype html><title>Same-Day Dispatch</title><p>The admin pages are not built yet: run <code>npm run build</code>.</p>');
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(html);
  };
  app.get(PAGE_PATHS, deps.shopify.ensureInstalledOnShop(), page);
}
