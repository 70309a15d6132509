// Shopify webhooks over real HTTP against the app: HMAC, deduplication,
// uninstall, and the compliance topics doing real work on stored rows.
import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Session } from '@shopify/shopify-api';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createSessionStorage, OFFLINE_SESSION_TTL_MS } from '../../web/db/session-storage.ts';
import { runCli } from '../support/cli.ts';
import { postShopifyWebhook, shopifyWebhookHeaders } from '../support/shopify.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const order = { id: 820982911946154508, admin_graphql_api_id: 'gid://shopify/Order/820982911946154508', name: '#1001' };

async function seedShop(domain: string) {
  const shop = await app.db.shop.create({ data: { domain } });
  const storage = app.server.services()!.shopify.config.sessionStorage;
  await storage.storeSession(
    new Session({ id: `offline_${domain}`, shop: domain, state: 's', isOnline: false, accessToken: 'shpat_secret_token_1234', scope: 'read_orders' }),
  );
  const delivery = await app.db.delivery.create({
    data: {
      shopId: shop.id,
      shopifyOrderId: '1001',
      orderName: '#1001',
      status: 'NEEDS_ATTENTION',
      reason: "Phone '0825551234' is not a valid ZA number",
      customerId: '207119551',
      orderJson: JSON.stringify({
        id: '1001',
        name: '#1001',
        email: 'thandi@example.com',
        total_price: '250.00',
        shipping_address: { name: 'Thandi Nkosi', phone: '0825551234', address1: '12 Jan Smuts Ave', latitude: -26.1, longitude: 28.03 },
        customer: { id: 207119551, first_name: 'Thandi' },
      }),
      requestBody: JSON.stringify({ reference: '1001', dropoff: { name: 'Thandi Nkosi', phone: '0825551234' }, amount: 250 }),
      events: { create: [{ kind: 'app', source: 'dispatch', occurredAt: new Date(), message: "Phone '0825551234' is not a valid ZA number" }] },
    },
  });
  await app.db.courierEnvironment.create({ data: { shopId: shop.id, environment: 'test', endpointId: `ep_${domain}` } });
  return { shop, delivery };
}

