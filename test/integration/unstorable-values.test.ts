// Values a database cannot store (lone UTF-16 surrogates, NUL on PostgreSQL,
// years outside 0001-9999, a cursor past year 9999, a twice-decoded path) are
// never a 500: a verified courier event or a Shopify order is stored with the
// value replaced in its columns (the courier's exact body is kept); a filter gets 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';
import { adminClient } from '../support/admin-client.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { connectCourierAccount, installSession, installShop, startScenario, WEBHOOK_SECRET, type Scenario } from '../support/scenario.ts';
import { postShopifyWebhook } from '../support/shopify.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
});
afterAll(async () => {
  await s?.close();
});

function signed(body: string, id: string) {
  const headers = signDeliveryWebhook({ secret: WEBHOOK_SECRET, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
  return { headers, body };
}

describe('courier webhooks with unstorable values', () => {
  let endpointUrl: string;
  beforeAll(async () => {
    await installShop(s, 'unstorable-courier.myshopify.com');
    ({ endpointUrl } = await connectCourierAccount(s, 'unstorable-courier.myshopify.com'));
  });

  it('stores the event with replaced characters and no time for a year past 9999', async () => {
    // JSON escapes: a lone surrogate in the status, NUL in the delivery id.
    const body = '{"id":"evt_lone_1","type":"delivery.status.updated","created_at":"+010000-01-01T00:00:00Z","data":{"delivery_id":"dlv_\\u0000x","status":"accepted\\ud800"}}';
    const { headers } = signed(body, 'evt_lone_1');
    const r = await fetch(endpointUrl, { method: 'POST', headers, body });
    expect(r.status).toBe(200);
    const ev = await s.app.db.courierEvent.findFirstOrThrow({ where: { eventId: 'evt_lone_1' } });
    expect(ev.status).toBe('accepted\ufffd');
    expect(ev.deliveryRef).toBe('dlv_\ufffdx');
    expect(ev.occurredAt).toBeNull();
    expect(ev.payload).toBe(body); // the exact body, for audit: in JSON such characters are plain-ASCII escapes
  });

  it('refuses a body that is not UTF-8 with 400 (the spec sends UTF-8 JSON), storing nothing', async () => {
    const head = Buffer.from('{"id":"evt_bytes_1","type":"delivery.status.updated","created_at":"2026-11-22T10:00:00Z","data":{"delivery_id":"dlv_1","status":"accepted","note":"');
    const raw = Buffer.concat([head, Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    const sigHeaders = signDeliveryWebhook({ secret: WEBHOOK_SECRET, body: raw as unknown as string, timestampSec: Math.floor(Date.now() / 1000), eventId: 'evt_bytes_1', type: 'delivery.status.updated' });
    const r = await fetch(endpointUrl, { method: 'POST', headers: sigHeaders, body: raw });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { reason: string }).reason).toBe('malformed_body');
    expect(await s.app.db.courierEvent.count({ where: { eventId: 'evt_bytes_1' } })).toBe(0);
  });
});

describe('Shopify orders with unstorable values', () => {
  it('records an order whose name holds a lone surrogate and NUL', async () => {
    const shop = 'unstorable-order.myshopify.com';
    await installSession(s, shop);
    const payload = paidOrder({ name: '#10\ud800\u0000' });
    const r = await postShopifyWebhook(s.app.url, 'orders/paid', shop, payload);
    expect(r.status).toBe(200);
    const d = await s.app.db.delivery.findFirstOrThrow({ where: { shop: { domain: shop }, shopifyOrderId: orderIdOfPayload(payload) } });
    expect(d.orderName).toBe('#10\ufffd\ufffd');
  });
});

describe('admin API parameters a database cannot take', () => {
  const shop = 'unstorable-api.myshopify.com';
  beforeAll(async () => {
    await installSession(s, shop);
  });

  it.each([
    ['from=%2B099999-01-01T00:00:00Z', 'from'],
    ['to=-000001-06-01T00:00:00Z', 'to'],
    ['from=10000-01-01', 'from'],
    ['from=0000-01-01', 'from'], // PostgreSQL has no year 0
    [`cursor=${Buffer.from('999999999999999:abc').toString('base64url')}`, 'cursor'],
    ['q=a%00b', 'q'],
    ['q=%ED%A0%80', 'q'], // a lone surrogate, as CESU-8 bytes: decoded to U+FFFD by the URL parser, so allowed
  ])('GET /api/deliveries?%s answers 400 naming %s, never 500', async (query, field) => {
    const r = await adminClient(s.app.url, shop).get(`/api/deliveries?${query}`);
    if (query.startsWith('q=%ED')) {
      expect(r.status).toBe(200);
      return;
    }
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual([field]);
  });

  it('accepts the last storable day as an upper bound', async () => {
    expect((await adminClient(s.app.url, shop).get('/api/deliveries?from=0001-01-01&to=9999-12-31')).status).toBe(200);
  });

  it('does not decode a path segment twice', async () => {
    const r = await adminClient(s.app.url, shop).get('/api/orders/1%252/delivery');
    expect(r.status).toBe(400);
    expect(r.body.errors.orderId).toMatch(/Shopify order id/);
    expect((await adminClient(s.app.url, shop).get(`/api/orders/${encodeURIComponent('gid://shopify/Order/123')}/delivery`)).status).toBe(200);
  });
});
