// The shop simulator held to Shopify's published artifacts: every order fixture
// and every webhook payload it sends validates against its topic's JSON schema
// (shopify-webhook-schemas, newest version), and it refuses GraphQL that
// Shopify's 2026-10 Admin schema refuses, with Shopify-style errors.
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startShopSimulator, type RunningShopSimulator } from '../../dev/shop-sim/server.ts';
import { ShopSimControl } from '../../dev/shop-sim/control.ts';
import * as ops from '../../web/shopify/operations.ts';
import { ORDER_FOR_DISPATCH, SHOP_PROFILE } from '../../web/shopify/operations.ts';
import { answerProblems } from '../../dev/shop-sim/contract.ts';
import { validateWebhookPayload, WEBHOOK_SCHEMA_VERSION } from '../support/contract.ts';
import { ROOT } from '../support/paths.ts';

const API_KEY = 'contract-key';
const API_SECRET = 'contract-secret-0123456789';
const FIXTURES = join(ROOT, 'dev/shop-sim/orders');

let sim: RunningShopSimulator;
let ctl: ShopSimControl;
let receiver: http.Server;
const received: Array<{ topic: string; body: unknown }> = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      received.push({ topic: String(req.headers['x-shopify-topic']), body: JSON.parse(data) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  sim = await startShopSimulator({ apiKey: API_KEY, apiSecret: API_SECRET, appUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, webhookRetryDelaysMs: [] });
  ctl = new ShopSimControl(sim.url);
});
afterAll(async () => {
  await sim?.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});

describe(`payloads against shopify-webhook-schemas ${WEBHOOK_SCHEMA_VERSION}`, () => {
  const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));

  it.each(fixtures)('fixture %s is a valid orders/paid payload', (file) => {
    expect(validateWebhookPayload('orders/paid', JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')))).toEqual([]);
  });

  it('every webhook the simulator sends, of every topic, validates against its schema', async () => {
    const shop = 'contract.myshopify.com';
    await ctl.createShop(shop, { accessToken: 'shpat_contract_0001' });
    const placed = [];
    for (const f of fixtures) placed.push((await ctl.placeOrder(shop, { fixture: f.replace(/\.json$/, ''), ids: 'fresh', routing: true })).order);
    await ctl.cancelOrder(shop, placed[0]!.id);
    await ctl.editOrderAddress(shop, placed[1]!.id, { shippingAddress: { address1: '1 Fredman Drive', city: 'Sandton', zip: '2196' }, phone: '+27821234567' });
    await ctl.sendWebhook(shop, { topic: 'customers/data_request', orderId: placed[0]!.id });
    await ctl.sendWebhook(shop, { topic: 'customers/redact', orderId: placed[0]!.id });
    await ctl.sendWebhook(shop, { topic: 'customers/redact', customerId: '12345' }); // a customer the shop does not know
    await ctl.uninstall(shop);
    await ctl.sendWebhook(shop, { topic: 'shop/redact' });

    expect(new Set(received.map((r) => r.topic))).toEqual(new Set(['orders/paid', 'fulfillment_orders/order_routing_complete', 'orders/cancelled', 'orders/updated', 'customers/data_request', 'customers/redact', 'app/uninstalled', 'shop/redact']));
    for (const r of received) expect(validateWebhookPayload(r.topic, r.body), `${r.topic}: ${JSON.stringify(r.body).slice(0, 200)}`).toEqual([]);
    // The order status page is on the shop's own domain, as Shopify sends it.
    const paid = received.find((r) => r.topic === 'orders/paid')!.body as { order_status_url: string };
    expect(new URL(paid.order_status_url).hostname).toBe(shop);
    // A moved address has no coordinates until Shopify geocodes it.
    const updated = received.find((r) => r.topic === 'orders/updated')!.body as { shipping_address: Record<string, unknown>; phone: string };
    expect(updated.shipping_address).toMatchObject({ address1: '1 Fredman Drive', city: 'Sandton', latitude: null, longitude: null });
    expect(updated.phone).toBe('+27821234567');
  });
});