describe('POST /api/webhooks', () => {
  it('records a correctly signed orders/paid once, however often it is delivered', async () => {
    const webhookId = 'wh-orders-paid-1';
    const first = await postShopifyWebhook(app.url, 'orders/paid', 'a.myshopify.com', order, { webhookId });
    expect(first.status).toBe(200);
    expect(await app.db.webhookReceipt.count({ where: { webhookId } })).toBe(1);

    const again = await postShopifyWebhook(app.url, 'orders/paid', 'a.myshopify.com', order, { webhookId });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true });
    const receipts = await app.db.webhookReceipt.findMany({ where: { webhookId } });
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ topic: 'ORDERS_PAID', shop: 'a.myshopify.com' });
  });

  it('does nothing for a webhook id processed before its inbox row was pruned: the receipt remembers it', async () => {
    const webhookId = 'wh-pruned-then-again';
    await seedShop('receipts.myshopify.com');
    const first = await postShopifyWebhook(app.url, 'orders/paid', 'receipts.myshopify.com', { ...order, id: 820982911946154601, name: '#1601' }, { webhookId });
    expect(first).toMatchObject({ status: 200 });
    expect(first.body.ignored).toBeUndefined();
    await app.db.webhookInbox.delete({ where: { key: webhookId } }); // what pruning does to a done row
    // The same webhook id again, with another order in it: recorded, and nothing booked for it.
    const again = await postShopifyWebhook(app.url, 'orders/paid', 'receipts.myshopify.com', { ...order, id: 820982911946154602, name: '#1602' }, { webhookId });
    expect(again).toMatchObject({ status: 200, body: { ignored: true, reason: 'duplicate webhook' } });
    expect(await app.db.delivery.count({ where: { shopifyOrderId: '820982911946154602' } })).toBe(0);
    expect(await app.db.webhookReceipt.count({ where: { webhookId } })).toBe(1);
  });

  it('tells intake-first of each webhook stored and of each courier webhook, so background jobs yield while they arrive', async () => {
    const intake = app.ctx.intake!;
    const calls = vi.spyOn(intake, 'received');
    try {
      const res = await postShopifyWebhook(app.url, 'orders/paid', 'intake-first.myshopify.com', { ...order, id: 820982911946154777, name: '#1777' });
      expect(res.status).toBe(200);
      expect(calls).toHaveBeenCalledTimes(1);
      // A courier webhook counts from its first byte (even one refused): it needs the loop too.
      const courier = await fetch(`${app.url}/webhooks/delivery/ep_${'x'.repeat(20)}`, { method: 'POST', body: '{}' });
      expect(courier.status).toBeGreaterThanOrEqual(400);
      expect(calls).toHaveBeenCalledTimes(2);
    } finally {
      calls.mockRestore();
    }
  });

  it('answers 401 to a wrong HMAC and stores nothing', async () => {
    const r = await postShopifyWebhook(app.url, 'orders/paid', 'a.myshopify.com', order, { webhookId: 'wh-forged', secret: 'not-the-secret' });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/HMAC/);
    expect(await app.db.webhookReceipt.count({ where: { webhookId: 'wh-forged' } })).toBe(0);
  });

  it('answers 401 when the body was changed after signing', async () => {
    const body = JSON.stringify(order);
    const headers = shopifyWebhookHeaders('orders/paid', 'a.myshopify.com', body, { webhookId: 'wh-tampered' });
    const res = await fetch(`${app.url}/api/webhooks`, { method: 'POST', headers, body: body.replace('#1001', '#1002') });
    expect(res.status).toBe(401);
    expect(await app.db.webhookReceipt.count({ where: { webhookId: 'wh-tampered' } })).toBe(0);
  });

  it('answers 400 when required headers are missing, 401 when the HMAC is', async () => {
    const noTopic = await postShopifyWebhook(app.url, 'orders/paid', 'a.myshopify.com', order, {
      webhookId: 'wh-no-topic',
      headers: { 'x-shopify-topic': undefined },
    });
    expect(noTopic.status).toBe(400);
    expect(noTopic.body.missingHeaders).toContain('X-Shopify-Topic');
    const noHmac = await postShopifyWebhook(app.url, 'orders/paid', 'a.myshopify.com', order, {
      webhookId: 'wh-no-hmac',
      headers: { 'x-shopify-hmac-sha256': undefined },
    });
    expect(noHmac.status).toBe(401); // Shopify's compliance rules: a missing HMAC is an authentication failure
    expect(await app.db.webhookReceipt.count({ where: { webhookId: { in: ['wh-no-topic', 'wh-no-hmac'] } } })).toBe(0);
  });

  it('stores a correctly signed body that is not JSON and leaves it failed for the operator, with the reason', async () => {
    const r = await postShopifyWebhook(app.url, 'orders/paid', 'a.myshopify.com', '{not json', { webhookId: 'wh-bad-json' });
    expect(r).toMatchObject({ status: 200, body: { failed: true, reason: 'the body is not valid JSON' } });
    expect(await app.db.webhookReceipt.count({ where: { webhookId: 'wh-bad-json' } })).toBe(0);
    expect(await app.db.webhookInbox.findUnique({ where: { key: 'wh-bad-json' } })).toMatchObject({ state: 'failed', topic: 'ORDERS_PAID', shop: 'a.myshopify.com' });
    // The operator sees it, and can run it again.
    const listed = await runCli(app.env, 'inbox');
    expect(listed.stdout).toMatch(/wh-bad-json.*the body is not valid JSON/);
    const id = (await app.db.webhookInbox.findUniqueOrThrow({ where: { key: 'wh-bad-json' } })).id;
    expect((await runCli(app.env, 'inbox', '--retry', String(id))).stdout).toMatch(/1 webhook\(s\) queued again/);
    expect((await app.db.webhookInbox.findUniqueOrThrow({ where: { key: 'wh-bad-json' } })).state).not.toBe('done');
    expect((await runCli(app.env, 'inbox', '--retry', 'x')).stderr).toMatch(/--retry expects an inbox id or all/);
  });

  it('answers alike before Express (a Content-Length body) and through it (a chunked body, one over 1 MB): status, body, security headers, request id', async () => {
    // web/ops/bare-http.ts takes the first; it declines the others, which Express answers.
    const send = (payload: string, webhookId: string, chunked: boolean, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = request(`${app.url}/api/webhooks`, { method: 'POST', headers: { ...shopifyWebhookHeaders('orders/paid', 'a.myshopify.com', payload, { webhookId }), ...headers } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        req.on('error', reject);
        if (chunked) {
          req.write(payload.slice(0, 10));
          req.end(payload.slice(10));
        } else req.end(payload);
      });
    const body = JSON.stringify(order);
    const bare = await send(body, 'wh-bare', false, { 'content-length': String(Buffer.byteLength(body)), 'x-request-id': 'req-bare-1' });
    const viaExpress = await send(body, 'wh-chunked', true);
    for (const r of [bare, viaExpress]) {
      expect(r).toMatchObject({ status: 200, body: JSON.stringify({ ok: true }) });
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['x-request-id']).toMatch(/^[\w.-]+$/);
    }
    expect(bare.headers['x-request-id']).toBe('req-bare-1');
    for (const key of ['wh-bare', 'wh-chunked']) expect(await app.db.webhookInbox.count({ where: { key } })).toBe(1);
    // Both servers agree on a repeat and on a wrong signature.
    expect(JSON.parse((await send(body, 'wh-bare', true)).body)).toEqual({ ok: true, duplicate: true });
    expect(JSON.parse((await send(body, 'wh-chunked', false, { 'content-length': String(Buffer.byteLength(body)) })).body)).toEqual({ ok: true, duplicate: true });
    for (const chunked of [false, true]) {
      const r = await send(`${body} `, `wh-forged-${chunked}`, chunked, { 'x-shopify-hmac-sha256': 'AAAA', ...(chunked ? {} : { 'content-length': String(body.length + 1) }) });
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body)).toEqual({ error: 'HMAC validation failed' });
    }
    const big = JSON.stringify({ ...order, note: 'x'.repeat(1024 * 1024) });
    const tooBig = await send(big, 'wh-big', false, { 'content-length': String(Buffer.byteLength(big)) });
    expect(tooBig.status).toBe(413);
    expect(JSON.parse(tooBig.body)).toEqual({ error: 'request body is too large' });
    expect(await app.db.webhookInbox.count({ where: { key: { in: ['wh-big', 'wh-forged-false', 'wh-forged-true'] } } })).toBe(0);
  });
});

