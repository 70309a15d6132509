// Small hardening points (issue 13, item 6): /api/auth input, bad session
// tokens, session tokens naming two shops, literal % and _ in the deliveries
// search, and a flood of unsigned courier webhooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../support/admin-client.ts';
import { installSession, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

describe('/api/auth', () => {
  it.each([
    ['/api/auth'],
    ['/api/auth?shop='],
    ['/api/auth?shop=evil.example.com'],
    ['/api/auth?shop=%00'],
    ['/api/auth?shop=a&shop=b'],
  ])('%s answers 400 naming shop', async (path) => {
    const r = await fetch(`${s.app.url}${path}`, { redirect: 'manual' });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await r.json()) as { errors: Record<string, string> }).errors.shop).toMatch(/myshopify\.com/);
  });

  it('passes a valid shop on to the library', async () => {
    const r = await fetch(`${s.app.url}/api/auth?shop=valid-shop.myshopify.com`, { redirect: 'manual' });
    expect(r.status).not.toBe(400);
    expect(r.status).toBeLessThan(500);
  });
});

describe('bad session tokens', () => {
  const BAD = '<script>alert(1)</script>.eyJzZWNyZXQiOiJ4In0.not-a-signature-but-long-enough-to-notice-0123456789';
  it('are not echoed back as text/html, and not logged whole', async () => {
    const before = s.app.logs.length;
    const r = await fetch(`${s.app.url}/api/settings`, { headers: { authorization: `Bearer ${BAD}` } });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    const text = await r.text();
    expect(text).not.toContain('<script>');
    expect(text).not.toContain('not-a-signature');
    const logged = s.app.logs.slice(before).join('\n');
    expect(logged).not.toContain('not-a-signature-but-long-enough');
    expect(logged).not.toContain('<script>');
  });

  it("refuses a token whose iss and dest name different shops", async () => {
    const a = 'iss-shop.myshopify.com';
    const b = 'dest-shop.myshopify.com';
    await installSession(s, a);
    await installSession(s, b);
    expect((await adminClient(s.app.url, a).get('/api/settings')).status).toBe(200);
    const mixed = await adminClient(s.app.url, a, { claims: { dest: `https://${b}` } }).get('/api/settings');
    expect(mixed.status).toBe(401);
    expect(mixed.body.error).toMatch(/iss.*dest|dest.*iss/);
    const mixed2 = await adminClient(s.app.url, b, { claims: { iss: `https://${a}/admin` } }).get('/api/settings');
    expect(mixed2.status).toBe(401);
  });
});

describe('deliveries search', () => {
  it('matches % and _ literally', async () => {
    const shop = 'like-search.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const one = await placeOrder(s, sim, { name: '#A%1' });
    const two = await placeOrder(s, sim, { name: '#AB1' });
    const three = await placeOrder(s, sim, { name: '#A_2' });
    await waitForStatus(s.app, shop, three.orderId, ['SKIPPED', 'PENDING', 'NEEDS_ATTENTION']);
    const api = adminClient(s.app.url, shop);
    const names = async (q: string) => ((await api.get(`/api/deliveries?q=${encodeURIComponent(q)}`)).body.deliveries as Array<{ orderName: string }>).map((d) => d.orderName).sort();
    expect(await names('A%1')).toEqual(['#A%1']);
    expect(await names('A_2')).toEqual(['#A_2']);
    expect(await names('%')).toEqual(['#A%1']);
    expect(await names('_')).toEqual(['#A_2']);
    expect(await names('AB1')).toEqual(['#AB1']);
    expect(one.orderId && two.orderId).toBeTruthy();
  });
});
