// Small hardening points (issue 13, item 6): /api/auth input, bad session
// tokens, session tokens naming two shops, literal % and _ in the deliveries
// search, and a flood of unsigned courier webhooks.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';
import { courierWebhookIntake, courierWebhookRoute, EndpointCache, RejectionLog } from '../../web/fulfillment/webhook-route.ts';
import { requestContext } from '../../web/ops/http.ts';
import { adminClient } from '../support/admin-client.ts';
import { waitFor } from '../support/process.ts';
import { connectCourierAccount, installSession, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

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

  it('answers a valid shop with why the OAuth routes are unused (token exchange)', async () => {
    for (const path of ['/api/auth', '/api/auth/callback']) {
      const r = await fetch(`${s.app.url}${path}?shop=valid-shop.myshopify.com`, { redirect: 'manual' });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toMatch(/token exchange/);
    }
  });
});

describe('bad session tokens', () => {
  const BAD = '<script>alert(1)</script>.eyJzZWNyZXQiOiJ4In0.not-a-signature-but-long-enough-to-notice-0123456789';
  it('are not echoed back as text/html, and not logged whole', async () => {
    const before = s.app.logs.length;
    const r = await fetch(`${s.app.url}/api/settings`, { headers: { authorization: `Bearer ${BAD}` } });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.headers.get('x-shopify-retry-invalid-session-request')).toBe('1');
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

describe('a flood of unsigned courier webhooks', () => {
  it('costs no database write per request; the last reason is written at the next flush', async () => {
    const shop = 'flood.myshopify.com';
    const sim = await installShop(s, shop, { settings: { autoDispatch: false } });
    const { endpointId } = await connectCourierAccount(s, shop);
    // The app's real route and database, with a flush interval the test controls.
    const rejections = new RejectionLog(s.app.ctx, { flushMs: 600_000 });
    const app = express().use(requestContext(s.app.ctx.log)).post('/webhooks/delivery/:endpointId', ...courierWebhookRoute(s.app.ctx, courierWebhookIntake(s.app.ctx, rejections)));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/delivery/${endpointId}`;
    const row = () => s.app.db.courierEnvironment.findUniqueOrThrow({ where: { endpointId } });
    try {
      const before = await row();
      const statuses: number[] = [];
      for (let batch = 0; batch < 10; batch++) {
        const rs = await Promise.all(Array.from({ length: 20 }, () => fetch(url, { method: 'POST', body: '{"id":"evt_x"}' })));
        statuses.push(...rs.map((r) => r.status));
      }
      // A wrong signature needs the endpoint's secret, so it is read, but nothing is written either.
      const body = '{"id":"evt_forged","type":"delivery.status.updated"}';
      const forged = signDeliveryWebhook({ secret: 'whsec_not_the_secret_000', body, timestampSec: Math.floor(Date.now() / 1000), eventId: 'evt_forged', type: 'delivery.status.updated' });
      statuses.push((await fetch(url, { method: 'POST', headers: forged, body })).status);
      expect(new Set(statuses)).toEqual(new Set([401]));
      const during = await row();
      expect(during.lastRejectionAt).toEqual(before.lastRejectionAt);
      expect(during.updatedAt).toEqual(before.updatedAt);

      // Shopify intake is not held up meanwhile.
      const { orderId } = await placeOrder(s, sim);
      await waitForStatus(s.app, shop, orderId, ['PENDING', 'SKIPPED']);

      await rejections.flush();
      expect((await row()).lastRejectionReason).toMatch(/^signature_mismatch/);
      const flushed = s.app.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'courier webhooks rejected in the last interval');
      expect(flushed.at(-1)?.count).toBe(201);
      // The log is not flooded either: one warning, then the summary; the access lines drop to debug.
      const lines = s.app.logs.map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.msg === 'courier webhook rejected' && l.endpointId === endpointId.slice(0, 12)).length).toBe(1);
      expect(lines.filter((l) => l.msg === 'request' && l.status === 401 && l.level === 'warn' && l.path?.includes(endpointId)).length).toBe(1);
    } finally {
      server.close();
    }
  });

  it('the app writes the last reason within the flush interval', async () => {
    const shop = 'flood-app.myshopify.com';
    await installShop(s, shop);
    const { endpointUrl, endpointId } = await connectCourierAccount(s, shop);
    expect((await fetch(endpointUrl, { method: 'POST', body: '{}' })).status).toBe(401);
    await waitFor(async () => /missing_header/.test((await s.app.db.courierEnvironment.findUniqueOrThrow({ where: { endpointId } })).lastRejectionReason ?? ''), 'the rejection to be recorded', 5_000);
  });
});

describe('the courier route keeps a read endpoint for a moment (EndpointCache)', () => {
  it('serves a burst from one read; a secret replaced since is taken at once on a fresh read; with no cache the old secret is refused', async () => {
    const shop = 'endpoint-cache.myshopify.com';
    await installShop(s, shop, { settings: { autoDispatch: false } });
    const { endpointId } = await connectCourierAccount(s, shop);
    const box = s.app.server.services()!.box;
    const setSecret = (secret: string) =>
      s.app.db.courierEnvironment.update({ where: { endpointId }, data: { webhookSecretEnc: box.encrypt(secret), webhookSecretPrevEnc: null, webhookSecretPrevUntil: null } });
    const OLD = 'whsec_cache_old_0123456789abcdef';
    const NEW = 'whsec_cache_new_0123456789abcdef';
    const send = async (url: string, secret: string) => {
      const id = `evt_cache_${Math.random().toString(36).slice(2)}`;
      const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: 'dlv_cache_unknown', status: 'collected' } });
      const headers = signDeliveryWebhook({ secret, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
      return (await fetch(url, { method: 'POST', headers, body })).status;
    };
    const serve = async (cache: EndpointCache) => {
      const app = express().use(requestContext(s.app.ctx.log)).post('/webhooks/delivery/:endpointId', ...courierWebhookRoute(s.app.ctx, courierWebhookIntake(s.app.ctx, new RejectionLog(s.app.ctx), cache)));
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/delivery/${endpointId}` };
    };
    for (const ttlMs of [60_000, 0]) {
      await setSecret(OLD);
      const { server, url } = await serve(new EndpointCache(ttlMs));
      try {
        expect(await send(url, OLD)).toBe(200);
        await setSecret(NEW); // behind the route's back, as another instance would
        // Cached: the old secret still verifies on the row read a moment ago; no cache: refused.
        expect(await send(url, OLD)).toBe(ttlMs ? 200 : 401);
        // The new secret fails on the cached row, so the route reads again and accepts it.
        expect(await send(url, NEW)).toBe(200);
        expect(await send(url, OLD)).toBe(401);
      } finally {
        server.close();
      }
    }
  });
});