describe('app/uninstalled', () => {
  it('deletes the sessions and marks the shop, and tolerates repeats', async () => {
    const domain = 'uninstall.myshopify.com';
    await seedShop(domain);
    expect(await app.db.session.count({ where: { shop: domain } })).toBe(1);

    const r1 = await postShopifyWebhook(app.url, 'app/uninstalled', domain, { id: 1, domain });
    const r2 = await postShopifyWebhook(app.url, 'app/uninstalled', domain, { id: 1, domain });
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(await app.db.session.count({ where: { shop: domain } })).toBe(0);
    const shop = await app.db.shop.findUnique({ where: { domain } });
    expect(shop?.uninstalledAt).toBeInstanceOf(Date);
  });

  it('forgets the cached offline session: background work finds none at once', async () => {
    const domain = 'uninstall-cached.myshopify.com';
    await seedShop(domain);
    const storage = app.server.services()!.shopify.config.sessionStorage;
    expect((await storage.loadSession(`offline_${domain}`))?.accessToken).toBe('shpat_secret_token_1234'); // now cached
    expect((await postShopifyWebhook(app.url, 'app/uninstalled', domain, { id: 1, domain })).status).toBe(200);
    expect(await storage.loadSession(`offline_${domain}`)).toBeUndefined();
  });

  it('is a no-op for a shop we no longer hold', async () => {
    const r = await postShopifyWebhook(app.url, 'app/uninstalled', 'gone.myshopify.com', { id: 2 });
    expect(r.status).toBe(200);
  });
});

