// shopify.app.toml and the code agree: declared scopes, and a handler for every subscribed topic.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES } from '../../web/config/env.ts';
import { shopifyTopicHandlers } from '../../web/app.ts';
import { ROOT } from '../support/paths.ts';

const toml = readFileSync(join(ROOT, 'shopify.app.toml'), 'utf8');
const list = (key: string) =>
  [...toml.matchAll(new RegExp(`^${key}\\s*=\\s*\\[([^\\]]*)\\]`, 'gm'))].flatMap((m) => [...m[1]!.matchAll(/"([^"]+)"/g)].map((x) => x[1]!));

describe('shopify.app.toml', () => {
  it('declares exactly the scopes the app requests', () => {
    const scopes = toml.match(/^scopes\s*=\s*"([^"]*)"/m)![1]!;
    expect(scopes.split(',').sort()).toEqual(DEFAULT_SCOPES.split(',').sort());
  });

  it('subscribes every topic the app handles, at /api/webhooks', () => {
    const topics = [...list('topics'), ...list('compliance_topics')];
    // The library's storage form: orders/paid → ORDERS_PAID, fulfillment_orders/order_routing_complete → FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE.
    const handled = Object.keys(shopifyTopicHandlers({} as any));
    expect(topics.map((t) => t.toUpperCase().replace(/\//g, '_')).sort()).toEqual(handled.sort());
    expect([...toml.matchAll(/^uri\s*=\s*"([^"]+)"/gm)].map((m) => m[1])).toEqual(['/api/webhooks', '/api/webhooks']);
  });

  it("the admin extension's api_version is the one its @shopify/ui-extensions version implements", () => {
    const ext = readFileSync(join(ROOT, 'extensions/order-delivery-block/shopify.extension.toml'), 'utf8');
    const apiVersion = ext.match(/^api_version\s*=\s*"(\d{4}-\d{2})"/m)![1]!;
    const range = JSON.parse(readFileSync(join(ROOT, 'extensions/order-delivery-block/package.json'), 'utf8')).dependencies['@shopify/ui-extensions'] as string;
    const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules/@shopify/ui-extensions/package.json'), 'utf8')).version as string;
    const asApiVersion = (v: string) => v.replace(/^\D*/, '').split('.').slice(0, 2).map((n, i) => (i ? n.padStart(2, '0') : n)).join('-');
    expect(asApiVersion(range)).toBe(apiVersion);
    expect(asApiVersion(installed)).toBe(apiVersion);
  });
});
