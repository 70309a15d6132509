// Behaviours that were once broken on purpose with no test failing; each test
// here fails when its behaviour breaks. Over real HTTP; SQLite and PostgreSQL.
import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/index.ts';
import { updateEnvironment, updateSettings } from '../../web/settings/store.ts';
import { adminClient } from '../support/admin-client.ts';
import { cliOf } from '../support/cli.ts';
import { bookedWithAccount, postStatusEvent } from '../support/courier-events.ts';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, placeOrder, startScenario, waitForStatus, WEBHOOK_SECRET, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ sandbox: { webhooksEnabled: true, webhookRetryDelaysMs: [50] }, runtime: { fulfillment: { reconcileIntervalMs: 0 } } });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await s.courier.reset();
});

const creates = async (key?: string | null) => (await s.courier.requests({ route: 'create' })).filter((r) => key === undefined || r.idempotencyKey === key);

describe('retries and FAILED', () => {
  it('the delivery becomes FAILED after the last attempt; Retry reuses the stored key and bytes even after the settings changed', async () => {
    const shop = 'failing.myshopify.com';
    const sim = await installShop(s, shop);
    await s.courier.addFault({ route: 'create', type: 'status', status: 503, count: 1000 });
    const { orderId } = await placeOrder(s, sim);
    const failed = await waitForStatus(s.app, shop, orderId, 'FAILED', 30_000);
    expect(failed.reasonCode).toBe('courier_unavailable');
    expect(failed.reason).toMatch(/^Courier could not be reached after every retry/);
    expect(failed.events.some((e) => e.kind === 'failed')).toBe(true);
    const before = await creates(failed.idempotencyKey);
    expect(before.length).toBeGreaterThan(1);
    expect(new Set(before.map((r) => r.bodySha256)).size).toBe(1);

    // The merchant changes what a new request would contain, then retries.
    await updateSettings(s.app.db, shop, { serviceType: 'EXPRESS', package: { category: 'fragile' } });
    await s.courier.clearFaults();
    const api = adminClient(s.app.url, shop);
    expect((await api.post(`/api/deliveries/${failed.id}/retry`)).status).toBe(200);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(booked.idempotencyKey).toBe(failed.idempotencyKey);
    expect(booked.requestBody).toBe(failed.requestBody);
    expect(JSON.parse(booked.requestBody!).serviceType).toBe('SAME_DAY');
    const all = await creates();
    expect(new Set(all.map((r) => r.idempotencyKey))).toEqual(new Set([failed.idempotencyKey]));
    expect(new Set(all.map((r) => r.bodySha256))).toEqual(new Set([before[0]!.bodySha256]));
  }, 60_000);

  it('a courier answer it could not read on every attempt is still the courier being unavailable', async () => {
    const shop = 'unreadable.myshopify.com';
    const sim = await installShop(s, shop);
    await s.courier.addFault({ route: 'create', type: 'status', status: 200, body: 'not json', count: 1000 });
    const { orderId } = await placeOrder(s, sim);
    const failed = await waitForStatus(s.app, shop, orderId, 'FAILED', 30_000);
    expect(failed.reasonCode).toBe('courier_unavailable');
    expect(failed.reason).toMatch(/^Courier could not be reached after every retry/);
  }, 60_000);
});

