// Every Admin GraphQL operation the app sends, checked against Shopify's own
// published 2026-10 schema (@shopify/dev-mcp), with the variables the app
// builds, and against the access scopes Shopify documents for each field.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/paths.ts';
import { describe, expect, it } from 'vitest';
import { parse, type OperationDefinitionNode } from 'graphql';
import * as ops from '../../web/shopify/operations.ts';
import type { AdminApi } from '../../web/shopify/admin-api.ts';
import { API_VERSION } from '../../web/shopify/app.ts';
import { DEFAULT_SCOPES } from '../../web/config/env.ts';
import { buildTriggerPayload } from '../../web/flow/payloads.ts';
import { ADMIN_SCHEMA_VERSION, grantedScopes, requiredScopes, validateOperation } from '../../dev/shop-sim/contract.ts';

/** Every exported GraphQL document in web/shopify/operations.ts, by operation name. */
const OPERATIONS: Record<string, string> = Object.fromEntries(
  (Object.values(ops) as unknown[]).flat()
    .filter((v): v is string => typeof v === 'string' && /^\s*(query|mutation)\s/.test(v))
    .map((q) => [(parse(q).definitions[0] as OperationDefinitionNode).name!.value, q]),
);

/** An AdminApi that records what the app's helpers send and answers with a minimal shape. */
function recorder() {
  const calls: Array<{ query: string; variables: Record<string, unknown> }> = [];
  const api: AdminApi = {
    async request(_shop, query, variables = {}) {
      calls.push({ query, variables });
      return { order: null, metafieldsSet: { userErrors: [] }, tagsAdd: { userErrors: [] } } as any;
    },
  };
  return { api, calls };
}

const ORDER_GID = 'gid://shopify/Order/820982911946154508';

/** The variables the app's own code builds, plus the mutations sync.ts builds inline (same shapes). */
async function sentOperations(): Promise<Array<{ query: string; variables: Record<string, unknown> }>> {
  const { api, calls } = recorder();
  await ops.writeBooking(api, 'a.myshopify.com', ORDER_GID, { status: 'accepted', jobId: 'JOB-1', courierOrderId: 'ord_1', price: '95.00', currency: 'ZAR' }, { shopCurrency: 'ZAR' });
  // A shop's write-backs together (web/dispatch/writeback.ts): every size, each order with its four metafields.
  for (let n = 2; n <= ops.BOOKINGS_PER_WRITE; n++) {
    await ops.writeBookings(api, 'a.myshopify.com', Array.from({ length: n }, (_, i) => ({
      orderGid: `gid://shopify/Order/${i + 1}`, metafields: { status: 'accepted', jobId: `JOB-${i}`, courierOrderId: `ord_${i}`, price: '95.00', currency: 'ZAR' }, shopCurrency: 'ZAR',
    })));
  }
  await ops.fetchFulfillmentState(api, 'a.myshopify.com', ORDER_GID);
  await ops.fetchOrderAsPayload(api, 'a.myshopify.com', '820982911946154508');
  calls.push({ query: ops.SHOP_LOCATIONS, variables: {} });
  calls.push({ query: ops.SHOP_PROFILE, variables: {} });
  await ops.fetchFulfillmentOrdersForDispatch(api, 'a.myshopify.com', ORDER_GID);
  await ops.fetchOrderOfFulfillmentOrder(api, 'a.myshopify.com', 'gid://shopify/FulfillmentOrder/1');
  calls.push({
    query: ops.FULFILLMENT_CREATE,
    variables: {
      fulfillment: {
        lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/1', fulfillmentOrderLineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/2', quantity: 1 }] }],
        notifyCustomer: true,
        trackingInfo: { company: 'Courier', number: 'JOB-1', url: 'https://track.example/JOB-1' },
      },
    },
  });
  // Fulfillment from the fulfillment orders dispatch booked (web/fulfillment/sync.ts): every line item they hold.
  calls.push({
    query: ops.FULFILLMENT_CREATE,
    variables: { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/1' }], notifyCustomer: true, trackingInfo: { company: 'Courier', number: 'JOB-1', url: 'https://track.example/JOB-1' } } },
  });
  // writeBooking's second call, when Shopify refused the set with the price in it.
  calls.push({ query: ops.METAFIELDS_SET, variables: { metafields: [{ ownerId: ORDER_GID, namespace: ops.METAFIELD_NAMESPACE, key: 'status', type: 'single_line_text_field', value: 'accepted' }] } });
  calls.push({
    query: ops.FULFILLMENT_EVENT_CREATE,
    variables: { fulfillmentEvent: { fulfillmentId: 'gid://shopify/Fulfillment/3', status: 'IN_TRANSIT', happenedAt: new Date(0).toISOString(), message: 'Courier: picked up' } },
  });
  calls.push({
    query: ops.FULFILLMENT_TRACKING_INFO_UPDATE,
    variables: { fulfillmentId: 'gid://shopify/Fulfillment/3', trackingInfoInput: { company: 'Courier', number: 'JOB-2', url: 'https://track.example/JOB-2' }, notifyCustomer: false },
  });
  calls.push({ query: ops.FULFILLMENT_CANCEL, variables: { id: 'gid://shopify/Fulfillment/3' } });
  // Rates at checkout (web/rates/setup.ts carrierServiceStep builds these inputs).
  calls.push({ query: ops.RATES_SETUP, variables: {} });
  calls.push({ query: ops.CARRIER_SERVICE_CREATE, variables: { input: { name: 'Same-day delivery', callbackUrl: 'https://app.example/carrier-service/rates', active: true, supportsServiceDiscovery: true } } });
  calls.push({ query: ops.CARRIER_SERVICE_UPDATE, variables: { input: { id: 'gid://shopify/DeliveryCarrierService/1', name: 'Same-day delivery', callbackUrl: 'https://app.example/carrier-service/rates', active: false } } });
  // Shopify Flow (web/flow/triggers.ts), with a payload the app builds.
  await ops.sendFlowTrigger({ request: async (shop, query, variables) => (calls.push({ query, variables: variables ?? {} }), { flowTriggerReceive: { userErrors: [] } }) as any }, 'a.myshopify.com', 'delivery-booked',
    buildTriggerPayload('delivery-booked', {
      shopifyOrderId: '820982911946', status: 'CREATED', reasonCode: null, reason: null, courierStatus: null, courierStatusAt: null, deliveryPrice: '79.50', currency: 'ZAR',
      dispatchJobId: 'JOB-1', locationId: '1', environment: 'live', paidAt: new Date(0).toISOString(), courierOrder: true, tries: 1,
    }));
  return calls;
}

