// The admin JSON API (/api/*) over real HTTP, on SQLite and PostgreSQL: the
// real app in-process, the sandbox courier, Shopify faked (MockAgent + shop
// simulator), App Bridge session tokens signed with the app's secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, recordedResponses, type AdminClient } from '../support/admin-client.ts';
import { TEST_API_SECRET } from '../support/app.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { waitFor } from '../support/process.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { placeOrder, SANDBOX_CLIENT, startScenario, waitForStatus, WEBHOOK_SECRET, type Scenario, installShop, installSession } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

const BAD_PHONE = { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } };

async function attentionDelivery(shop: string, sim: Awaited<ReturnType<typeof installShop>>) {
  const { orderId } = await placeOrder(s, sim, BAD_PHONE);
  const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
  return { orderId, delivery: d };
}

describe('authentication and CORS', () => {
  const shop = 'auth-shop.myshopify.com';
  beforeAll(async () => {
    await installSession(s, shop);
  });

  it('answers 200 to a valid session token, 401 without one or with a bad one', async () => {
    expect((await adminClient(s.app.url, shop).get('/api/settings')).status).toBe(200);
    const none = await fetch(`${s.app.url}/api/settings`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: string }).error).toMatch(/session token/);
    const forged = await adminClient(s.app.url, shop, { apiSecret: 'not-the-app-secret-000' }).get('/api/settings');
    expect(forged.status).toBe(401);
    const otherApp = await adminClient(s.app.url, shop, { apiKey: 'someone-elses-app' }).get('/api/settings');
    expect(otherApp.status).toBe(401);
    const expired = await adminClient(s.app.url, shop, { now: Math.floor(Date.now() / 1000) - 3600 }).get('/api/settings');
    expect(expired.status).toBe(401);
  });

  it('a session token for a shop without the app: Shopify refuses the token exchange, the app answers 401 and stores nothing', async () => {
    s.shopify.notInstalled('never-installed.myshopify.com');
    const r = await adminClient(s.app.url, 'never-installed.myshopify.com').get('/api/settings');
    expect(r.status).toBe(401);
    expect(r.headers.get('x-shopify-retry-invalid-session-request')).toBe('1');
    expect(await s.app.db.session.count({ where: { shop: 'never-installed.myshopify.com' } })).toBe(0);
    expect(await s.app.db.shop.count({ where: { domain: 'never-installed.myshopify.com' } })).toBe(0);
  });

  it('a shop with the app but no stored session (Shopify-managed install): the first call exchanges the token', async () => {
    const domain = 'first-call.myshopify.com';
    s.shopify.shop(domain); // installed on Shopify's side only
    const r = await adminClient(s.app.url, domain).get('/api/settings');
    expect(r.status).toBe(200);
    const stored = await s.app.server.services()!.database.db.session.findUniqueOrThrow({ where: { id: `offline_${domain}` } });
    expect(stored.accessToken).toMatch(/^enc:v1:/);
    expect(stored.refreshToken).toMatch(/^enc:v1:/);
    expect(await s.app.db.shop.findUniqueOrThrow({ where: { domain } })).toMatchObject({ uninstalledAt: null });
  });

  it('lets CORS preflights from the admin extension origin through without a token', async () => {
    const r = await fetch(`${s.app.url}/api/orders/123/delivery`, {
      method: 'OPTIONS',
      headers: { origin: 'https://extensions.shopifycdn.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://extensions.shopifycdn.com');
    expect(r.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(r.headers.get('access-control-allow-methods')).toMatch(/POST/);

    const get = await adminClient(s.app.url, shop).get('/api/settings', { headers: { origin: 'https://extensions.shopifycdn.com' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe('https://extensions.shopifycdn.com');

    const evil = await fetch(`${s.app.url}/api/settings`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('shop isolation', () => {
  const A = 'iso-a.myshopify.com';
  const B = 'iso-b.myshopify.com';
  let a: AdminClient;
  let bOrder: string;
  let bDelivery: { id: string; status: string };

  beforeAll(async () => {
    await installShop(s, A);
    const simB = await installShop(s, B);
    const r = await attentionDelivery(B, simB);
    bOrder = r.orderId;
    bDelivery = r.delivery;
    a = adminClient(s.app.url, A);
  });

  it("shop A's token cannot read shop B's delivery: 404, and B's deliveries are not listed or found", async () => {
    const b = adminClient(s.app.url, B);
    expect((await b.get(`/api/deliveries/${bDelivery.id}`)).status).toBe(200);

    const read = await a.get(`/api/deliveries/${bDelivery.id}`);
    expect(read.status).toBe(404);
    expect(read.text).not.toContain(bOrder);
    expect((await a.get('/api/deliveries')).body.deliveries).toEqual([]);
    expect((await a.get(`/api/deliveries?q=${bOrder}`)).body.deliveries).toEqual([]);
    expect((await a.get(`/api/orders/${bOrder}/delivery`)).body.delivery).toBeNull();
    // Naming the other shop in the query does not switch shops.
    const sneaky = await a.get(`/api/deliveries/${bDelivery.id}?shop=${B}`);
    expect(sneaky.status).not.toBe(200);
  });

  it("shop A's token cannot act on shop B's delivery: 404 for every action, and nothing changes", async () => {
    const before = await s.app.db.delivery.findUniqueOrThrow({ where: { id: bDelivery.id }, include: { events: true } });
    for (const [path, body] of [
      [`/api/deliveries/${bDelivery.id}/retry`, {}],
      [`/api/deliveries/${bDelivery.id}/dispatch`, {}],
      [`/api/deliveries/${bDelivery.id}/redispatch`, {}],
      [`/api/deliveries/${bDelivery.id}/fix`, { phone: '+27825551234' }],
      [`/api/deliveries/${bDelivery.id}/quote`, {}],
    ] as const) {
      const r = await a.post(path, body);
      expect(r.status, path).toBe(404);
    }
    // B's order is not in A's Shopify either, so "dispatch by order id" finds nothing.
    expect((await a.post(`/api/orders/${bOrder}/dispatch`)).status).toBe(404);
    const after = await s.app.db.delivery.findUniqueOrThrow({ where: { id: bDelivery.id }, include: { events: true } });
    expect(after.status).toBe('NEEDS_ATTENTION');
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(after.events.length).toBe(before.events.length);
    expect(await s.app.db.delivery.count({ where: { shop: { domain: A } } })).toBe(0);
  });
});

describe('settings', () => {
  const shop = 'settings.myshopify.com';
  let api: AdminClient;
  beforeAll(async () => {
    await installSession(s, shop);
    api = adminClient(s.app.url, shop);
  });

  it('returns defaults, both environments with their webhook URLs, and the onboarding checklist', async () => {
    const r = await api.get('/api/settings');
    expect(r.status).toBe(200);
    expect(r.body.settings).toMatchObject({ activeEnvironment: 'test', autoDispatch: false });
    for (const env of ['test', 'live'] as const) {
      const e = r.body.environments[env];
      expect(e.webhookUrl).toBe(`https://app.example.test/webhooks/delivery/${e.endpointId}`);
      expect(e.clientSecret).toEqual({ set: false, last4: null });
    }
    expect(r.body.environments.test.webhookUrl).not.toBe(r.body.environments.live.webhookUrl);
    expect(r.body.onboarding.steps.map((x: any) => [x.id, x.done])).toEqual([
      ['credentials', false], ['connection', false], ['pickupStore', false], ['webhook', false], ['testWebhook', false], ['autoDispatch', false], ['live', false],
    ]);
  });

  it('validation errors name each field (422) and nothing is saved', async () => {
    const r = await api.put('/api/settings', {
      settings: { eligibility: { countries: ['ZA', 'South Africa'] }, maxDeliveryPrice: 'cheap', fulfillment: { trackingUrlTemplate: 'http://insecure.example/{jobId}' }, package: { sizes: [{ maxKg: '10', size: 'M' }, { maxKg: '5', size: 'S' }] } },
      environments: { test: { baseUrl: 'not a url', clientSecret: 'short' }, live: { locationStores: { 'gid://nope': 'x' } } },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatchObject({
      'eligibility.countries.1': 'expected a two-letter country code like ZA',
      maxDeliveryPrice: 'expected an amount like 150 or 149.99',
      'fulfillment.trackingUrlTemplate': expect.stringContaining('https://'),
      'test.baseUrl': expect.stringContaining('base URL'),
      'test.clientSecret': 'must be at least 8 characters',
      'live.locationStores.gid://nope': expect.any(String),
    });
    const after = await api.get('/api/settings');
    expect(after.body.settings.maxDeliveryPrice).toBeNull();
    expect(after.body.settings.eligibility.countries).toEqual(['ZA']);

    // The cross-field rule names the rule that is out of order.
    const order = await api.put('/api/settings', { settings: { package: { sizes: [{ maxKg: '10', size: 'M' }, { maxKg: '5', size: 'S' }] } } });
    expect(order.status).toBe(422);
    expect(order.body.errors).toEqual({ 'package.sizes.1.maxKg': 'size rules must be in ascending order of maxKg' });
  });

  it('saves settings and the location → pickup store mapping, and reads the shop locations', async () => {
    const locations = await api.get('/api/locations');
    expect(locations.status).toBe(200);
    expect(locations.body.locations.map((l: any) => [l.id, l.name])).toEqual([
      ['71000000001', 'Rosebank warehouse'],
      ['71000000002', 'Cape Town store'],
    ]);
    const r = await api.put('/api/settings', {
      settings: { maxDeliveryPrice: '120', fulfillment: { courierName: 'Swift', notifyCustomer: false, trigger: 'delivered', trackingUrlTemplate: 'https://track.example/{jobId}' } },
      environments: { test: { pickupStoreId: 'store_sandbox_001', locationStores: { '71000000002': 'store_sandbox_002' } } },
    });
    expect(r.status).toBe(200);
    expect(r.body.settings.maxDeliveryPrice).toBe('120');
    expect(r.body.settings.fulfillment).toMatchObject({ courierName: 'Swift', notifyCustomer: false, trigger: 'delivered' });
    expect(r.body.environments.test.locationStores).toEqual({ '71000000002': 'store_sandbox_002' });
    const removed = await api.put('/api/settings', { environments: { test: { locationStores: { '71000000002': null } } } });
    expect(removed.body.environments.test.locationStores).toEqual({});
  });

  it('refuses to switch to live before live credentials passed a connection test and live has a pickup store and webhook secret', async () => {
    const r = await api.put('/api/settings', { settings: { activeEnvironment: 'live' } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({ activeEnvironment: 'Enter the live courier credentials first' });
    await api.put('/api/settings', { environments: { live: { baseUrl: s.sandbox.url, ...SANDBOX_CLIENT } } });
    const untested = await api.put('/api/settings', { settings: { activeEnvironment: 'live' } });
    expect(untested.body.errors.activeEnvironment).toMatch(/Test the live connection/);
    expect((await api.post('/api/environments/live/test-connection')).body.ok).toBe(true);
    expect((await api.put('/api/settings', { settings: { activeEnvironment: 'live' } })).body.errors).toEqual({ activeEnvironment: 'Choose the live pickup store first' });
    await api.put('/api/settings', { environments: { live: { pickupStoreId: 'store_sandbox_002' } } });
    expect((await api.put('/api/settings', { settings: { activeEnvironment: 'live' } })).body.errors).toEqual({ activeEnvironment: 'Save the live webhook signing secret first' });
    await api.put('/api/settings', { environments: { live: { webhookSecret: 'whsec_live_0123456789' } } });
    const ok = await api.put('/api/settings', { settings: { activeEnvironment: 'live' } });
    expect(ok.status).toBe(200);
    expect(ok.body.settings.activeEnvironment).toBe('live');
  });

  it('rejects a body that is not a settings save', async () => {
    expect((await api.put('/api/settings', { nope: 1 })).status).toBe(400);
    expect((await api.put('/api/settings', { environments: { staging: {} } })).status).toBe(400);
  });
});

describe('connection test and onboarding state', () => {
  const shop = 'onboard.myshopify.com';
  let api: AdminClient;
  beforeAll(async () => {
    await installSession(s, shop);
    api = adminClient(s.app.url, shop);
  });

  const steps = async () => Object.fromEntries((await api.get('/api/onboarding')).body.steps.map((x: any) => [x.id, x.done]));

  it('follows real state: credentials, a passing connection test with those credentials, pickup store, webhook secret, auto-dispatch', async () => {
    expect((await api.post('/api/environments/test/test-connection')).body).toMatchObject({ ok: false, message: expect.stringMatching(/incomplete/) });

    await api.put('/api/settings', { environments: { test: { clientId: SANDBOX_CLIENT.clientId, clientSecret: 'wrong-secret-123' } } });
    expect(await steps()).toMatchObject({ credentials: true, connection: false });
    const bad = await api.post('/api/environments/test/test-connection');
    expect(bad.status).toBe(200);
    expect(bad.body.ok).toBe(false);
    expect(bad.body.message.length).toBeGreaterThan(10);
    expect(await steps()).toMatchObject({ connection: false });

    await api.put('/api/settings', { environments: { test: { clientSecret: SANDBOX_CLIENT.clientSecret } } });
    const good = await api.post('/api/environments/test/test-connection');
    expect(good.body).toMatchObject({ environment: 'test', ok: true, message: expect.stringMatching(/^Connected/) });
    expect(await steps()).toMatchObject({ credentials: true, connection: true });

    // New credentials: the earlier test no longer counts.
    await api.put('/api/settings', { environments: { test: { clientSecret: 'another-secret-456' } } });
    expect(await steps()).toMatchObject({ connection: false });
    await api.put('/api/settings', { environments: { test: { clientSecret: SANDBOX_CLIENT.clientSecret } } });
    expect(await steps()).toMatchObject({ connection: true });

    await api.put('/api/settings', { environments: { test: { pickupStoreId: 'store_sandbox_001', webhookSecret: WEBHOOK_SECRET } } });
    expect(await steps()).toMatchObject({ pickupStore: true, webhook: true, autoDispatch: false });
    // Saving other settings keeps the recorded connection test.
    await api.put('/api/settings', { settings: { autoDispatch: true, serviceType: 'SAME_DAY' } });
    expect(await steps()).toMatchObject({ connection: true, autoDispatch: true, live: false });
  });

  it('sends a test webhook and reports whether the endpoint received and verified it', async () => {
    await s.courier.setWebhook(SANDBOX_CLIENT.clientId, null);
    const none = await api.post('/api/environments/test/test-webhook');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ ok: false, sent: false, received: false });
    expect(await steps()).toMatchObject({ testWebhook: false });

    // Point the sandbox app at the app's endpoint, as the merchant does in the courier portal, with a wrong secret first.
    const url = ((await api.get('/api/settings')).body.environments.test.webhookUrl as string).replace('https://app.example.test', s.app.url);
    await s.courier.setWebhook(SANDBOX_CLIENT.clientId, { url, secret: 'whsec_not_the_one_we_hold' });
    const rejected = await api.post('/api/environments/test/test-webhook');
    expect(rejected.body).toMatchObject({ ok: false, sent: true, received: true, verified: false });
    expect(await steps()).toMatchObject({ testWebhook: false });

    await s.courier.setWebhook(SANDBOX_CLIENT.clientId, { url, secret: WEBHOOK_SECRET });
    const ok = await api.post('/api/environments/test/test-webhook');
    expect(ok.body).toMatchObject({ ok: true, sent: true, received: true, verified: true });
    expect(await steps()).toMatchObject({ testWebhook: true });

    // A new signing secret: the earlier test no longer proves anything.
    await api.put('/api/settings', { environments: { test: { webhookSecret: 'whsec_rotated_0123456789' } } });
    const after = await api.get('/api/onboarding');
    expect(after.body.steps.find((x: any) => x.id === 'testWebhook').done).toBe(false);
    await s.courier.setWebhook(SANDBOX_CLIENT.clientId, null);
  });
});

describe('deliveries', () => {
  const shop = 'deliveries.myshopify.com';
  let api: AdminClient;
  let sim: Awaited<ReturnType<typeof installShop>>;
  beforeAll(async () => {
    sim = await installShop(s, shop);
    api = adminClient(s.app.url, shop);
  });

  it('is empty before any order', async () => {
    const r = await api.get('/api/deliveries');
    expect(r.body).toEqual({ deliveries: [], nextCursor: null, counts: {}, unmatchedEvents: 0, duplicateBookings: 0 });
  });

  it('fix phone and retry: attention in plain words → 422 naming the field for a bad number → CREATED with a timeline and the courier exchange', async () => {
    const { orderId, delivery } = await attentionDelivery(shop, sim);
    const listed = (await api.get('/api/deliveries?status=NEEDS_ATTENTION')).body.deliveries;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: delivery.id,
      status: 'NEEDS_ATTENTION',
      statusLabel: 'Needs attention',
      attention: { code: 'invalid_phone', title: 'Phone number is not valid', detail: "Phone '0825' is not a valid ZA number" },
      actions: ['retry', 'fix', 'redispatch'],
      lastEvent: { kind: 'attention' },
    });

    const bad = await api.post(`/api/deliveries/${delivery.id}/fix`, { phone: '123' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.phone).toMatch(/not a valid ZA number/);
    const half = await api.post(`/api/deliveries/${delivery.id}/fix`, { latitude: -26.1 });
    expect(half.body.errors).toEqual({ longitude: 'enter both latitude and longitude' });

    // The page shows the number the courier would get: here the refused one, to correct.
    expect((await api.get(`/api/deliveries/${delivery.id}`)).body.delivery.dropoff.phone).toBe('0825');
    const fixed = await api.post(`/api/deliveries/${delivery.id}/fix`, { phone: '082 555 1234' });
    expect(fixed.status).toBe(200);
    expect(fixed.body.delivery.status).toBe('PENDING');
    await waitForStatus(s.app, shop, orderId, 'CREATED');

    const detail = (await api.get(`/api/deliveries/${delivery.id}`)).body.delivery;
    expect(detail).toMatchObject({ status: 'CREATED', statusLabel: 'Created', attention: null, actions: ['check'], overrides: { phone: '082 555 1234' } });
    expect(detail.price).toMatch(/^\d+\.\d{2}$/);
    expect(detail.dispatchJobId).toBeTruthy();
    expect(detail.request).toMatchObject({ reference: orderId, dropoff: { phone: '+27825551234' } });
    // The phone shown is exactly the phone sent (not the correction as typed).
    expect(detail.dropoff.phone).toBe(detail.request.dropoff.phone);
    expect(detail.response).toBeTruthy();
    expect(detail.timeline.map((e: any) => e.kind)).toEqual(expect.arrayContaining(['received', 'attention', 'requeued', 'created']));
    expect((await api.get(`/api/orders/${orderId}/delivery`)).body.delivery).toMatchObject({ id: delivery.id, status: 'CREATED', dispatchJobId: detail.dispatchJobId });

    // Nothing to retry now: the service's rule, with its message.
    const again = await api.post(`/api/deliveries/${delivery.id}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('delivery is CREATED; nothing to retry');

    // A quote for the same order prices the same request.
    const q = await api.post(`/api/deliveries/${delivery.id}/quote`);
    expect(q.body).toMatchObject({ environment: 'test', price: detail.price, currency: 'ZAR', aboveMax: false });
  });

  it('shows the phone dispatch sends: an unusable address phone is passed over for the order phone, in E.164', async () => {
    const { orderId } = await placeOrder(s, sim, { shipping_address: { phone: '0825' }, phone: '021 555 0000' });
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const detail = (await api.get(`/api/deliveries/${d.id}`)).body.delivery;
    expect(detail.request.dropoff.phone).toBe('+27215550000');
    expect(detail.dropoff.phone).toBe('+27215550000');
  });

  it('dispatches an order the app never received, by Shopify order id', async () => {
    const payload = paidOrder();
    sim.addOrder(payload); // in Shopify, but no orders/paid webhook came
    const orderId = orderIdOfPayload(payload);
    expect((await api.get(`/api/orders/${orderId}/delivery`)).body).toEqual({ orderId, delivery: null });
    const q = await api.post(`/api/orders/${orderId}/quote`);
    expect(q.body.price).toMatch(/^\d+\.\d{2}$/);
    const r = await api.post(`/api/orders/gid%3A%2F%2Fshopify%2FOrder%2F${orderId}/dispatch`);
    expect(r.status).toBe(200);
    expect(r.body.delivery).toMatchObject({ shopifyOrderId: orderId, orderName: payload.name });
    await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(1);
    expect((await api.post('/api/orders/123456789/dispatch')).status).toBe(404);
    expect((await api.post('/api/orders/not-an-id/dispatch')).status).toBe(400);
  });

  it('dispatch now sends a skipped order; re-dispatch books a new delivery after a failure', async () => {
    const { orderId } = await placeOrder(s, sim, { shipping_lines: [{ title: 'Standard', code: 'standard' }] });
    const skipped = await waitForStatus(s.app, shop, orderId, 'SKIPPED');
    const listed = (await api.get(`/api/deliveries?q=${encodeURIComponent(skipped.orderName!)}`)).body.deliveries;
    expect(listed[0]).toMatchObject({ status: 'SKIPPED', attention: { code: 'shipping_method', title: 'Not a same-day shipping method' }, actions: ['dispatch', 'fix', 'redispatch'] });
    expect((await api.post(`/api/deliveries/${skipped.id}/dispatch`)).status).toBe(200);
    await waitForStatus(s.app, shop, orderId, 'CREATED');

    await s.app.db.delivery.update({ where: { id: skipped.id }, data: { status: 'NEEDS_ATTENTION', reasonCode: 'courier_failed', reason: 'The courier could not deliver' } });
    const r = await api.post(`/api/deliveries/${skipped.id}/redispatch`);
    expect(r.status).toBe(200);
    const again = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(again.generation).toBe(2);
    expect(await s.courier.ordersCreatedFor(orderId)).toBe(2);
  });

  it('filters by status, search and date range, and pages with a cursor', async () => {
    const other = 'paging.myshopify.com';
    const simP = await installShop(s, other, { settings: { autoDispatch: false } });
    const p = adminClient(s.app.url, other);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { orderId } = await placeOrder(s, simP);
      ids.push((await waitForStatus(s.app, other, orderId, 'SKIPPED')).id);
    }
    // Spread them over five days (created 2026-11-01 … 2026-11-05).
    for (const [i, id] of ids.entries()) await s.app.db.delivery.update({ where: { id }, data: { createdAt: new Date(`2026-11-0${i + 1}T10:00:00.000Z`) } });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await p.get(`/api/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.deliveries.map((d: any) => d.id));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse()); // newest first, each once

    const range = (await p.get('/api/deliveries?from=2026-11-02&to=2026-11-04')).body.deliveries.map((d: any) => d.id);
    expect(range).toEqual([ids[3], ids[2], ids[1]]);
    const iso = (await p.get(`/api/deliveries?from=${encodeURIComponent('2026-11-02T12:00:00Z')}`)).body.deliveries;
    expect(iso).toHaveLength(3);
    // No offset: UTC, as a bare date is, whatever the server's zone (TZ=Pacific/Kiritimati would give 3).
    expect((await p.get('/api/deliveries?from=2026-11-03T10:00:01')).body.deliveries.map((d: any) => d.id)).toEqual([ids[4], ids[3]]);

    const d2 = await s.app.db.delivery.findUniqueOrThrow({ where: { id: ids[1]! } });
    expect((await p.get(`/api/deliveries?q=${encodeURIComponent(d2.orderName!)}`)).body.deliveries.map((d: any) => d.id)).toEqual([ids[1]]);
    expect((await p.get(`/api/deliveries?q=${d2.shopifyOrderId}`)).body.deliveries.map((d: any) => d.id)).toEqual([ids[1]]);
    expect((await p.get('/api/deliveries?status=CREATED')).body.deliveries).toEqual([]);
    expect((await p.get('/api/deliveries?status=SKIPPED,CREATED')).body.counts).toEqual({ SKIPPED: 5 });

    const badStatus = await p.get('/api/deliveries?status=LOST');
    expect(badStatus.status).toBe(400);
    expect(Object.keys(badStatus.body.errors)).toEqual(['status']);
    expect((await p.get('/api/deliveries?from=yesterday')).body.errors).toHaveProperty('from');
    expect((await p.get('/api/deliveries?cursor=bm9wZQ')).status).toBe(400);
  });
});

describe('an address changed in Shopify after booking', () => {
  it('is flagged in the list and on the delivery page, with resolve to clear it; the status stays', async () => {
    const shop = 'address-flag.myshopify.com';
    const sim = await installShop(s, shop);
    const api = adminClient(s.app.url, shop);
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    const edited = sim.editOrderAddress(orderId, { shippingAddress: { address1: '1 Fredman Drive' } });
    expect((await postShopifyWebhook(s.app.url, 'orders/updated', shop, edited.payload)).status).toBe(200);

    const flag = { code: 'address_changed', title: 'The courier has the old address', detail: expect.stringMatching(/after the courier was booked/), hint: expect.stringMatching(/mark this resolved/) };
    const listed = (await api.get('/api/deliveries')).body.deliveries;
    expect(listed[0]).toMatchObject({ id: d.id, status: 'CREATED', attention: flag, actions: ['check', 'resolve'] });
    expect((await api.get(`/api/deliveries/${d.id}`)).body.delivery).toMatchObject({ status: 'CREATED', attention: flag });

    const r = await api.post(`/api/deliveries/${d.id}/resolve`);
    expect(r.status).toBe(200);
    expect(r.body.delivery).toMatchObject({ status: 'CREATED', attention: null, actions: ['check'] });
    expect(r.body.delivery.timeline.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['address_changed', 'address_change_resolved']));
    expect((await api.post(`/api/deliveries/${d.id}/resolve`)).status).toBe(409);
  });
});

describe('secrets are write-only', () => {
  it('never appear in any API response or log line', async () => {
    const shop = 'secrets.myshopify.com';
    await installSession(s, shop);
    const api = adminClient(s.app.url, shop);
    const clientSecret = 'cs_live_9f8e7d6c5b4a39281706';
    const webhookSecret = 'whsec_5a4b3c2d1e0f99887766';
    const wrongSecret = 'cs_wrong_0011223344556677';

    const saved = await api.put('/api/settings', {
      environments: { test: { clientId: SANDBOX_CLIENT.clientId, clientSecret: wrongSecret, webhookSecret }, live: { clientId: 'live-id', clientSecret, webhookSecret, baseUrl: s.sandbox.url } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.environments.live.clientSecret).toEqual({ set: true, last4: clientSecret.slice(-4) });
    expect(saved.body.environments.live.webhookSecret).toEqual({ set: true, last4: webhookSecret.slice(-4) });
    await api.post('/api/environments/test/test-connection'); // refused: wrong secret
    await api.post('/api/environments/live/test-connection'); // refused: unknown client
    await api.post('/api/environments/test/test-webhook');
    await api.get('/api/settings');
    await api.get('/api/onboarding');
    await api.put('/api/settings', { environments: { test: { clientSecret: 'x' } } }); // invalid: echo nothing back
    await api.put('/api/settings', { environments: { test: { clientSecret: SANDBOX_CLIENT.clientSecret } } });
    await api.post('/api/environments/test/test-connection');

    // The sandbox's own secret too: it was written through the API above.
    const secrets = [clientSecret, webhookSecret, wrongSecret, SANDBOX_CLIENT.clientSecret, WEBHOOK_SECRET, TEST_API_SECRET];
    const responses = recordedResponses.join('\n');
    expect(responses.length).toBeGreaterThan(1000);
    await waitFor(async () => s.app.logs.length > 0, 'logs');
    const logs = s.app.logs.join('\n');
    for (const secret of secrets) {
      expect(responses, 'a response contains a secret').not.toContain(secret);
      expect(logs, 'a log line contains a secret').not.toContain(secret);
      // Not even most of it.
      expect(responses).not.toContain(secret.slice(0, -4));
      expect(logs).not.toContain(secret.slice(0, -4));
    }
  });
});
