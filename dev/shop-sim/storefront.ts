// The storefront's side of the cart block (extensions/delivery-slots), for tests and the demo:
// Shopify renders the app block's Liquid into the cart page (here: liquidjs, with the `t` and
// `asset_url` filters and the block's locales), serves its assets, answers /cart/update.js, and
// forwards /apps/<subpath>/* to the app as the app proxy does: the query gains shop,
// logged_in_customer_id, path_prefix, timestamp and a signature (shopify.dev, "Authenticate app
// proxies"; written out here, apart from the app's verifier).
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { Liquid } from 'liquidjs';

export const EXTENSION_DIR = join(import.meta.dirname, '..', '..', 'extensions', 'delivery-slots');
const SCHEMA = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/;

export interface StorefrontOptions {
  shop: string;
  appUrl: string;
  apiSecret: string;
  /** The app's clock, for the proxy's timestamp. */
  now?: () => number;
  subpath?: string;
}

export interface RunningStorefront {
  url: string;
  /** Cart attributes as /cart/update.js left them. */
  attributes: Record<string, string>;
  /** Every /cart/update.js body, in order. */
  updates: Array<Record<string, unknown>>;
  /** When true the app proxy answers 502, as Shopify does when the app cannot be reached. */
  proxyDown: boolean;
  close(): Promise<void>;
}

function lookup(tree: unknown, key: string): string | undefined {
  const v = key.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), tree);
  return typeof v === 'string' ? v : undefined;
}

/** The block rendered as Shopify would, in the storefront's locale (a locale without a file falls back to English). */
export async function renderBlock(opts: { locale: string; attributes: Record<string, string>; proxyPath?: string }): Promise<{ html: string; schema: { javascript?: string; stylesheet?: string } }> {
  const source = readFileSync(join(EXTENSION_DIR, 'blocks', 'delivery-slots.liquid'), 'utf8');
  const schema = JSON.parse(SCHEMA.exec(source)![1]!);
  const read = (name: string) => { try { return JSON.parse(readFileSync(join(EXTENSION_DIR, 'locales', `${name}.json`), 'utf8')); } catch { return null; } };
  const english = read('en.default');
  const own = opts.locale === 'en' ? english : read(opts.locale);
  const engine = new Liquid({ strictFilters: true });
  engine.registerFilter('t', (key: string) => lookup(own, key) ?? lookup(english, key) ?? `translation missing: ${key}`);
  engine.registerFilter('asset_url', (name: string) => `/assets/${name}`);
  const html = await engine.parseAndRender(source.replace(SCHEMA, ''), {
    block: { id: 'slots1', shopify_attributes: '', settings: { proxy_path: opts.proxyPath ?? '/apps/same-day' } },
    request: { locale: { iso_code: opts.locale } },
    cart: { attributes: opts.attributes },
  });
  return { html, schema };
}

export async function startStorefront(opts: StorefrontOptions): Promise<RunningStorefront> {
  const subpath = opts.subpath ?? 'same-day';
  const now = opts.now ?? Date.now;
  const app = express();
  const state: RunningStorefront = { url: '', attributes: {}, updates: [], proxyDown: false, close: async () => {} };

  app.get('/cart', async (req, res) => {
    const locale = typeof req.query.locale === 'string' ? req.query.locale : 'en';
    // ?block=0: the same page without the app block (to measure what the block costs the storefront).
    const { html, schema } = req.query.block === '0' ? { html: '', schema: {} as { javascript?: string; stylesheet?: string } } : await renderBlock({ locale, attributes: state.attributes });
    res.type('html').send(`<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Cart</title>
${schema.stylesheet ? `<link rel="stylesheet" href="/assets/${schema.stylesheet}">` : ''}</head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem"><main><h1>Your cart</h1><p>1 × Same-day bouquet</p>${html}<button type="submit">Check out</button></main>
${schema.javascript ? `<script src="/assets/${schema.javascript}" defer></script>` : ''}</body></html>`);
  });
  app.get('/favicon.ico', (_req, res) => { res.status(204).end(); });
  app.use('/assets', express.static(join(EXTENSION_DIR, 'assets'), { fallthrough: false }));
  app.post('/cart/update.js', express.json(), (req, res) => {
    state.updates.push(req.body);
    for (const [k, v] of Object.entries((req.body?.attributes ?? {}) as Record<string, unknown>)) state.attributes[k] = String(v);
    res.json({ attributes: state.attributes, item_count: 1 });
  });
  app.get(`/apps/${subpath}/*rest`, async (req, res) => {
    if (state.proxyDown) {
      res.status(502).type('html').send('<h1>Bad gateway</h1>');
      return;
    }
    const rest = req.path.slice(`/apps/${subpath}`.length);
    const q = new URLSearchParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
    for (const k of ['shop', 'logged_in_customer_id', 'path_prefix', 'timestamp', 'signature']) q.delete(k);
    q.set('shop', opts.shop);
    q.set('logged_in_customer_id', '');
    q.set('path_prefix', `/apps/${subpath}`);
    q.set('timestamp', String(Math.floor(now() / 1000)));
    const grouped = new Map<string, string[]>();
    for (const [k, v] of q) grouped.set(k, [...(grouped.get(k) ?? []), v]);
    const message = [...grouped].map(([k, vs]) => `${k}=${vs.join(',')}`).sort().join('');
    q.set('signature', createHmac('sha256', opts.apiSecret).update(message).digest('hex'));
    const r = await fetch(`${opts.appUrl}/storefront${rest}?${q}`);
    res.status(r.status).type(r.headers.get('content-type') ?? 'application/json').send(Buffer.from(await r.arrayBuffer()));
  });

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
