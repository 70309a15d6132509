// Serves the built embedded app (web/frontend/dist, `npm run build`): hashed
// assets with long caching, and index.html for every page path with the app's
// API key in <meta name="shopify-api-key"> (App Bridge reads it), the language
// Shopify asked for (`locale`) as <html lang>, and that language's catalogue
// preloaded (the page needs it before it renders).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import type { AppConfig } from '../config/env.ts';
import { pickLocale, type Locale } from '../i18n/locales.ts';
import type { Shopify } from '../shopify/app.ts';

export const FRONTEND_DIST = resolve(import.meta.dirname, '../frontend/dist');
/** Client-side routes of the embedded app (web/frontend/src/router.ts). */
export const PAGE_PATHS = ['/', '/settings', '/settings/:section', '/deliveries', '/deliveries/:id', '/unmatched'];
const API_KEY_PLACEHOLDER = '%SHOPIFY_API_KEY%';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The built catalogue chunk of each language (vite.config.ts names them messages-<locale>-<hash>.js). */
function catalogueChunks(dist: string): Map<string, string> {
  const dir = join(dist, 'assets');
  const chunks = new Map<string, string>();
  for (const f of existsSync(dir) ? readdirSync(dir) : []) {
    const m = /^messages-([a-z]{2})-[\w-]+\.js$/.exec(f);
    if (m) chunks.set(m[1]!, `/assets/${f}`);
  }
  return chunks;
}

/** index.html for one language: <html lang> and its catalogue preloaded. */
export function pageHtml(html: string, locale: Locale, chunks: Map<string, string>): string {
  const chunk = chunks.get(locale);
  const withLang = html.replace(/<html lang="[^"]*">/, `<html lang="${locale}">`);
  return chunk ? withLang.replace('</head>', `  <link rel="modulepreload" crossorigin href="${chunk}">\n  </head>`) : withLang;
}

export function mountFrontend(app: Express, deps: { shopify: Shopify; config: AppConfig; dist?: string }): void {
  const dist = deps.dist ?? FRONTEND_DIST;
  let cached: { mtimeMs: number; pages: Map<Locale, string>; html: string; chunks: Map<string, string> } | null = null;

  function indexHtml(locale: Locale): string | null {
    const file = join(dist, 'index.html');
    if (!existsSync(file)) return null;
    const mtimeMs = statSync(file).mtimeMs;
    if (!cached || cached.mtimeMs !== mtimeMs) {
      const html = readFileSync(file, 'utf8').replaceAll(API_KEY_PLACEHOLDER, escapeHtml(deps.config.shopify.apiKey));
      cached = { mtimeMs, pages: new Map(), html, chunks: catalogueChunks(dist) };
    }
    let page = cached.pages.get(locale);
    if (!page) cached.pages.set(locale, (page = pageHtml(cached.html, locale, cached.chunks)));
    return page;
  }

  app.use('/assets', express.static(join(dist, 'assets'), { index: false, immutable: true, maxAge: '365d', fallthrough: true }));

  const page = (req: Request, res: Response) => {
    const html = indexHtml(pickLocale([typeof req.query.locale === 'string' ? req.query.locale : null]));
    if (!html) {
      res.status(503).type('html').send('<!doctype html><title>Same-Day Dispatch</title><p>The admin pages are not built yet: run <code>npm run build</code>.</p>');
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(html);
  };
  app.get(PAGE_PATHS, deps.shopify.ensureInstalledOnShop(), page);
}
