// Responses are compressed as the client asks (Accept-Encoding): brotli or
// gzip for the admin's HTML and bundle, the customer tracking page and the API,
// identical bytes once decoded, `Vary: Accept-Encoding` for caches, and plain
// bytes for a client that asks for neither. Also the admin HTML's language
// (Shopify's `locale`) and its catalogue preload. Over real HTTP; SQLite and PostgreSQL.
import { request } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRONTEND_DIST } from '../../web/admin/frontend.ts';
import { ensureFrontendBuilt } from '../support/admin-browser.ts';
import { sessionToken } from '../support/session-token.ts';
import { installShop, startScenario, type Scenario } from '../support/scenario.ts';

let s: Scenario;
const shop = 'compression.myshopify.com';
beforeAll(async () => {
  await ensureFrontendBuilt();
  s = await startScenario();
  await installShop(s, shop);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

interface Raw {
  status: number;
  encoding: string | undefined;
  vary: string;
  /** The body as sent, and decoded. */
  sent: Buffer;
  body: Buffer;
}

function get(path: string, acceptEncoding: string | null, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.app.url}${path}`, { headers: { ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const sent = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const body = encoding === 'br' ? brotliDecompressSync(sent) : encoding === 'gzip' ? gunzipSync(sent) : sent;
        resolve({ status: res.statusCode!, encoding, vary: String(res.headers.vary ?? ''), sent, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const host = Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');
const adminPage = (locale?: string) => `/deliveries?shop=${shop}&host=${host}&embedded=1${locale ? `&locale=${locale}` : ''}`;
/** The largest chunk of the admin bundle. */
const bundle = () => {
  const dir = join(FRONTEND_DIST, 'assets');
  const [largest] = readdirSync(dir).filter((f) => f.endsWith('.js')).sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size);
  return `/assets/${largest}`;
};

describe('compression', () => {
  it.each([
    ['br', 'gzip, deflate, br'],
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip', 'gzip, deflate'],
  ])('%s for Accept-Encoding "%s": the admin page, its bundle, the tracking page and the API', async (expected, accept) => {
    const file = bundle();
    const js = await get(file, accept);
    expect(js).toMatchObject({ status: 200, encoding: expected });
    expect(js.vary).toMatch(/accept-encoding/i);
    expect(js.body.equals(readFileSync(join(FRONTEND_DIST, file)))).toBe(true);
    expect(js.sent.length).toBeLessThan(js.body.length * 0.6);

    const html = await get(adminPage(), accept);
    expect(html).toMatchObject({ status: 200, encoding: expected });
    expect(html.vary).toMatch(/accept-encoding/i);
    expect(html.body.toString()).toContain('<meta name="shopify-api-key"');

    // The customer's tracking page (an unknown link: its 404 page is HTML of the same kind).
    const tracking = await get('/track/not-a-real-token-0000000000', accept);
    expect(tracking.status).toBe(404);
    expect(tracking.encoding).toBe(expected);
    expect(tracking.body.toString()).toMatch(/<html/);

    const api = await get('/api/settings', accept, { authorization: `Bearer ${sessionToken(shop)}` });
    expect(api).toMatchObject({ status: 200, encoding: expected });
    expect(JSON.parse(api.body.toString())).toHaveProperty('settings');
  });

  it('sends plain bytes to a client that accepts no compression', async () => {
    const file = bundle();
    for (const accept of [null, 'identity']) {
      const js = await get(file, accept);
      expect(js.encoding).toBeUndefined();
      expect(js.sent.equals(readFileSync(join(FRONTEND_DIST, file)))).toBe(true);
      const html = await get(adminPage(), accept);
      expect(html.encoding).toBeUndefined();
      expect(html.body.toString()).toMatch(/^<!doctype html>/i);
    }
  });
});

describe("the admin page follows Shopify's locale", () => {
  it.each([
    ['de', 'de'],
    ['fr-CA', 'fr'],
    ['es-419', 'es'],
    ['af', 'af'],
    ['pt-BR', 'en'],
    [undefined, 'en'],
  ])('locale=%s → <html lang="%s"> with that language’s catalogue preloaded, and no other', async (locale, lang) => {
    const html = (await get(adminPage(locale), 'br')).body.toString();
    expect(html).toContain(`<html lang="${lang}">`);
    const preloaded = [...html.matchAll(/href="\/assets\/messages-(\w+)-[\w-]+\.js"/g)].map((m) => m[1]);
    expect(preloaded).toEqual([lang]);
  });
});
