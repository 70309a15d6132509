// Secure by default (issue 32), the app in production over real HTTP on SQLite and
// PostgreSQL: security headers on every kind of response, no loopback courier
// default, and session-token failures answered 401/503 in JSON, never a bare 500.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../support/admin-client.ts';
import { sessionToken } from '../support/session-token.ts';
import { installSession, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const ONE_YEAR = 31_536_000;

let s: Scenario;
// The old production default, 127.0.0.1:4010: whatever listens there got the merchant's client secret.
// Taken when free (a developer's sandbox may hold it); the log check below holds either way.
let trap: Server | null = null;
let trapped = 0;
beforeAll(async () => {
  // Production, as `.env.example` leaves it: COURIER_TEST_BASE_URL unset.
  s = await startScenario({ env: { NODE_ENV: 'production', COURIER_TEST_BASE_URL: '' } });
  const server = createServer((req, res) => {
    trapped++;
    req.resume();
    res.end('{}');
  });
  trap = await new Promise<Server | null>((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(4010, '127.0.0.1', () => resolve(server));
  });
});
afterAll(async () => {
  await s?.close();
  if (trap) await new Promise((r) => trap!.close(r));
});

/** No courier client was made, so nothing was sent anywhere. */
function expectNothingSent(logsBefore: number) {
  expect(trapped).toBe(0);
  expect(s.app.logs.slice(logsBefore).filter((l) => l.includes('"component":"delivery-client"'))).toEqual([]);
}

function expectSecurityHeaders(h: Headers, what: string) {
  expect(h.get('strict-transport-security'), what).toBe(`max-age=${ONE_YEAR}`);
  expect(h.get('x-content-type-options'), what).toBe('nosniff');
  expect(h.get('referrer-policy'), what).toBe('no-referrer');
  expect(h.get('x-powered-by'), what).toBeNull();
}

describe('security headers in production', () => {
  const shop = 'headers.myshopify.com';
  beforeAll(async () => {
    await installSession(s, shop);
  });

  it('the embedded admin page: HSTS, nosniff, Referrer-Policy, and still its per-shop frame-ancestors CSP (no X-Frame-Options)', async () => {
    const host = Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');
    const r = await fetch(`${s.app.url}/deliveries?shop=${shop}&host=${host}&embedded=1`);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expectSecurityHeaders(r.headers, 'admin HTML');
    expect(r.headers.get('content-security-policy')).toMatch(new RegExp(`^frame-ancestors https://${shop.replace(/\./g, '\\.')} https://admin\\.shopify\\.com`));
    expect(r.headers.get('x-frame-options')).toBeNull();
  });

  it('/api/*: answered, refused and unknown', async () => {
    const ok = await adminClient(s.app.url, shop).get('/api/settings');
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok.headers, '/api/settings 200');
    const refused = await fetch(`${s.app.url}/api/settings`);
    expect(refused.status).toBe(401);
    expectSecurityHeaders(refused.headers, '/api/settings 401');
    expectSecurityHeaders((await fetch(`${s.app.url}/api/webhooks`, { method: 'POST' })).headers, 'unsigned webhook');
  });

  it('/track/*: HSTS and the helmet headers, and the tracking page keeps its own strict CSP', async () => {
    const r = await fetch(`${s.app.url}/track/tk_${'a'.repeat(24)}`);
    expect(r.status).toBe(404);
    expectSecurityHeaders(r.headers, '/track');
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'; .*frame-ancestors 'none'$/);
    expect(r.headers.get('x-frame-options')).toBe('DENY');
  });

  it('/readyz and /healthz', async () => {
    for (const path of ['/readyz', '/healthz']) {
      const r = await fetch(`${s.app.url}${path}`);
      expect(r.status).toBe(200);
      expectSecurityHeaders(r.headers, path);
    }
  });
});

describe('no loopback courier default in production', () => {
  it('the admin shows no default test base URL, and test-connection says to set it without sending anything', async () => {
    const shop = 'no-default.myshopify.com';
    await installSession(s, shop);
    const api = adminClient(s.app.url, shop);
    expect((await api.put('/api/settings', { environments: { test: { clientId: 'id', clientSecret: 'secret-0123456789' } } })).status).toBe(200);
    const settings = await api.get('/api/settings');
    expect(settings.body.environments.test.defaultBaseUrl).toBeNull();
    expect(settings.body.environments.test.baseUrl).toBeNull();
    const logsBefore = s.app.logs.length;
    const r = await api.post('/api/environments/test/test-connection');
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(r.body.message).toMatch(/no base URL\. Set the test base URL/);
    expectNothingSent(logsBefore);
  });

  it('dispatch waits for the merchant with the same answer, and sends nothing', async () => {
    const shop = 'no-default-dispatch.myshopify.com';
    const sim = await installShop(s, shop);
    const logsBefore = s.app.logs.length;
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('missing_credentials');
    expect(d.reason).toMatch(/Set the test base URL/);
    expectNothingSent(logsBefore);
  });
});

describe('session tokens that token exchange cannot use', () => {
  it('a token correctly signed for dest https://evil.example.com → 401 naming the problem, nothing asked of Shopify', async () => {
    const token = sessionToken('evil.example.com', { claims: { iss: 'https://evil.example.com', dest: 'https://evil.example.com' } });
    const r = await fetch(`${s.app.url}/api/settings`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual({ error: 'the session token dest is not a *.myshopify.com shop' });
    expect(await s.app.db.session.count({ where: { shop: 'evil.example.com' } })).toBe(0);
  });

  it('Shopify unreachable during token exchange → 503 with Retry-After, JSON', async () => {
    const shop = 'shopify-down.myshopify.com';
    s.shopify.agent
      .get(`https://${shop}`)
      .intercept({ path: '/admin/oauth/access_token', method: 'POST' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
      .persist();
    const r = await adminClient(s.app.url, shop).get('/api/settings');
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.body.error).toMatch(/Shopify could not be reached/);
    expect(await s.app.db.session.count({ where: { shop } })).toBe(0);
  });

  it.each([
    ['HTTP 500 in JSON', 500, JSON.stringify({ errors: 'Internal error' }), /HTTP 500/],
    ['an HTML 502 page', 502, '<html>bad gateway</html>', /could not be reached/],
  ])('Shopify failing (%s) during token exchange → 503 with Retry-After', async (_what, status, body, message) => {
    const shop = `shopify-${status}.myshopify.com`;
    s.shopify.agent.get(`https://${shop}`).intercept({ path: '/admin/oauth/access_token', method: 'POST' }).reply(status, body, { headers: { 'content-type': 'application/json' } }).persist();
    const r = await adminClient(s.app.url, shop).get('/api/settings');
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.body.error).toMatch(message);
  });

  it('Shopify refusing the token (invalid_subject_token) → 401 JSON; App Bridge may retry with a fresh token', async () => {
    const shop = 'not-installed.myshopify.com';
    s.shopify.notInstalled(shop);
    const r = await adminClient(s.app.url, shop).get('/api/settings');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'Shopify refused the session token (invalid_subject_token)' });
    expect(r.headers.get('x-shopify-retry-invalid-session-request')).toBe('1');
  });
});

describe('outside production', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ NODE_ENV: 'development' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('no HSTS (development is plain http), but nosniff and Referrer-Policy', async () => {
    const r = await fetch(`${app.url}/readyz`);
    expect(r.headers.get('strict-transport-security')).toBeNull();
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('keeps the local sandbox as the test default', () => {
    expect(app.config.courierBaseUrls.test).toBe('http://127.0.0.1:4010');
  });
});
