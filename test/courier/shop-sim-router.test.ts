// The shop simulator's router alone on a real HTTP server, over a state and a sender it is
// handed: control requests change the state; webhooks reach a real receiver, signed.
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { signWebhookBody } from '../../dev/shop-sim/auth.ts';
import { DEFAULT_FIXTURES_DIR, fixturesIn } from '../../dev/shop-sim/fixtures.ts';
import { shopSimRouter } from '../../dev/shop-sim/router.ts';
import { ShopWebhookSender } from '../../dev/shop-sim/sender.ts';
import { SimState } from '../../dev/shop-sim/state.ts';
import { listenOnLoopback, type Listening } from '../support/listen.ts';

const SECRET = 'router-secret';
let server: Listening;
let receiver: Listening;
let url: string;
const received: Array<{ hmac: string; body: string }> = [];
const state = new SimState({ apiKey: 'router-key', apiSecret: SECRET, settings: { appUrl: 'http://127.0.0.1:1', webhookRetryDelaysMs: [], webhookTimeoutMs: 2_000 }, fixtures: fixturesIn(DEFAULT_FIXTURES_DIR) });
const sender = new ShopWebhookSender({ apiSecret: SECRET, settings: () => state.settings });

beforeAll(async () => {
  receiver = await listenOnLoopback((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ hmac: String(req.headers['x-shopify-hmac-sha256']), body });
      res.writeHead(200).end();
    });
  });
  state.patchSettings({ appUrl: receiver.url });
  const app = express();
  app.use(shopSimRouter({ state, sender, url: () => url }));
  server = await listenOnLoopback(app);
  url = server.url;
});
afterAll(async () => {
  await sender.close();
  await server.close();
  await receiver.close();
});

const post = (path: string, body: unknown) =>
  request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any }));

describe('shopSimRouter', () => {
  it('places an order in the state and sends orders/paid signed with the app secret', async () => {
    const placed = await post('/_sim/shops/demo/orders', { fixture: 'sandton-same-day' });
    expect(placed.status).toBe(201);
    expect(state.getShop('demo', false).orders.has(placed.body.order.id)).toBe(true);
    expect(placed.body.webhook).toMatchObject({ topic: 'orders/paid', state: 'delivered' });
    expect(received).toHaveLength(1);
    expect(received[0]!.hmac).toBe(signWebhookBody(received[0]!.body, SECRET));
  });

  it('names what is wrong: unknown control route, wrong method, bad JSON, the removed authorize endpoint', async () => {
    expect(await post('/_sim/nowhere', {})).toMatchObject({ status: 404, body: { routes: expect.any(Array) } });
    expect((await request(`${url}/_sim/reset`)).statusCode).toBe(405);
    const bad = await request(`${url}/_sim/shops`, { method: 'POST', body: '{"shop":' });
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as { error: string }).error).toMatch(/^request body is not valid JSON/);
    expect((await request(`${url}/shops/demo/admin/oauth/authorize?client_id=router-key`)).statusCode).toBe(404);
  });
});
