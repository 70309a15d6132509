// The shop simulator over real HTTP: Admin GraphQL with Shopify's token check,
// unknown-operation rejection, throttling and userErrors on demand; OAuth and token exchange checked by
// @shopify/shopify-api's own validation and by the app's real install routes
// (web/shopify/app.ts); signed webhooks checked by the library's validator in a tiny
// receiver; the routing switch for undici.fetch and Node's global fetch; the fixtures.
import http from 'node:http';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import express from 'express';
import { fetch as undiciFetch, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { Session } from '@shopify/shopify-api';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import { DEFAULT_SCOPES, loadConfig } from '../../web/config/env.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { createShopify, API_VERSION, type Shopify } from '../../web/shopify/app.ts';
import { createAdminApi } from '../../web/shopify/admin-api.ts';
import { offlineTokenProvider } from '../../web/shopify/offline-token.ts';
import {
  FULFILLMENT_CANCEL, FULFILLMENT_CREATE, FULFILLMENT_EVENT_CREATE, FULFILLMENT_TRACKING_INFO_UPDATE, METAFIELDS_SET, ORDER_FOR_DISPATCH, ORDER_FULFILLMENT_ORDERS, BOOKING_WRITE,
  fetchFulfillmentOrders, writeBooking, fetchFulfillmentOrdersForDispatch, fetchOrderOfFulfillmentOrder,
} from '../../web/shopify/operations.ts';
import {
  startShopSimulator, signOAuthQuery, signSessionToken, ID_TOKEN_TYPE, OFFLINE_TOKEN_TYPE, ONLINE_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT, type RunningShopSimulator,
} from '../../dev/shop-sim/server.ts';
import { ShopSimControl, ShopSimControlError } from '../../dev/shop-sim/control.ts';
import { installShopifyRouting, ShopSimulatorDispatcher } from '../../dev/shop-sim/route.ts';
import { OrderSnapshotSchema } from '../../web/order/snapshot.ts';
import { decideEligibility } from '../../web/dispatch/eligibility.ts';
import { mapOrderToRequest } from '../../web/dispatch/mapping.ts';
import { DEFAULT_SETTINGS } from '../../web/settings/schema.ts';
import { ROOT } from '../support/paths.ts';

const API_KEY = 'sim-test-api-key';
const API_SECRET = 'sim-test-api-secret-0123456789';
const SHOP = 'sim-test.myshopify.com';
const TOKEN = 'shpat_test_direct_token_0001';
const log = createLogger({ level: 'silent' });

// ---- a tiny webhook receiver that validates with the app's own library
interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  libraryValid: boolean;
  manualValid: boolean;
}

let shopify: Shopify;
let rx: { url: string; received: Received[]; statuses: number[]; close(): Promise<void> };
let sim: RunningShopSimulator;
let ctl: ShopSimControl;

async function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const check = await shopify.api.webhooks.validate({ rawBody: body, rawRequest: req, rawResponse: res });
    const manual = createHmac('sha256', API_SECRET).update(body, 'utf8').digest('base64');
    received.push({ headers: req.headers, body, libraryValid: check.valid, manualValid: manual === req.headers['x-shopify-hmac-sha256'] });
    res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    statuses,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: 'test', SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: API_SECRET, SHOPIFY_APP_URL: 'https://app.example.test', PORT: '0' });
  shopify = createShopify(config, memoryStorage(), log, async () => {});
  rx = await startReceiver();
  sim = await startShopSimulator({ apiKey: API_KEY, apiSecret: API_SECRET, appUrl: rx.url, log, webhookRetryDelaysMs: [30, 60], webhookTimeoutMs: 2_000 });
  ctl = new ShopSimControl(sim.url);
});
afterAll(async () => {
  await sim?.close();
  await rx?.close();
});
beforeEach(async () => {
  await ctl.reset();
  await ctl.updateSettings({ webhookRetryDelaysMs: [30, 60] });
  rx.received.length = 0;
  rx.statuses.length = 0;
});

function memoryStorage(): SessionStorage & { sessions: Map<string, Session> } {
  const sessions = new Map<string, Session>();
  return {
    sessions,
    async storeSession(s) {
      sessions.set(s.id, s);
      return true;
    },
    async loadSession(id) {
      return sessions.get(id);
    },
    async deleteSession(id) {
      return sessions.delete(id);
    },
    async deleteSessions(ids) {
      ids.forEach((id) => sessions.delete(id));
      return true;
    },
    async findSessionsByShop(shop) {
      return [...sessions.values()].filter((s) => s.shop === shop);
    },
  };
}