describe(`Admin GraphQL operations against Shopify's ${ADMIN_SCHEMA_VERSION} schema`, () => {
  it('checks the API version the app sends', () => {
    expect(String(API_VERSION)).toBe(ADMIN_SCHEMA_VERSION);
  });

  it('covers every operation in web/shopify/operations.ts', async () => {
    const sent = new Set((await sentOperations()).map((c) => (parse(c.query).definitions[0] as OperationDefinitionNode).name!.value));
    expect([...sent].sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it('every operation, with the variables the app builds, is valid', async () => {
    for (const { query, variables } of await sentOperations()) {
      expect(validateOperation(query, variables), query.slice(0, 60)).toEqual([]);
    }
  });

  // The check must be able to fail: each of these is a small edit to a real operation.
  it.each([
    ['a field renamed (totalPriceSet → totalPriceMoney)', () => ops.ORDER_FOR_DISPATCH.replace('totalPriceSet', 'totalPriceMoney'), {}, /Cannot query field "totalPriceMoney" on type "Order"/],
    ['a field that does not exist on the type', () => ops.ORDER_FULFILLMENT_ORDERS.replace('requestStatus', 'requestState'), {}, /Cannot query field "requestState"/],
    ['a missing selection set', () => ops.BOOKING_WRITE.replace('node { id }', 'node'), {}, /must have a selection of subfields/],
    ['a wrong argument type', () => ops.ORDER_FOR_DISPATCH.replace('$id: ID!', '$id: Int!'), { id: 1 }, /of type "Int!" used in position expecting type "ID!"/],
    ['a variable value Shopify would refuse', () => ops.METAFIELDS_SET, { metafields: [{ ownerId: ORDER_GID, namespace: 'x', key: 'y', value: 'v', typo: 1 }] }, /Field "typo" is not defined/],
    ['an enum value that does not exist', () => ops.FULFILLMENT_EVENT_CREATE, { fulfillmentEvent: { fulfillmentId: 'gid://shopify/Fulfillment/1', status: 'PICKED_UP' } }, /Value "PICKED_UP" does not exist in "FulfillmentEventStatus"/],
  ])('rejects %s', (_what, mutate, variables, expected) => {
    const errors = validateOperation(mutate(), { id: ORDER_GID, ...variables });
    expect(errors.map((e) => e.message).join('\n')).toMatch(expected);
  });
});

describe('access scopes', () => {
  const scopes = DEFAULT_SCOPES.split(',');
  const granted = grantedScopes(scopes);

  it('every field the operations read or write is covered by the requested scopes', () => {
    for (const [name, q] of Object.entries(OPERATIONS)) {
      for (const need of requiredScopes(q)) {
        expect(need.anyOf.some((s) => granted.has(s)), `${name}: ${need.on} needs one of ${need.anyOf.join(', ')}`).toBe(true);
      }
    }
  });

  it('requests no scope the operations do not need, and no read scope its write scope already grants', () => {
    const needs = Object.values(OPERATIONS).flatMap((q) => requiredScopes(q));
    // Needed by the app's configuration, not by an operation: the app proxy (shopify.dev, app proxies).
    const forConfig: Record<string, RegExp> = { write_app_proxy: /^\[app_proxy\]$/m };
    for (const s of scopes.filter((x) => forConfig[x])) expect(readFileSync(join(ROOT, 'shopify.app.toml'), 'utf8')).toMatch(forConfig[s]!);
    for (const s of scopes.filter((x) => !forConfig[x])) {
      const without = grantedScopes(scopes.filter((x) => x !== s));
      const needed = needs.some((n) => n.anyOf.some((a) => granted.has(a)) && !n.anyOf.some((a) => without.has(a)));
      expect(needed, `${s} is requested but nothing needs it`).toBe(true);
    }
  });

  it("the customer's contact fields would need read_customers, which the app does not request", () => {
    const q = ops.ORDER_FOR_DISPATCH.replace('email\n', 'email\n      customer { id email phone }\n');
    expect(validateOperation(q, { id: ORDER_GID })).toEqual([]); // deprecated, still valid...
    const needs = requiredScopes(q).filter((n) => !n.anyOf.some((a) => granted.has(a)));
    expect(needs).toEqual([{ on: 'Customer', anyOf: ['read_customers'] }]); // ...but not granted
  });
});
