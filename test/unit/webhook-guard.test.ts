import { describe, expect, it } from 'vitest';
import { payloadMismatch } from '../../web/shopify/webhook-guard.ts';
import { sampleWebhook } from '../support/contract.ts';

const SHOP = 'jsmith.myshopify.com';
const order = { id: 1, admin_graphql_api_id: 'gid://shopify/Order/1', name: '#1', order_status_url: `https://${SHOP}/1/orders/x/authenticate?key=k` };

describe('payloadMismatch: the signed body, not the headers, decides', () => {
  const cases: Array<[string, string, unknown, RegExp | null]> = [
    ['SHOP_REDACT', SHOP, { shop_id: 1, shop_domain: SHOP }, null],
    ['SHOP_REDACT', SHOP, { shop_id: 1, shop_domain: 'other.myshopify.com' }, /does not match the shop header/],
    ['SHOP_REDACT', SHOP, order, /shop_domain is missing/],
    ['SHOP_REDACT', SHOP, { shop_id: 1, shop_domain: SHOP, customer: { id: 1 }, orders_to_redact: [] }, /not a shop\/redact/],
    ['CUSTOMERS_REDACT', SHOP, { shop_domain: SHOP, customer: { id: 1 }, orders_to_redact: [1] }, null],
    ['CUSTOMERS_REDACT', SHOP, { shop_domain: SHOP }, /customer is missing/],
    ['CUSTOMERS_DATA_REQUEST', SHOP, { shop_domain: 'x.myshopify.com', customer: { id: 1 } }, /does not match/],
    ['CUSTOMERS_DATA_REQUEST', SHOP, { shop_domain: SHOP.toUpperCase(), customer: { id: 1 } }, null],
    ['ORDERS_PAID', SHOP, order, null],
    ['ORDERS_PAID', SHOP, { ...order, order_status_url: 'https://shop.example.com/1/orders/x' }, null],
    ['ORDERS_PAID', 'other.myshopify.com', order, /order_status_url belongs to jsmith/],
    ['ORDERS_PAID', SHOP, { shop_id: 1, shop_domain: SHOP }, /not an order/],
    ['ORDERS_PAID', SHOP, { ...order, admin_graphql_api_id: 'gid://shopify/Customer/1' }, /is not an order/],
    ['ORDERS_CANCELLED', SHOP, order, /without cancelled_at/],
    ['ORDERS_CANCELLED', SHOP, { ...order, cancelled_at: '2026-11-23T10:00:00Z' }, null],
    ['ORDERS_UPDATED', SHOP, order, null],
    ['ORDERS_UPDATED', 'other.myshopify.com', order, /order_status_url belongs to jsmith/],
    ['ORDERS_UPDATED', SHOP, { shop_id: 1, shop_domain: SHOP }, /not an order/],
    ['APP_UNINSTALLED', SHOP, { id: 1, myshopify_domain: SHOP }, null],
    ['APP_UNINSTALLED', SHOP, { id: 1, myshopify_domain: null }, null],
    ['APP_UNINSTALLED', SHOP, { id: 1, myshopify_domain: 'other.myshopify.com' }, /does not match/],
    ['APP_UNINSTALLED', SHOP, { ...order, line_items: [] }, /not a shop resource/],
    ['ORDERS_PAID', SHOP, [order], /not a JSON object/],
    ['FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE', SHOP, { fulfillment_order: { id: 'gid://shopify/FulfillmentOrder/1', status: 'open' } }, null],
    ['FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE', SHOP, { fulfillment_order: { id: 'gid://shopify/Order/1' } }, /not a fulfillment order event/],
    ['FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE', SHOP, order, /not a fulfillment order event/],
    ['FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE', SHOP, { fulfillment_order: { id: 'gid://shopify/FulfillmentOrder/1' }, shop_domain: SHOP }, /not a fulfillment order event/],
  ];
  it.each(cases)('%s for %s: %j', (topic, shop, payload, expected) => {
    const r = payloadMismatch(topic, shop, payload);
    if (expected === null) expect(r).toBeNull();
    else expect(r).toMatch(expected);
  });

  it("accepts Shopify's own sample payload of every subscribed topic", () => {
    for (const [topic, storage] of [
      ['orders/paid', 'ORDERS_PAID'], ['orders/cancelled', 'ORDERS_CANCELLED'], ['orders/updated', 'ORDERS_UPDATED'], ['app/uninstalled', 'APP_UNINSTALLED'],
      ['customers/data_request', 'CUSTOMERS_DATA_REQUEST'], ['customers/redact', 'CUSTOMERS_REDACT'], ['shop/redact', 'SHOP_REDACT'],
      ['fulfillment_orders/order_routing_complete', 'FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE'],
    ] as const) {
      const p = sampleWebhook(topic, SHOP);
      expect(payloadMismatch(storage, SHOP, p), topic).toBeNull();
    }
  });
});