/** Admin GraphQL straight at the simulator; `via` picks how the shop is named. */
async function gql(query: string, variables: Record<string, unknown> = {}, opts: { token?: string | null; shop?: string; via?: 'host' | 'header' | 'prefix' } = {}) {
  const shop = opts.shop ?? SHOP;
  const via = opts.via ?? 'host';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = opts.token === undefined ? TOKEN : opts.token;
  if (token !== null) headers['x-shopify-access-token'] = token;
  if (via === 'host') headers.host = shop;
  if (via === 'header') headers['x-shop-domain'] = shop;
  const path = `${via === 'prefix' ? `/shops/${shop}` : ''}/admin/api/${API_VERSION}/graphql.json`;
  const res = await request(`${sim.url}${path}`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

async function installedShopWithOrder(fixture = 'sandton-same-day') {
  await ctl.createShop(SHOP, { accessToken: TOKEN });
  return ctl.placeOrder(SHOP, { fixture, send: false });
}

describe('fulfillment orders: routing, move, hold', () => {
  it('routes to the location in the customer\'s city, serves both dispatch queries, and moves and holds on request', async () => {
    await ctl.createShop(SHOP, { accessToken: TOKEN });
    // REST location_id is the warehouse; routing assigns the Cape Town store (the customer's city).
    const { order, webhook } = await ctl.placeOrder(SHOP, { fixture: 'multi-location', send: false });
    expect(webhook).toBeNull();
    expect(order.fulfillmentOrders).toEqual([expect.objectContaining({ locationId: '71000000002', methodType: 'SHIPPING', status: 'OPEN' })]);
    const previous = getGlobalDispatcher();
    installShopifyRouting(sim.url, log);
    try {
      const api = createAdminApi({ apiVersion: API_VERSION, accessToken: async () => TOKEN, log });
      const read = await fetchFulfillmentOrdersForDispatch(api, SHOP, order.gid);
      expect(read!.createdAt).toBe('2026-11-22T08:02:41.000Z');
      const [fo] = read!.fulfillmentOrders;
      expect(fo).toMatchObject({ status: 'OPEN', requestStatus: 'UNSUBMITTED', fulfillAt: null, fulfillmentHolds: [], deliveryMethod: { methodType: 'SHIPPING' }, assignedLocation: { name: 'Cape Town store', location: { id: 'gid://shopify/Location/71000000002' } } });
      expect(await fetchOrderOfFulfillmentOrder(api, SHOP, fo!.id)).toBe(order.gid);
      expect(await fetchOrderOfFulfillmentOrder(api, SHOP, 'gid://shopify/FulfillmentOrder/1')).toBeNull();

      const moved = await ctl.moveFulfillmentOrder(SHOP, fo!.id, '71000000001');
      await ctl.holdFulfillmentOrder(SHOP, moved.fulfillmentOrder.id, { reason: 'INCORRECT_ADDRESS', reasonNotes: 'Check the street number' });
      const after = (await fetchFulfillmentOrdersForDispatch(api, SHOP, order.gid))!.fulfillmentOrders;
      expect(after.map((f) => [f.status, f.assignedLocation?.location?.id])).toEqual([['CLOSED', 'gid://shopify/Location/71000000002'], ['ON_HOLD', 'gid://shopify/Location/71000000001']]);
      expect(after[1]!.fulfillmentHolds).toEqual([{ reason: 'INCORRECT_ADDRESS', displayReason: 'Incorrect address', reasonNotes: 'Check the street number' }]);
    } finally {
      await restoreDispatcher(previous);
    }
    const refused = await ctl.moveFulfillmentOrder(SHOP, order.fulfillmentOrders[0]!.id, '71000000001').catch((e) => e);
    expect(refused).toBeInstanceOf(ShopSimControlError);
    expect(refused.message).toMatch(/is CLOSED; only an open or scheduled one can be changed/);
    const badReason = await ctl.holdFulfillmentOrder(SHOP, order.fulfillmentOrders[0]!.id, { reason: 'BECAUSE' }).catch((e) => e);
    expect(badReason.message).toMatch(/CLOSED|reason must be one of/);
  });

  it('sends fulfillment_orders/order_routing_complete after orders/paid when asked, naming only the fulfillment order', async () => {
    await ctl.createShop(SHOP, { accessToken: TOKEN });
    const { order } = await ctl.placeOrder(SHOP, { fixture: 'sandton-same-day', routing: true });
    const sent = await ctl.webhooks({ shop: SHOP, orderId: order.id });
    expect(sent.map((w) => w.topic)).toEqual(['orders/paid', 'fulfillment_orders/order_routing_complete']);
    const routing = await ctl.webhook(sent[1]!.seq);
    expect(routing.payload).toEqual({ fulfillment_order: { id: `gid://shopify/FulfillmentOrder/${order.fulfillmentOrders[0]!.id}`, status: 'open' } });
  });
});

describe('Admin GraphQL over HTTP', () => {
  it('serves the app\'s operations for the shop named by Host, x-shop-domain or the /shops prefix', async () => {
    const { order } = await installedShopWithOrder();
    for (const via of ['host', 'header', 'prefix'] as const) {
      const r = await gql(ORDER_FOR_DISPATCH, { id: order.gid }, { via });
      expect(r.status).toBe(200);
      expect(r.body.data.order).toMatchObject({ id: order.gid, name: '#1001', shippingAddress: { city: 'Sandton', latitude: -26.1076 } });
      expect(r.body.extensions.cost.throttleStatus).toMatchObject({ maximumAvailable: 2000 });
    }
    const fos = await gql(ORDER_FULFILLMENT_ORDERS, { id: order.gid });
    expect(fos.body.data.order.fulfillmentOrders.nodes).toEqual([
      expect.objectContaining({ status: 'OPEN', deliveryMethod: { methodType: 'SHIPPING' }, assignedLocation: { location: { id: 'gid://shopify/Location/71000000001' } } }),
    ]);
  });

  it('answers 401 with Shopify\'s message for a wrong or missing access token', async () => {
    const { order } = await installedShopWithOrder();
    for (const token of ['shpat_wrong', null]) {
      const r = await gql(ORDER_FOR_DISPATCH, { id: order.gid }, { token });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    }
    // A shop nobody installed the app on has no token that works.
    expect((await gql(ORDER_FOR_DISPATCH, { id: order.gid }, { shop: 'never-installed.myshopify.com', token: '' })).status).toBe(401);
  });

  it('rejects an operation it does not serve with a GraphQL error naming it', async () => {
    await installedShopWithOrder();
    const r = await gql('query ProductsForSomething { products(first: 1) { nodes { id } } }');
    expect(r.status).toBe(200);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors[0].extensions.code).toBe('UNSUPPORTED_OPERATION');
    expect(r.body.errors[0].message).toContain("'ProductsForSomething'");
    expect((await ctl.operations(SHOP, 'ProductsForSomething'))[0]!.outcome).toBe('rejected');
  });

  it('says which shop is missing and which paths exist', async () => {
    const noShop = await request(`${sim.url}/admin/api/${API_VERSION}/graphql.json`, { method: 'POST', body: '{"query":"query X { shop { id } }"}' });
    expect(noShop.statusCode).toBe(400);
    expect(((await noShop.body.json()) as any).errors).toMatch(/Host: <shop>\.myshopify\.com/);
    const unknown = await request(`${sim.url}/admin/api/${API_VERSION}/orders.json`, { headers: { host: SHOP } });
    expect(unknown.statusCode).toBe(404);
    expect(((await unknown.body.json()) as any).errors).toMatch(/graphql\.json/);
  });

  it('throttles the next N calls on demand; the app\'s Admin client waits and succeeds', async () => {
    const { order } = await installedShopWithOrder();
    await ctl.throttle(SHOP, 2);
    const throttled = await gql(ORDER_FOR_DISPATCH, { id: order.gid });
    expect(throttled.status).toBe(200);
    expect(throttled.body.errors[0].extensions.code).toBe('THROTTLED');
    expect(throttled.body.extensions.cost.throttleStatus.currentlyAvailable).toBeLessThan(throttled.body.extensions.cost.requestedQueryCost);

    // The app's own client, routed here, retries through the remaining THROTTLED answer.
    const previous = getGlobalDispatcher();
    installShopifyRouting(sim.url, log);
    try {
      const waits: number[] = [];
      const api = createAdminApi({ apiVersion: API_VERSION, accessToken: async () => TOKEN, log, sleep: async (ms) => { waits.push(ms); await new Promise((r) => setTimeout(r, ms)); } });
      const data = await api.request(SHOP, ORDER_FOR_DISPATCH, { id: order.gid });
      expect(data.order.name).toBe('#1001');
      // It waits for the points the THROTTLED answer said were missing (just short of the call's cost): a few
      // ms, no backoff. A timer that fires a millisecond early can meet the bucket a point short, and the
      // client's own budget then waits a millisecond more (seen in CI under load: waits [10, 1]).
      expect(waits.length).toBeGreaterThanOrEqual(1);
      expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(100);
      const outcomes = (await ctl.operations(SHOP, 'OrderForDispatch')).map((e) => e.outcome);
      // The two forced THROTTLED answers, at most one more for that point, then the call paid.
      expect(outcomes.slice(0, 2)).toEqual(['throttled', 'throttled']);
      expect(outcomes.slice(2, -1).every((o) => o === 'throttled') && outcomes.length <= 4).toBe(true);
      expect(outcomes.at(-1)).toBe('ok');
    } finally {
      await restoreDispatcher(previous);
    }
  });

  it('throttles only the operations named, and says which field is wrong', async () => {
    const { order } = await installedShopWithOrder();
    await ctl.throttle(SHOP, 5, ['FlowTriggerReceive']);
    const read = await gql(ORDER_FOR_DISPATCH, { id: order.gid });
    expect(read.body.errors).toBeUndefined();
    expect((await ctl.operations(SHOP, 'OrderForDispatch')).map((e) => e.outcome)).toEqual(['ok']);
    const bad = await request(`${sim.url}/_sim/shops/${SHOP}/throttle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, operations: 'FlowTriggerReceive' }) });
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as any).error ?? '').toMatch(/operations/);
  });

  it('answers the next call of a mutation with an injected userError, then behaves again', async () => {
    const { order } = await installedShopWithOrder();
    const fo = order.fulfillmentOrders[0]!;
    await ctl.injectUserError(SHOP, 'FulfillmentCreate', 'Simulated: fulfillment order is locked');
    const input = { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.gid }], notifyCustomer: true, trackingInfo: { company: 'Same-Day Courier', number: 'job_1', url: 'https://track.example.com/job_1' } } };
    const refused = await gql(FULFILLMENT_CREATE, input);
    expect(refused.body.data.fulfillmentCreate).toEqual({ fulfillment: null, userErrors: [{ field: ['fulfillment'], message: 'Simulated: fulfillment order is locked' }] });
    const ok = await gql(FULFILLMENT_CREATE, input);
    expect(ok.body.data.fulfillmentCreate.userErrors).toEqual([]);
    expect((await ctl.order(SHOP, order.id)).fulfillmentStatus).toBe('FULFILLED');

    await ctl.injectUserError(SHOP, 'TagsAdd', 'Simulated: tags are locked');
    expect((await gql(BOOKING_WRITE, { metafields: [], id: order.gid, tags: ['x'] })).body.data.tagsAdd.userErrors[0].message).toBe('Simulated: tags are locked');

    const bad = await ctl.injectUserError(SHOP, 'OrderForDispatch').catch((e) => e);
    expect(bad).toBeInstanceOf(ShopSimControlError);
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/operation must be one of FulfillmentCreate, FulfillmentEventCreate, MetafieldsSet, TagsAdd/);
  });
});

describe('re-dispatch mutations: fulfillmentTrackingInfoUpdate and fulfillmentCancel', () => {
  it('moves the tracking of a live fulfillment; cancelling gives its items back; a cancelled one refuses both with userErrors', async () => {
    const { order } = await installedShopWithOrder();
    const fo = order.fulfillmentOrders[0]!;
    const created = await gql(FULFILLMENT_CREATE, { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.gid }], trackingInfo: { company: 'Same-Day Courier', number: 'job_1' } } });
    const fulfillmentId = created.body.data.fulfillmentCreate.fulfillment.id;

    const tracking = { company: 'Same-Day Courier', number: 'job_2', url: 'https://track.example.com/job_2' };
    const moved = await gql(FULFILLMENT_TRACKING_INFO_UPDATE, { fulfillmentId, trackingInfoInput: tracking, notifyCustomer: false });
    expect(moved.body.data.fulfillmentTrackingInfoUpdate).toEqual({ fulfillment: { id: fulfillmentId, status: 'SUCCESS', trackingInfo: [tracking] }, userErrors: [] });
    expect((await ctl.order(SHOP, order.id)).fulfillments[0]).toMatchObject({ trackingInfo: tracking, notifyCustomer: false });

    const cancelled = await gql(FULFILLMENT_CANCEL, { id: fulfillmentId });
    expect(cancelled.body.data.fulfillmentCancel).toEqual({ fulfillment: { id: fulfillmentId, status: 'CANCELLED' }, userErrors: [] });
    const view = await ctl.order(SHOP, order.id);
    expect(view.fulfillmentStatus).toBe('UNFULFILLED');
    expect(view.fulfillmentOrders[0]!.status).toBe('OPEN');
    expect(view.fulfillmentOrders[0]!.lineItems.every((li) => li.remainingQuantity === li.totalQuantity)).toBe(true);

    const again = await gql(FULFILLMENT_CANCEL, { id: fulfillmentId });
    expect(again.body.data.fulfillmentCancel).toEqual({ fulfillment: null, userErrors: [{ field: ['id'], message: expect.any(String) }] });
    const refused = await gql(FULFILLMENT_TRACKING_INFO_UPDATE, { fulfillmentId, trackingInfoInput: tracking });
    expect(refused.body.data.fulfillmentTrackingInfoUpdate).toEqual({ fulfillment: null, userErrors: [{ field: ['fulfillmentId'], message: expect.stringMatching(/cancelled/) }] });
    const missing = await gql(FULFILLMENT_TRACKING_INFO_UPDATE, { fulfillmentId: 'gid://shopify/Fulfillment/1', trackingInfoInput: tracking });
    expect(missing.body.data.fulfillmentTrackingInfoUpdate.userErrors).toEqual([{ field: ['fulfillmentId'], message: 'Fulfillment does not exist.' }]);
    expect((await ctl.operations(SHOP)).map((e) => [e.operationName, e.outcome]).slice(1)).toEqual([
      ['FulfillmentTrackingInfoUpdate', 'ok'], ['FulfillmentCancel', 'ok'], ['FulfillmentCancel', 'user_errors'],
      ['FulfillmentTrackingInfoUpdate', 'user_errors'], ['FulfillmentTrackingInfoUpdate', 'user_errors'],
    ]);
  });

  it('the control API cancels a fulfillment as the merchant does; a second time is refused', async () => {
    const { order } = await installedShopWithOrder();
    const created = await gql(FULFILLMENT_CREATE, { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: order.fulfillmentOrders[0]!.gid }] } });
    const fulfillmentId: string = created.body.data.fulfillmentCreate.fulfillment.id;
    const r = await ctl.cancelFulfillment(SHOP, order.id, fulfillmentId);
    expect(r.order.fulfillments[0]!.status).toBe('CANCELLED');
    expect(r.order.fulfillmentOrders[0]!.status).toBe('OPEN');
    const second = await ctl.cancelFulfillment(SHOP, order.id, fulfillmentId).catch((e) => e);
    expect(second).toBeInstanceOf(ShopSimControlError);
    expect(second.status).toBe(409);
  });
});

describe('introspection', () => {
  it('shows fulfillments with tracking and notifyCustomer, events, metafields, tags and the operation log', async () => {
    const { order } = await installedShopWithOrder();
    const previous = getGlobalDispatcher();
    installShopifyRouting(sim.url, log);
    try {
      const api = createAdminApi({ apiVersion: API_VERSION, accessToken: async () => TOKEN, log });
      const [fo] = await fetchFulfillmentOrders(api, SHOP, order.gid);
      const created = await api.request(SHOP, FULFILLMENT_CREATE, {
        fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo!.id }], notifyCustomer: false, trackingInfo: { company: 'Same-Day Courier', number: 'job_42', url: 'https://track.example.com/job_42' } },
      });
      const fulfillmentId = created.fulfillmentCreate.fulfillment.id;
      await api.request(SHOP, FULFILLMENT_EVENT_CREATE, { fulfillmentEvent: { fulfillmentId, status: 'IN_TRANSIT', message: 'Driver on the way' } });
      await writeBooking(api, SHOP, order.gid, { status: 'DISPATCHED', jobId: 'job_42', price: '89.00', currency: 'ZAR' });
    } finally {
      await restoreDispatcher(previous);
    }
    const view = await ctl.order(SHOP, order.id);
    expect(view.fulfillmentStatus).toBe('FULFILLED');
    expect(view.fulfillmentOrders[0]!.status).toBe('CLOSED');
    expect(view.fulfillments).toEqual([
      expect.objectContaining({
        status: 'SUCCESS', notifyCustomer: false,
        trackingInfo: { company: 'Same-Day Courier', number: 'job_42', url: 'https://track.example.com/job_42' },
        events: [expect.objectContaining({ status: 'IN_TRANSIT', message: 'Driver on the way' })],
      }),
    ]);
    expect(view.metafields['$app:same_day_dispatch.status']!.value).toBe('DISPATCHED');
    expect(JSON.parse(view.metafields['$app:same_day_dispatch.delivery_price']!.value)).toEqual({ amount: '89.00', currency_code: 'ZAR' });
    expect(view.tags).toEqual(['same-day-dispatched']);
    expect((await ctl.operations(SHOP)).map((e) => e.operationName)).toEqual([
      'OrderFulfillmentOrders', 'FulfillmentCreate', 'FulfillmentEventCreate', 'BookingWrite',
    ]);
    expect(await ctl.orders(SHOP)).toHaveLength(1);
  });
});

describe('metafieldsSet: all or nothing, money in the shop currency', () => {
  it('a courier price in another currency never costs the job id and status metafields', async () => {
    const { order } = await installedShopWithOrder();
    const previous = getGlobalDispatcher();
    installShopifyRouting(sim.url, log);
    try {
      const api = createAdminApi({ apiVersion: API_VERSION, accessToken: async () => TOKEN, log });
      // Shopify's behaviour, as simulated: one money value in the wrong currency and nothing is written.
      const refused = await api.request(SHOP, METAFIELDS_SET, {
        metafields: [
          { ownerId: order.gid, namespace: '$app:same_day_dispatch', key: 'status', type: 'single_line_text_field', value: 'x' },
          { ownerId: order.gid, namespace: '$app:same_day_dispatch', key: 'delivery_price', type: 'money', value: JSON.stringify({ amount: '5.00', currency_code: 'USD' }) },
        ],
      });
      expect(refused.metafieldsSet.userErrors).toEqual([expect.objectContaining({ field: ['metafields', '1', 'value'], code: 'INVALID_VALUE' })]);
      expect((await ctl.order(SHOP, order.id)).metafields).toEqual({});

      // The app: status and job id are written whatever the price currency.
      const skipped = await writeBooking(api, SHOP, order.gid, { status: 'accepted', jobId: 'job_usd', courierOrderId: 'ord_usd', price: '5.00', currency: 'USD' }, { shopCurrency: 'ZAR' });
      expect(skipped).toMatch(/must be in the shop's currency \(ZAR\)/);
      // Shop currency unknown (erased order snapshot): the price is tried with the others; refused, the others go again without it.
      const refusedAlone = await writeBooking(api, SHOP, order.gid, { status: 'accepted', jobId: 'job_usd', price: '5.00', currency: 'USD' });
      expect(refusedAlone).toMatch(/Shopify refused it/);
    } finally {
      await restoreDispatcher(previous);
    }
    const m = (await ctl.order(SHOP, order.id)).metafields;
    expect(m['$app:same_day_dispatch.status']!.value).toBe('accepted');
    expect(m['$app:same_day_dispatch.job_id']!.value).toBe('job_usd');
    expect(m['$app:same_day_dispatch.courier_order_id']!.value).toBe('ord_usd');
    expect(m['$app:same_day_dispatch.delivery_price']).toBeUndefined();
  });
});

describe('control API', () => {
  it('places fixtures by name, refuses a second copy unless ids are fresh, and names what is wrong', async () => {
    const first = await ctl.placeOrder(SHOP, { fixture: 'durban-same-day', send: false });
    expect(first.order).toMatchObject({ name: '#1003', fulfillmentStatus: 'UNFULFILLED' });
    const again = await ctl.placeOrder(SHOP, { fixture: 'durban-same-day', send: false }).catch((e) => e);
    expect(again.status).toBe(409);
    expect(again.message).toMatch(/already exists.*"ids": "fresh"/);
    const copy = await ctl.placeOrder(SHOP, { fixture: 'durban-same-day', ids: 'fresh', send: false, overrides: { test: true } });
    expect(copy.order.id).not.toBe(first.order.id);
    expect(copy.order.name).toBe('#1004');
    expect(copy.order.test).toBe(true);

    const missing = await ctl.placeOrder(SHOP, { fixture: 'atlantis' }).catch((e) => e);
    expect(missing.status).toBe(404);
    expect(missing.message).toMatch(/no fixture "atlantis".*available: .*sandton-same-day/);
    const badShop = await ctl.createShop('not a shop!').catch((e) => e);
    expect(badShop.status).toBe(400);
    const badLocation = await ctl.placeOrder(SHOP, { fixture: 'sandton-same-day', locationId: '1' }).catch((e) => e);
    expect(badLocation.message).toMatch(/locationId 1 is not a location.*71000000001 \(Rosebank warehouse\)/);
    const hugeId = await request(`${sim.url}/_sim/shops/${SHOP}/orders`, { method: 'POST', body: '{"payload":{"id":12345678901234567890,"line_items":[{"id":1}]}}' });
    expect(hugeId.statusCode).toBe(400);
    expect(((await hugeId.body.json()) as any).error).toMatch(/12345678901234567890.*too large/);

    const pickup = await ctl.placeOrder(SHOP, { fixture: 'local-pickup', send: false, locationId: '71000000002' });
    expect(pickup.order.fulfillmentOrders[0]).toMatchObject({ methodType: 'PICK_UP', locationId: '71000000002' });
    // The gift card needs no shipping: only the candle is on the fulfillment order.
    const capeTown = await ctl.placeOrder(SHOP, { fixture: 'cape-town-same-day', send: false });
    expect(capeTown.order.fulfillmentOrders[0]!.lineItems).toEqual([expect.objectContaining({ lineItemId: '13000000000003', remainingQuantity: 2 })]);
    expect((await ctl.state()).fixtures).toEqual(expect.arrayContaining(['sandton-same-day', 'no-coordinates', 'local-phone', 'local-pickup', 'test-order']));
  });

  it('answers unknown routes and wrong methods with the route list', async () => {
    const r = await request(`${sim.url}/_sim/nope`);
    expect(r.statusCode).toBe(404);
    expect(((await r.body.json()) as any).routes.join('\n')).toMatch(/POST \/_sim\/shops\/:shop\/orders/);
    const m = await request(`${sim.url}/_sim/reset`);
    expect(m.statusCode).toBe(405);
    expect(((await m.body.json()) as any).error).toMatch(/GET is not allowed on \/_sim\/reset; allowed: POST/);
  });
});

describe('webhooks to the app', () => {
  it('sends orders/paid signed as Shopify signs it, with the real headers', async () => {
    const { order, webhook } = await ctl.placeOrder(SHOP, { fixture: 'sandton-same-day' });
    expect(webhook).toMatchObject({ topic: 'orders/paid', state: 'delivered', attempts: [expect.objectContaining({ status: 200 })] });
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0]!;
    expect(got.libraryValid).toBe(true);
    expect(got.manualValid).toBe(true);
    expect(got.headers).toMatchObject({
      'x-shopify-topic': 'orders/paid',
      'x-shopify-shop-domain': SHOP,
      'x-shopify-api-version': '2026-10',
      'x-shopify-webhook-id': webhook!.webhookId,
      'x-shopify-event-id': webhook!.eventId,
      'content-type': 'application/json',
    });
    expect(Date.parse(String(got.headers['x-shopify-triggered-at']))).not.toBeNaN();
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ id: 5912345678901234, name: '#1001', financial_status: 'paid', shipping_lines: [expect.objectContaining({ title: 'Same-day delivery' })] });
    expect((await ctl.order(SHOP, order.id)).webhooks).toEqual([expect.objectContaining({ topic: 'orders/paid', state: 'delivered' })]);
  });

  it('retries a non-2xx with the same webhook id, and gives up after the last retry', async () => {
    rx.statuses.push(500, 503);
    const { webhook } = await ctl.placeOrder(SHOP, { fixture: 'cape-town-same-day' });
    expect(webhook!.state).toBe('retrying');
    const done = await ctl.waitFor(() => ctl.webhook(webhook!.seq), (d) => d.state === 'delivered', { what: 'the third attempt' });
    expect(done.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
    expect(new Set(rx.received.map((r) => r.headers['x-shopify-webhook-id']))).toEqual(new Set([webhook!.webhookId]));
    expect(rx.received.every((r) => r.libraryValid)).toBe(true);

    rx.statuses.push(500, 500, 500);
    const { webhook: failing } = await ctl.placeOrder(SHOP, { fixture: 'durban-same-day' });
    const failed = await ctl.waitFor(() => ctl.webhook(failing!.seq), (d) => d.state === 'failed', { what: 'the delivery to fail' });
    expect(failed.attempts).toHaveLength(3);
  });

  it('redelivers a webhook as Shopify\'s duplicate: same webhook id, event id and bytes', async () => {
    const { webhook } = await ctl.placeOrder(SHOP, { fixture: 'sandton-same-day' });
    const dup = await ctl.redeliver(webhook!.seq);
    expect(dup).toMatchObject({ webhookId: webhook!.webhookId, eventId: webhook!.eventId, redeliveryOf: webhook!.seq, state: 'delivered' });
    expect(rx.received[1]!.body).toBe(rx.received[0]!.body);
    // A second paid webhook for the same order under a new webhook id (Shopify does this too).
    const other = await ctl.sendWebhook(SHOP, { topic: 'orders/paid', orderId: '5912345678901234' });
    expect(other.webhookId).not.toBe(webhook!.webhookId);
  });

  it('cancels an order: cancelled_at set, fulfillment orders closed, orders/cancelled sent', async () => {
    const { order } = await ctl.placeOrder(SHOP, { fixture: 'sandton-same-day' });
    const { order: cancelled, webhook } = await ctl.cancelOrder(SHOP, order.id, { reason: 'customer' });
    expect(cancelled.cancelledAt).not.toBeNull();
    expect(cancelled.fulfillmentOrders[0]!.status).toBe('CLOSED');
    expect(webhook!.topic).toBe('orders/cancelled');
    const body = JSON.parse(rx.received[1]!.body);
    expect(rx.received[1]!.headers['x-shopify-topic']).toBe('orders/cancelled');
    expect(body).toMatchObject({ id: 5912345678901234, cancel_reason: 'customer', cancelled_at: cancelled.cancelledAt });
    const twice = await ctl.cancelOrder(SHOP, order.id).catch((e) => e);
    expect(twice.status).toBe(409);
  });

  it('uninstalls (tokens revoked, app/uninstalled) and sends the compliance topics', async () => {
    const { order } = await installedShopWithOrder('sandton-same-day');
    const shopId = (await ctl.shop(SHOP)).shopId;
    const un = await ctl.uninstall(SHOP);
    expect(un).toMatchObject({ topic: 'app/uninstalled', state: 'delivered' });
    expect(JSON.parse(rx.received[0]!.body)).toMatchObject({ id: shopId, myshopify_domain: SHOP, domain: SHOP });
    expect((await gql(ORDER_FOR_DISPATCH, { id: order.gid })).status).toBe(401);
    expect((await ctl.shop(SHOP)).installed).toBe(false);

    await ctl.sendWebhook(SHOP, { topic: 'customers/data_request', orderId: order.id });
    await ctl.sendWebhook(SHOP, { topic: 'customers/redact', orderId: order.id });
    await ctl.sendWebhook(SHOP, { topic: 'shop/redact' });
    const [, dataRequest, redact, shopRedact] = rx.received.map((r) => ({ topic: r.headers['x-shopify-topic'], body: JSON.parse(r.body), valid: r.libraryValid }));
    expect(dataRequest).toMatchObject({ topic: 'customers/data_request', valid: true, body: { shop_id: shopId, shop_domain: SHOP, customer: { id: 7301122334455667, email: 'thandi.nkosi@example.co.za' }, orders_requested: [5912345678901234], data_request: { id: expect.any(Number) } } });
    expect(redact).toMatchObject({ topic: 'customers/redact', valid: true, body: { shop_id: shopId, customer: { id: 7301122334455667, phone: '+27825551234' }, orders_to_redact: [5912345678901234] } });
    expect(shopRedact).toMatchObject({ topic: 'shop/redact', valid: true, body: { shop_id: shopId, shop_domain: SHOP } });
    expect((await ctl.webhooks({ shop: SHOP })).map((d) => d.topic)).toEqual(['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact']);
    const noCustomer = await ctl.sendWebhook(SHOP, { topic: 'customers/redact' }).catch((e) => e);
    expect(noCustomer.message).toMatch(/needs a customer/);
  });
});

describe('OAuth', () => {
  it('signs the embedded open URL so @shopify/shopify-api\'s validateHmac accepts it', async () => {
    await ctl.managedInstall('open-shop');
    const location = new URL((await ctl.openApp('open-shop')).url);
    const params = Object.fromEntries(location.searchParams);
    expect(params).toMatchObject({ shop: 'open-shop.myshopify.com', embedded: '1', hmac: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Buffer.from(params.host!, 'base64url').toString()).toBe('admin.shopify.com/store/open-shop');
    expect(Math.abs(Number(params.timestamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(await shopify.api.utils.validateHmac(params)).toBe(true);
    expect(await shopify.api.utils.validateHmac(new URLSearchParams(location.search) as any)).toBe(true);
    expect(await shopify.api.utils.validateHmac({ ...params, shop: 'evil.myshopify.com' })).toBe(false);
    expect(signOAuthQuery(params, API_SECRET)).toBe(params.hmac);
  });

  it('refresh_token grant: checks the client, issues a new pair, and the old access token stops working', async () => {
    const shop = 'refresh-shop.myshopify.com';
    await ctl.managedInstall(shop, { scope: 'read_orders,write_orders' });
    const exchange = (body: Record<string, string>, form = false) =>
      request(`${sim.url}/admin/oauth/access_token`, {
        method: 'POST',
        headers: { host: shop, 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
        body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
      }).then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any }));
    const grant = { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: (await ctl.openApp(shop)).sessionToken, subject_token_type: ID_TOKEN_TYPE, requested_token_type: OFFLINE_TOKEN_TYPE, expiring: '1' };
    const wrongSecret = await exchange({ client_id: API_KEY, client_secret: 'nope', ...grant });
    expect(wrongSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const ok = await exchange({ client_id: API_KEY, client_secret: API_SECRET, ...grant }, true);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      access_token: expect.stringMatching(/^shpat_/), scope: 'read_orders,write_orders',
      expires_in: 3600, refresh_token: expect.stringMatching(/^shprt_/), refresh_token_expires_in: 7776000,
    });
    expect((await gql(ORDER_FOR_DISPATCH, { id: 'gid://shopify/Order/1' }, { shop, token: ok.body.access_token })).body.data).toEqual({ order: null });
    // The authorization code grant is not served: the app installs through token exchange.
    const code = await exchange({ client_id: API_KEY, client_secret: API_SECRET, code: 'abc' });
    expect(code).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });

    const refreshed = await exchange({ client_id: API_KEY, client_secret: API_SECRET, grant_type: 'refresh_token', refresh_token: ok.body.refresh_token });
    expect(refreshed.body).toMatchObject({ access_token: expect.stringMatching(/^shpat_/), expires_in: 3600, refresh_token: expect.stringMatching(/^shprt_/) });
    expect(refreshed.body.access_token).not.toBe(ok.body.access_token);
    expect((await gql(ORDER_FOR_DISPATCH, { id: 'gid://shopify/Order/1' }, { shop, token: ok.body.access_token })).status).toBe(401);
  });

  describe('token exchange through the app\'s real Shopify set-up (web/shopify/app.ts) with routing on', () => {
    let previous: Dispatcher;
    let app: http.Server;
    let appUrl: string;
    let storage: ReturnType<typeof memoryStorage>;
    let appShopify: Shopify;
    const installed: string[] = [];

    beforeAll(async () => {
      storage = memoryStorage();
      const config = loadConfig({ NODE_ENV: 'test', SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: API_SECRET, SHOPIFY_APP_URL: 'https://app.example.test', PORT: '0' });
      appShopify = createShopify(config, storage, log, async (s) => void installed.push(s.shop));
      const e = express();
      // As web/admin mounts them: the embedded page, and an authenticated API route.
      e.get('/', appShopify.ensureInstalledOnShop(), (_req, res) => void res.type('html').send('<!doctype html><title>home</title>'));
      e.get('/api/settings', appShopify.validateAuthenticatedSession(), (_req, res) => void res.json({ shop: res.locals.shopify.session.shop }));
      app = http.createServer(e);
      await new Promise<void>((r) => app.listen(0, '127.0.0.1', () => r()));
      appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      previous = getGlobalDispatcher();
      installShopifyRouting(sim.url, log);
    });
    afterAll(async () => {
      await restoreDispatcher(previous);
      await new Promise<void>((r) => app.close(() => r()));
    });

    const callApi = (token: string) => request(`${appUrl}/api/settings`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.statusCode, headers: r.headers, body: await r.body.text() }));

    it('install → first open → first API call exchanges the session token → expiry and refresh → uninstall → reinstall', async () => {
      // Shopify-managed installation: installed, no token yet; the first open serves the page at once.
      const result = await ctl.installApp({ appUrl, shop: 'demo' });
      expect(result).toMatchObject({ pageStatus: 200, apiStatus: 200 });
      expect(result.shop).toMatchObject({ shop: 'demo.myshopify.com', installed: true, scope: appShopify.api.config.scopes!.toString() });
      expect(installed).toEqual(['demo.myshopify.com']);
      const session = storage.sessions.get('offline_demo.myshopify.com')!;
      expect(session).toMatchObject({ shop: 'demo.myshopify.com', isOnline: false, accessToken: expect.stringMatching(/^shpat_/), refreshToken: expect.stringMatching(/^shprt_/) });
      expect(session.expires!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
      // A second API call uses the stored session: no second exchange.
      expect((await callApi(await ctl.sessionToken('demo'))).status).toBe(200);
      expect(storage.sessions.get('offline_demo.myshopify.com')!.accessToken).toBe(session.accessToken);

      // The app's background path: an expired token answers 401, the app refreshes through the simulator.
      const { order } = await ctl.placeOrder('demo', { fixture: 'local-phone', send: false });
      await ctl.expireToken('demo');
      const api = createAdminApi({ apiVersion: API_VERSION, accessToken: offlineTokenProvider(appShopify), log });
      const data = await api.request('demo.myshopify.com', ORDER_FOR_DISPATCH, { id: order.gid });
      expect(data.order.shippingAddress.phone).toBe('082 555 0199');
      const fresh = storage.sessions.get('offline_demo.myshopify.com')!;
      expect(fresh.accessToken).not.toBe(session.accessToken);
      expect(fresh.refreshToken).not.toBe(session.refreshToken);

      // Uninstall revokes the tokens; reinstalling and opening again exchanges a new one.
      await ctl.uninstall('demo');
      storage.sessions.clear(); // what app/uninstalled does in the app
      const refused = await request(`${sim.url}/admin/oauth/access_token`, {
        method: 'POST', headers: { host: 'demo.myshopify.com', 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: API_KEY, client_secret: API_SECRET, grant_type: TOKEN_EXCHANGE_GRANT, subject_token: await ctl.sessionToken('demo'), subject_token_type: ID_TOKEN_TYPE, requested_token_type: OFFLINE_TOKEN_TYPE, expiring: '1' }),
      });
      expect(refused.statusCode).toBe(400);
      expect(await refused.body.json()).toMatchObject({ error: 'invalid_subject_token' });
      const again = await ctl.installApp({ appUrl, shop: 'demo' });
      expect(again.apiStatus).toBe(200);
      expect(installed).toEqual(['demo.myshopify.com', 'demo.myshopify.com']);
      expect(storage.sessions.get('offline_demo.myshopify.com')!.accessToken).not.toBe(fresh.accessToken);
    });

    it('an expired or forged session token gets 401 with the retry header, and nothing is stored', async () => {
      await ctl.managedInstall('forged');
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: 'https://forged.myshopify.com/admin', dest: 'https://forged.myshopify.com', aud: API_KEY, sub: '1', exp: now + 60, nbf: now, iat: now, jti: 'j', sid: 's' };
      const forged = await callApi(signSessionToken(claims, 'not-the-secret'));
      expect(forged.status).toBe(401);
      const expired = await callApi(signSessionToken({ ...claims, exp: now - 10 }, API_SECRET));
      expect(expired.status).toBe(401);
      expect(storage.sessions.has('offline_forged.myshopify.com')).toBe(false);
    });
  });

  describe('the token exchange grant', () => {
    const grant = (shop: string, body: Record<string, unknown>) =>
      request(`${sim.url}/admin/oauth/access_token`, { method: 'POST', headers: { host: shop, 'content-type': 'application/json' }, body: JSON.stringify({ client_id: API_KEY, client_secret: API_SECRET, grant_type: TOKEN_EXCHANGE_GRANT, subject_token_type: ID_TOKEN_TYPE, ...body }) })
        .then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any }));

    it('issues expiring offline tokens and online tokens in Shopify\'s documented shapes, for an installed shop only', async () => {
      const shop = 'grant-shop.myshopify.com';
      const token = async () => (await ctl.openApp(shop)).sessionToken;
      await ctl.createShop(shop);
      expect((await ctl.openApp(shop).catch((e) => e)).status).toBe(409); // not installed
      await ctl.managedInstall(shop, { scope: 'write_orders,read_locations' });
      const offline = await grant(shop, { subject_token: await token(), requested_token_type: OFFLINE_TOKEN_TYPE, expiring: '1' });
      expect(offline).toEqual({ status: 200, body: { access_token: expect.stringMatching(/^shpat_/), scope: 'write_orders,read_locations', expires_in: 3600, refresh_token: expect.stringMatching(/^shprt_/), refresh_token_expires_in: 7776000 } });
      const nonExpiring = await grant(shop, { subject_token: await token(), requested_token_type: OFFLINE_TOKEN_TYPE, expiring: '0' });
      expect(nonExpiring.body).toEqual({ access_token: expect.stringMatching(/^shpat_/), scope: 'write_orders,read_locations' });
      const online = await grant(shop, { subject_token: await token(), requested_token_type: ONLINE_TOKEN_TYPE });
      expect(online.body).toMatchObject({ access_token: expect.any(String), expires_in: 86399, associated_user_scope: 'write_orders,read_locations', associated_user: { id: 1, account_owner: true } });
      // The session token names another shop: refused.
      const other = await grant('other-grant.myshopify.com', { subject_token: await token(), requested_token_type: OFFLINE_TOKEN_TYPE });
      expect(other).toMatchObject({ status: 400, body: { error: 'invalid_subject_token' } });
      expect((await grant(shop, { subject_token: await token(), requested_token_type: 'urn:x' })).body.error_description).toMatch(/requested_token_type must be/);
      expect((await grant(shop, { subject_token: await token(), subject_token_type: 'jwt', requested_token_type: OFFLINE_TOKEN_TYPE })).body.error_description).toMatch(/subject_token_type must be/);
    });

    it('a managed install grants exactly the scopes of shopify.app.toml', async () => {
      expect((await ctl.managedInstall('toml-shop')).scope).toBe(DEFAULT_SCOPES);
    });
  });
});

describe('installShopifyRouting', () => {
  let previous: Dispatcher;
  let other: http.Server;
  let otherUrl: string;
  const seenByOther: Array<{ host?: string; url?: string }> = [];

  beforeAll(async () => {
    other = http.createServer((req, res) => {
      seenByOther.push({ host: req.headers.host, url: req.url });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"other"}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => other.close(() => r()));
  });
  beforeEach(() => {
    previous = getGlobalDispatcher();
  });
  afterEach(async () => {
    await restoreDispatcher(previous);
  });

  it('sends undici.fetch and Node\'s global fetch for https://<shop>.myshopify.com to the simulator; 127.0.0.1 passes through', async () => {
    await ctl.createShop('x.myshopify.com', { accessToken: TOKEN });
    installShopifyRouting(sim.url, log);
    expect(getGlobalDispatcher()).toBeInstanceOf(ShopSimulatorDispatcher);
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN },
      body: JSON.stringify({ query: 'query ShopLocations { locations(first: 50) { nodes { id } } }' }),
    };
    const viaUndici = await undiciFetch('https://x.myshopify.com/admin/api/2026-10/graphql.json', init);
    const viaGlobal = await globalThis.fetch('https://x.myshopify.com/admin/api/2026-10/graphql.json', init);
    for (const res of [viaUndici, viaGlobal]) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).data.locations.nodes).toHaveLength(2);
    }
    expect((await ctl.operations('x.myshopify.com', 'ShopLocations'))).toHaveLength(2);

    // Not a shop: untouched, Host and all.
    const local = await globalThis.fetch(`${otherUrl}/plain?x=1`);
    expect(await local.json()).toEqual({ from: 'other' });
    const localUndici = await undiciFetch(`${otherUrl}/plain2`);
    expect(await localUndici.json()).toEqual({ from: 'other' });
    expect(seenByOther).toEqual([
      { host: new URL(otherUrl).host, url: '/plain?x=1' },
      { host: new URL(otherUrl).host, url: '/plain2' },
    ]);
    // Installing again re-targets instead of stacking routers.
    installShopifyRouting(sim.url, log);
    expect((getGlobalDispatcher() as ShopSimulatorDispatcher).passthrough).toBe(previous);
  });

  it('only matches https://<name>.myshopify.com', () => {
    expect(ShopSimulatorDispatcher.shopOf('https://x.myshopify.com')).toBe('x.myshopify.com');
    expect(ShopSimulatorDispatcher.shopOf('https://X-1.MyShopify.com:443')).toBe('x-1.myshopify.com');
    expect(ShopSimulatorDispatcher.shopOf('http://x.myshopify.com')).toBeNull();
    expect(ShopSimulatorDispatcher.shopOf('https://myshopify.com')).toBeNull();
    expect(ShopSimulatorDispatcher.shopOf('https://x.myshopify.com.evil.test')).toBeNull();
    expect(ShopSimulatorDispatcher.shopOf('https://admin.shopify.com')).toBeNull();
  });
});

async function restoreDispatcher(previous: Dispatcher) {
  const current = getGlobalDispatcher();
  setGlobalDispatcher(previous);
  if (current !== previous && current instanceof ShopSimulatorDispatcher) await current.close();
}

describe('fixtures', () => {
  const settings = { ...DEFAULT_SETTINGS, autoDispatch: true };
  const ctx = { shopDomain: SHOP, environment: 'test' as const, settings, pickupStoreId: 'store_sandbox_001', locationStores: {}, locationId: null, overrides: {} };

  it('each one parses and does what dev/shop-sim/orders/README.md says', async () => {
    const expected: Record<string, { eligible: string | true; mapping?: string | true }> = {
      'sandton-same-day': { eligible: true, mapping: true },
      'cape-town-same-day': { eligible: true, mapping: true },
      'multi-location': { eligible: true, mapping: true },
      'durban-same-day': { eligible: true, mapping: true },
      'no-coordinates': { eligible: true, mapping: 'missing_coordinates' },
      'local-phone': { eligible: true, mapping: true },
      // Pickup is the fulfillment order's delivery method (PICK_UP), decided at dispatch; at intake its title meets the shipping-method rule.
      'local-pickup': { eligible: 'shipping_method' },
      'test-order': { eligible: true, mapping: true },
    };
    expect((await ctl.fixtures()).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, want] of Object.entries(expected)) {
      const { order: view } = await ctl.placeOrder(SHOP, { fixture: name, send: false });
      const raw = (await import(`../../dev/shop-sim/orders/${name}.json`, { with: { type: 'json' } })).default;
      const order = OrderSnapshotSchema.parse(raw);
      expect(view.name, name).toBe(order.name);
      const e = decideEligibility(order, settings);
      expect(e.dispatch ? true : (e as { code: string }).code, name).toBe(want.eligible);
      if (want.mapping === undefined) continue;
      const m = mapOrderToRequest(order, ctx);
      expect(m.ok ? true : m.problems.map((p) => p.code).join(','), name).toBe(want.mapping);
      if (m.ok && name === 'local-phone') expect(m.request.dropoff.phone).toBe('+27825550199');
      if (m.ok) expect(m.request.package.size, name).toBe(name === 'durban-same-day' ? 'MEDIUM' : 'SMALL');
      if (m.ok) expect(m.request.dropoff.country).toBe('ZA');
    }
    expect(OrderSnapshotSchema.parse((await import('../../dev/shop-sim/orders/test-order.json', { with: { type: 'json' } })).default).test).toBe(true);
    expect(decideEligibility(OrderSnapshotSchema.parse((await import('../../dev/shop-sim/orders/test-order.json', { with: { type: 'json' } })).default), { ...settings, activeEnvironment: 'live' })).toMatchObject({ code: 'test_order_live' });
  });
});

describe('npm run shop-sim', () => {
  it('prints its URL and the control API, serves, and stops cleanly on SIGTERM', async () => {
    const node = process.execPath;
    const child = spawn(node, ['dev/shop-sim/main.ts', '--port', '0'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', SHOP_SIM_PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 15_000);
      child.stdout.on('data', () => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m && out.includes('/_sim/shops/:shop/orders')) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
    });
    expect(out).toContain('dev-api-key');
    expect(out).toContain(`SHOP_SIMULATOR_URL=${url}`);
    expect((await new ShopSimControl(url).health()).ok).toBe(true);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(out).toContain('SIGTERM received');
  });
});