describe("GraphQL against Shopify's 2026-10 Admin schema", () => {
  const gql = (query: string, variables: Record<string, unknown>) =>
    request(`${sim.url}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { host: 'gql.myshopify.com', 'content-type': 'application/json', 'x-shopify-access-token': 'shpat_gql_0000001' },
      body: JSON.stringify({ query, variables }),
    }).then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any }));

  beforeAll(async () => {
    await ctl.createShop('gql', { accessToken: 'shpat_gql_0000001' });
  });

  it('answers a valid operation', async () => {
    expect((await gql(ORDER_FOR_DISPATCH, { id: 'gid://shopify/Order/1' })).body).toMatchObject({ data: { order: null } });
  });

  it('refuses a field Shopify does not have, with Shopify-style errors and no data', async () => {
    const r = await gql(ORDER_FOR_DISPATCH.replace('sourceName', 'sourceNam'), { id: 'gid://shopify/Order/1' });
    expect(r.status).toBe(200);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors).toEqual([{ message: expect.stringMatching(/Cannot query field "sourceNam" on type "Order"/), locations: [expect.objectContaining({ line: expect.any(Number) })], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }]);
    expect((await ctl.operations('gql.myshopify.com')).at(-1)).toMatchObject({ operationName: 'OrderForDispatch', outcome: 'rejected' });
  });

  it('answers every query as Shopify could: each field typed by the schema, none missing, none extra', async () => {
    const profile = await gql(SHOP_PROFILE, {});
    expect(profile.body.data.shop).toEqual({
      name: 'Gql', contactEmail: 'hello@gql.example', ianaTimezone: 'Africa/Johannesburg',
      shopAddress: { phone: '+27 10 500 1234', countryCodeV2: 'ZA' }, primaryDomain: { localization: { defaultLocale: 'en' } },
    });
    const { order } = await ctl.placeOrder('gql.myshopify.com', { fixture: 'sandton-same-day', ids: 'fresh', routing: true });
    const id = `gid://shopify/Order/${order.id}`;
    const forDispatch = await gql(ORDER_FOR_DISPATCH, { id });
    expect(forDispatch.body.data.order.customerLocale).toBe('en');
    const fulfillmentOrder = (await gql(ops.ORDER_FULFILLMENT_ORDERS, { id })).body.data.order.fulfillmentOrders.nodes[0].id;
    const queries: Array<[string, Record<string, unknown>]> = [
      [SHOP_PROFILE, {}], [ORDER_FOR_DISPATCH, { id }], [ops.ORDER_FULFILLMENT_ORDERS, { id }], [ops.ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH, { id }],
      [ops.FULFILLMENT_ORDER_ORDER, { id: fulfillmentOrder }], [ops.SHOP_LOCATIONS, {}], [ops.RATES_SETUP, {}],
    ];
    for (const [query, variables] of queries) {
      const answer = await gql(query, variables);
      expect(answer.body.errors, query.slice(0, 60)).toBeUndefined();
      expect(answerProblems(query, variables, answer.body.data), query.slice(0, 60)).toEqual([]);
    }
    // A shop's write-backs together: the tags under their aliases, typed as the schema types tagsAdd.
    const second = `gid://shopify/Order/${(await ctl.placeOrder('gql.myshopify.com', { fixture: 'sandton-same-day', ids: 'fresh', routing: true })).order.id}`;
    const metafield = (ownerId: string) => ({ ownerId, namespace: ops.METAFIELD_NAMESPACE, key: 'status', type: 'single_line_text_field', value: 'accepted' });
    const both = { metafields: [metafield(id), metafield(second)], id0: id, id1: second, tags: [ops.DISPATCHED_TAG] };
    const written = await gql(ops.BOOKINGS_WRITES[0]!, both);
    expect(written.body.errors).toBeUndefined();
    expect(written.body.data).toMatchObject({ t0: { node: { id }, userErrors: [] }, t1: { node: { id: second }, userErrors: [] }, metafieldsSet: { userErrors: [] } });
    expect(answerProblems(ops.BOOKINGS_WRITES[0]!, both, written.body.data)).toEqual([]);
    expect(answerProblems(ops.BOOKINGS_WRITES[0]!, both, { ...written.body.data, t1: undefined })).not.toEqual([]);
  });

  it.each([
    ['a null in a non-null field', { shop: { name: null } }, /shop\.name: Cannot return null for non-nullable field Shop\.name/],
    ['a field not asked for', { shop: { name: 'A', email: 'owner@a.example' } }, /differs from its typed form/],
    ['a field asked for but missing', { shop: {} }, /Cannot return null for non-nullable field Shop\.name/],
    ['an object for a scalar', { shop: { name: { text: 'A' } } }, /String cannot represent value/],
  ])('answerProblems finds %s', (_what, data, expected) => {
    expect(answerProblems('query Q { shop { name } }', {}, data).join('\n')).toMatch(expected);
  });

  it('refuses variables that do not fit their declared types', async () => {
    const r = await gql(ORDER_FOR_DISPATCH, {});
    expect(r.body.errors[0]).toMatchObject({ message: expect.stringMatching(/Variable "\$id" of required type "ID!" was not provided/), extensions: { code: 'INVALID_VARIABLE' } });
  });
});