describe('test orders never reach the live courier', () => {
  it('not through Fix, not through Retry, after the shop switched to live', async () => {
    const shop = 'testorder.myshopify.com';
    const sim = await installShop(s, shop, { settings: { eligibility: { dispatchTestOrders: true } } });
    const { orderId } = await placeOrder(s, sim, { test: true, shipping_address: { latitude: null, longitude: null } });
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('missing_coordinates');
    // Live is set up (same sandbox account: a create there would be visible) and active.
    await updateEnvironment(s.app.db, s.app.server.services()!.box, shop, 'live', { baseUrl: s.sandbox.url, clientId: 'sandbox-client-id', clientSecret: 'sandbox-client-secret', pickupStoreId: 'store_sandbox_001', webhookSecret: WEBHOOK_SECRET });
    await updateSettings(s.app.db, shop, { activeEnvironment: 'live' });
    const api = adminClient(s.app.url, shop);
    expect((await api.post(`/api/deliveries/${d.id}/fix`, { latitude: -26.1, longitude: 28.05 })).status).toBe(200);
    const fixed = await waitFor(async () => {
      const x = await deliveryOf(s.app, shop, orderId);
      return x?.reasonCode === 'test_order_live' ? x : null;
    }, 'the fix refused for live');
    expect(fixed.status).toBe('NEEDS_ATTENTION');
    expect((await api.post(`/api/deliveries/${d.id}/retry`)).status).toBe(200);
    await waitFor(async () => {
      const x = await deliveryOf(s.app, shop, orderId);
      return x?.status === 'NEEDS_ATTENTION' && x.events.filter((e) => e.kind === 'attention').length >= 3 ? x : null;
    }, 'the retry refused for live');
    expect(await creates()).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('webhook secrets (current and previous) are encrypted at rest', async () => {
    const shop = 'atrest.myshopify.com';
    await installShop(s, shop, { environment: { webhookSecret: 'whsec_plain_first_0001' } });
    await updateEnvironment(s.app.db, s.app.server.services()!.box, shop, 'test', { webhookSecret: 'whsec_plain_second_0002' });
    const row = await s.app.db.courierEnvironment.findFirstOrThrow({ where: { shop: { domain: shop }, environment: 'test' } });
    const box = s.app.server.services()!.box;
    expect(row.webhookSecretEnc).not.toContain('whsec_plain');
    expect(box.decrypt(row.webhookSecretEnc!)).toBe('whsec_plain_second_0002');
    if (row.webhookSecretPrevEnc) {
      expect(row.webhookSecretPrevEnc).not.toContain('whsec_plain');
      expect(box.decrypt(row.webhookSecretPrevEnc)).toBe('whsec_plain_first_0001');
    }
    expect(JSON.stringify(row)).not.toMatch(/whsec_plain|sandbox-client-secret/);
    expect(s.app.logs.join('\n')).not.toMatch(/whsec_plain|sandbox-client-secret/);
  });
});

describe('fulfillment after a crash', () => {
  it('an existing Shopify fulfillment carrying our tracking number is adopted, not duplicated', async () => {
    const shop = 'adopt.myshopify.com';
    const { sim, orderId, delivery: d } = await bookedWithAccount(s, shop);
    // Shopify created it; we crashed before storing its id. As on Shopify, it consumed the
    // fulfillment orders' lines, so a create from the kept ids is refused and we read and adopt.
    const order = sim.order(orderId)!;
    for (const fo of order.fulfillmentOrders) {
      for (const li of fo.lineItems) li.remainingQuantity = 0;
      fo.status = 'CLOSED';
    }
    order.fulfillments.push({
      id: '990001', status: 'SUCCESS', createdAt: new Date().toISOString(), notifyCustomer: false,
      trackingInfo: { company: 'Courier', number: d.dispatchJobId, url: null },
      fulfillmentOrderIds: order.fulfillmentOrders.map((fo) => fo.id), events: [],
    });
    await s.courier.advance(d.courierOrderId!, { to: 'delivered' });
    const done = await waitForStatus(s.app, shop, orderId, 'DELIVERED');
    await waitFor(async () => ((await deliveryOf(s.app, shop, orderId))!.fulfillmentId ? true : null), 'the fulfillment recorded');
    expect((await deliveryOf(s.app, shop, orderId))!.fulfillmentId).toBe('gid://shopify/Fulfillment/990001');
    await waitFor(async () => (sim.order(orderId)!.fulfillments[0]!.events.at(-1)?.status === 'DELIVERED' ? true : null), 'DELIVERED on the adopted fulfillment');
    // The one refused create from the kept ids, and no second fulfillment.
    expect(sim.log.filter((l) => l.operationName === 'FulfillmentCreate').length).toBeLessThanOrEqual(1);
    expect(sim.order(orderId)!.fulfillments).toHaveLength(1);
    expect(done.id).toBe(d.id);
  });
});

describe('the operator CLI', () => {
  it('looks orders up by name within the shop only', async () => {
    const a = await installShop(s, 'cli-a.myshopify.com');
    const b = await installShop(s, 'cli-b.myshopify.com');
    const { orderId: idA } = await placeOrder(s, a, { name: '#7001' });
    const { orderId: idB } = await placeOrder(s, b, { name: '#7001' });
    await waitForStatus(s.app, 'cli-a.myshopify.com', idA, 'CREATED');
    await waitForStatus(s.app, 'cli-b.myshopify.com', idB, 'CREATED');
    const cli = cliOf(s);
    const outA = await cli('delivery', 'cli-a.myshopify.com', '#7001');
    const outB = await cli('delivery', 'cli-b.myshopify.com', '7001');
    expect(outA.stdout).toContain(`(${idA})`);
    expect(outA.stdout).not.toContain(idB);
    expect(outB.stdout).toContain(`(${idB})`);
    expect(outB.stdout).not.toContain(idA);
    expect((await cli('delivery', 'cli-c.myshopify.com', '#7001')).status).not.toBe(0);
  }, 90_000);
});

describe('courier webhook retries', () => {
  it('re-signed with a new timestamp, the same event id is stored and applied once', async () => {
    const shop = 'resigned.myshopify.com';
    const { account, orderId, delivery: d } = await bookedWithAccount(s, shop);
    const now = Math.floor(Date.now() / 1000);
    const event = { id: 'evt_resent_1', deliveryRef: d.courierOrderId!, status: 'picked_up', createdAt: Date.now() };
    const { res: first } = await postStatusEvent(account.endpointUrl, { ...event, timestampSec: now - 30 });
    const { res: second } = await postStatusEvent(account.endpointUrl, { ...event, timestampSec: now });
    expect(first.status).toBe(200);
    expect(await second.json()).toEqual({ received: true, duplicate: true });
    // One log line per webhook: its access line says what it did.
    const lines = s.app.logs.map((l) => JSON.parse(l)).filter((l) => l.eventId === 'evt_resent_1');
    expect(lines.map((l) => [l.msg, l.shop, l.environment, l.status, l.stored, l.duplicate, l.courierStatus])).toEqual([
      ['request', shop, 'test', 200, true, undefined, 'picked_up'],
      ['request', shop, 'test', 200, undefined, true, undefined],
    ]);
    await waitFor(async () => ((await deliveryOf(s.app, shop, orderId))!.courierStatus === 'picked_up' ? true : null), 'the status applied');
    expect(await s.app.db.courierEvent.count({ where: { eventId: 'evt_resent_1' } })).toBe(1);
    expect((await deliveryOf(s.app, shop, orderId))!.events.filter((e) => e.courierEventId === 'evt_resent_1')).toHaveLength(1);
  });
});

describe('courier webhooks before Express', () => {
  it('answer alike before Express (a Content-Length body) and through it (chunked, or a path Express must route): status, body, headers, one log line', async () => {
    const shop = 'courier-bare.myshopify.com';
    const { account, delivery: d } = await bookedWithAccount(s, shop);
    const send = (url: string, id: string, chunked: boolean, secret = WEBHOOK_SECRET) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: d.courierOrderId, status: 'picked_up' } });
        const headers = signDeliveryWebhook({ secret, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
        const req = request(url, { method: 'POST', headers: { ...headers, ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        });
        req.on('error', reject);
        if (chunked) {
          req.write(body.slice(0, 10));
          req.end(body.slice(10));
        } else req.end(body);
      });
    const url = account.endpointUrl;
    const bare = await send(url, 'evt_bare_1', false);
    const chunked = await send(url, 'evt_chunked_1', true);
    const routed = await send(`${url}?via=express`, 'evt_query_1', false);
    for (const r of [bare, chunked, routed]) {
      expect(r).toMatchObject({ status: 200, body: JSON.stringify({ received: true }) });
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['x-request-id']).toMatch(/^[\w.-]+$/);
    }
    // Express's res.json adds an ETag; the route before Express does not: each was answered where it should be.
    expect(bare.headers.etag).toBeUndefined();
    expect(chunked.headers.etag).toBeDefined();
    expect(routed.headers.etag).toBeDefined();
    // A repeat and a wrong signature get the same answer from either.
    for (const c of [false, true]) {
      expect(JSON.parse((await send(url, c ? 'evt_bare_1' : 'evt_chunked_1', c)).body)).toEqual({ received: true, duplicate: true });
      const forged = await send(url, `evt_forged_${c}`, c, 'whsec_not_the_secret_0000');
      expect(forged.status).toBe(401);
      expect(JSON.parse(forged.body)).toMatchObject({ reason: 'signature_mismatch' });
      const unknown = await send(url.replace(/ep_[\w-]+$/, 'ep_0000000000000000unknown'), `evt_unknown_${c}`, c);
      expect(unknown).toMatchObject({ status: 404, body: JSON.stringify({ error: 'unknown webhook endpoint' }) });
    }
    expect(await s.app.db.courierEvent.count({ where: { eventId: { in: ['evt_bare_1', 'evt_chunked_1', 'evt_query_1'] } } })).toBe(3);
    expect(await s.app.db.courierEvent.count({ where: { eventId: { startsWith: 'evt_forged_' } } })).toBe(0);
    // One line per stored webhook, from either: its access line.
    const lines = s.app.logs.map((l) => JSON.parse(l)).filter((l) => ['evt_bare_1', 'evt_chunked_1'].includes(l.eventId) && l.stored);
    expect(lines.map((l) => [l.eventId, l.msg, l.shop, l.status, l.path])).toEqual([
      ['evt_bare_1', 'request', shop, 200, new URL(url).pathname],
      ['evt_chunked_1', 'request', shop, 200, new URL(url).pathname],
    ]);
  });
});