describe('compliance topics', () => {
  it('shop/redact removes every row of that shop and only that shop', async () => {
    const target = 'redact-me.myshopify.com';
    const other = 'keep-me.myshopify.com';
    await seedShop(target);
    await seedShop(other);
    await postShopifyWebhook(app.url, 'orders/paid', target, order, { webhookId: 'wh-before-redact' });
    // Inbox rows the worker gave up on keep their (encrypted) order bodies until the shop is redacted.
    const failedRow = (shop: string, key: string) => ({ source: 'shopify', key, topic: 'ORDERS_PAID', shop, body: 'encrypted order', state: 'failed', nextAttemptAt: new Date(), receivedAt: new Date() });
    await app.db.webhookInbox.createMany({ data: [failedRow(target, 'wh-failed-target'), failedRow(other, 'wh-failed-other')] });

    const r = await postShopifyWebhook(app.url, 'shop/redact', target, { shop_id: 954889, shop_domain: target });
    expect(r.status).toBe(200);
    expect(await app.db.shop.count({ where: { domain: target } })).toBe(0);
    expect(await app.db.session.count({ where: { shop: target } })).toBe(0);
    expect(await app.db.delivery.count({ where: { shop: { domain: target } } })).toBe(0);
    expect(await app.db.courierEnvironment.count({ where: { endpointId: `ep_${target}` } })).toBe(0);
    expect(await app.db.webhookReceipt.count({ where: { webhookId: 'wh-before-redact' } })).toBe(0);
    expect((await app.db.webhookInbox.findMany({ where: { shop: target }, select: { topic: true } })).map((x) => x.topic)).toEqual(['SHOP_REDACT']);
    // The other shop is untouched.
    expect(await app.db.webhookInbox.count({ where: { shop: other } })).toBe(1);
    expect(await app.db.shop.count({ where: { domain: other } })).toBe(1);
    expect(await app.db.delivery.count({ where: { shop: { domain: other } } })).toBe(1);
    expect(await app.db.session.count({ where: { shop: other } })).toBe(1);
  });

  it('customers/redact erases the customer personal data from stored deliveries', async () => {
    const domain = 'customer-redact.myshopify.com';
    const { delivery } = await seedShop(domain);
    const r = await postShopifyWebhook(app.url, 'customers/redact', domain, {
      shop_id: 1,
      shop_domain: domain,
      customer: { id: 207119551, email: 'thandi@example.com', phone: '0825551234' },
      orders_to_redact: [1001],
    });
    expect(r.status).toBe(200);
    const after = await app.db.delivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { events: true } });
    const stored = [after.orderJson, after.requestBody, after.reason, ...after.events.map((e) => e.message)].join(' ');
    for (const personal of ['Thandi', 'Nkosi', '0825551234', 'thandi@example.com', 'Jan Smuts']) expect(stored).not.toContain(personal);
    expect(after.redactedAt).toBeInstanceOf(Date);
    // What the merchant needs for accounting stays.
    expect(JSON.parse(after.orderJson)).toMatchObject({ name: '#1001', total_price: '250.00' });
  });

  it('customers/data_request records what we hold for the customer', async () => {
    const domain = 'data-request.myshopify.com';
    const { delivery } = await seedShop(domain);
    const r = await postShopifyWebhook(app.url, 'customers/data_request', domain, {
      shop_domain: domain,
      customer: { id: 207119551 },
      orders_requested: [1001],
      data_request: { id: 9999 },
    });
    expect(r.status).toBe(200);
    const record = await app.db.dataRequest.findFirstOrThrow({ where: { dataRequestId: '9999' } });
    expect(JSON.parse(record.report).deliveries).toEqual([expect.objectContaining({ deliveryId: delivery.id, shopifyOrderId: '1001' })]);
  });

  it.each(['customers/data_request', 'customers/redact', 'shop/redact'])('%s with a bad HMAC gets 401', async (topic) => {
    const domain = 'victim.myshopify.com';
    await app.db.shop.upsert({ where: { domain }, create: { domain }, update: {} });
    const r = await postShopifyWebhook(app.url, topic, domain, { shop_domain: domain }, { secret: 'forged' });
    expect(r.status).toBe(401);
    expect(await app.db.shop.count({ where: { domain } })).toBe(1);
  });
});

describe('session storage', () => {
  it('keeps access tokens encrypted at rest and readable through the library', async () => {
    const domain = 'sessions.myshopify.com';
    await seedShop(domain);
    const raw = await app.db.session.findUniqueOrThrow({ where: { id: `offline_${domain}` } });
    expect(raw.accessToken).not.toContain('shpat_secret_token_1234');
    expect(raw.accessToken).toMatch(/^enc:v1:/);
    const loaded = await app.server.services()!.shopify.config.sessionStorage.loadSession(`offline_${domain}`);
    expect(loaded?.accessToken).toBe('shpat_secret_token_1234');
    expect(app.logs.join('\n')).not.toContain('shpat_secret_token_1234');
  });

  it('reuses a loaded offline session for a short TTL; a store through it or the TTL ends that', async () => {
    const domain = 'session-cache.myshopify.com';
    let clock = Date.now();
    const { box, database } = app.ctx;
    const storage = createSessionStorage(database.db, box, () => clock);
    const id = `offline_${domain}`;
    const session = (token: string) => new Session({ id, shop: domain, state: 's', isOnline: false, accessToken: token, scope: 'read_orders' });
    await storage.storeSession(session('shpat_first'));
    expect((await storage.loadSession(id))?.accessToken).toBe('shpat_first');
    // Another instance rotates the row: this one keeps its copy until the TTL ends.
    await createSessionStorage(database.db, box).storeSession(session('shpat_second'));
    expect((await storage.loadSession(id))?.accessToken).toBe('shpat_first');
    clock += OFFLINE_SESSION_TTL_MS;
    expect((await storage.loadSession(id))?.accessToken).toBe('shpat_second');
    // Its own store (a refresh, a token exchange) is read back at once.
    await storage.storeSession(session('shpat_third'));
    expect((await storage.loadSession(id))?.accessToken).toBe('shpat_third');
    await storage.deleteSession(id);
    expect(await storage.loadSession(id)).toBeUndefined();
    // Online sessions are never kept.
    const online = new Session({ id: `${domain}_42`, shop: domain, state: 's', isOnline: true, accessToken: 'shpua_a', scope: 'read_orders' });
    await storage.storeSession(online);
    expect((await storage.loadSession(online.id))?.accessToken).toBe('shpua_a');
    await app.db.session.delete({ where: { id: online.id } });
    expect(await storage.loadSession(online.id)).toBeUndefined();
  });
});
