// Bulk actions (POST /api/bulk) over real HTTP, on SQLite and PostgreSQL: the
// real app in-process with its job worker, the sandbox courier, the shop
// simulator. A mixed selection gets one right result per order, and nothing
// outside the selection's own path changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkResult } from '../../web/admin/contract.ts';
import { bulkRequest, sendBulk } from '../../extensions/order-bulk-action/src/request.ts';
import { adminClient, type AdminClient } from '../support/admin-client.ts';
import { sessionToken } from '../support/session-token.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { waitFor } from '../support/process.ts';
import { installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
let api: AdminClient;
let sim: Awaited<ReturnType<typeof installShop>>;
const shop = 'bulk-mix.myshopify.com';
const STANDARD = { shipping_lines: [{ title: 'Standard', code: 'standard' }] };
// 2 000 kg: our mapping sends it, the courier refuses it (package.weightKg at most 1000).
const TOO_HEAVY = { ...STANDARD, total_weight: 2_000_000 };
const UNKNOWN = '999999999';

const byOrder = (r: BulkResult) => Object.fromEntries(r.results.map((x) => [x.orderId, x]));
/** Booked, and its Shopify write-back done: no job will touch the row again on its own. */
const settled = (orderId: string) => waitFor(async () => (await snapshot(orderId))?.events.some((e) => e.kind === 'writeback') || null, `write-back of order ${orderId}`);
const snapshot = (orderId: string) => s.app.db.delivery.findFirst({ where: { shop: { domain: shop }, shopifyOrderId: orderId }, include: { events: { orderBy: { id: 'asc' } } } });

beforeAll(async () => {
  s = await startScenario();
  sim = await installShop(s, shop);
  api = adminClient(s.app.url, shop);
});
afterAll(async () => {
  await s?.close();
});

describe('bulk dispatch', () => {
  let skipped: string, booked: string, heavy: string, neverReceived: string;

  beforeAll(async () => {
    skipped = (await placeOrder(s, sim, STANDARD)).orderId;
    booked = (await placeOrder(s, sim)).orderId;
    heavy = (await placeOrder(s, sim, TOO_HEAVY)).orderId;
    const payload = paidOrder();
    sim.addOrder(payload); // in Shopify, no orders/paid webhook came
    neverReceived = orderIdOfPayload(payload);
    await waitForStatus(s.app, shop, skipped, 'SKIPPED');
    await waitForStatus(s.app, shop, heavy, 'SKIPPED');
    await waitForStatus(s.app, shop, booked, 'CREATED');
    await settled(booked);
  });

  it('dispatches the eligible, the table refuses the booked one, the unknown is not found; the courier refusal shows on its delivery', async () => {
    const bookedBefore = await snapshot(booked);
    const r = await api.post('/api/bulk', { action: 'dispatch', orderIds: [skipped, `gid://shopify/Order/${booked}`, heavy, UNKNOWN, neverReceived] });
    expect(r.status).toBe(200);
    const body = r.body as BulkResult;
    expect(body.results.map((x) => x.orderId)).toEqual([skipped, booked, heavy, UNKNOWN, neverReceived]);
    expect(body.counts).toEqual({ ok: 3, refused: 1, not_found: 1 });
    const res = byOrder(body);
    expect(res[skipped]).toMatchObject({ outcome: 'ok', code: null, message: 'Queued for dispatch', deliveryId: expect.any(String) });
    expect(res[booked]).toMatchObject({ outcome: 'refused', code: 'not_allowed', message: 'delivery is CREATED; nothing to retry', status: 'CREATED', deliveryId: bookedBefore!.id });
    expect(res[heavy]).toMatchObject({ outcome: 'ok', message: 'Queued for dispatch' });
    expect(res[UNKNOWN]).toEqual({ orderId: UNKNOWN, outcome: 'not_found', code: null, message: `Shopify has no order ${UNKNOWN} on this shop`, deliveryId: null, orderName: null, status: null, quote: null });
    // An order the app never received is recorded through the order block's path.
    expect(res[neverReceived]).toMatchObject({ outcome: 'ok', deliveryId: expect.any(String), orderName: expect.stringMatching(/^#\d+/) });

    expect((await waitForStatus(s.app, shop, skipped, 'CREATED')).generation).toBe(1);
    await waitForStatus(s.app, shop, neverReceived, 'CREATED');
    await settled(skipped);
    await settled(neverReceived);
    const refused = await waitForStatus(s.app, shop, heavy, 'NEEDS_ATTENTION');
    expect(refused).toMatchObject({ reasonCode: 'courier_rejected', reason: expect.stringMatching(/weightKg/) });
    // Nothing else changed: the booked delivery is as it was, each order booked at most once, nothing recorded for the unknown.
    expect(await snapshot(booked)).toEqual(bookedBefore);
    expect(await s.courier.ordersCreatedFor(booked)).toBe(1);
    expect(await s.courier.ordersCreatedFor(skipped)).toBe(1);
    expect(await s.courier.ordersCreatedFor(heavy)).toBe(0);
    expect(await s.app.db.delivery.count({ where: { shopifyOrderId: UNKNOWN } })).toBe(0);
  });

  it('the same never-received order dispatched from several places at once: every request answered, one delivery, one courier order', async () => {
    const payload = paidOrder();
    sim.addOrder(payload);
    const id = orderIdOfPayload(payload);
    const answers = await Promise.all([1, 2, 3, 4].map(() => api.post('/api/bulk', { action: 'dispatch', orderIds: [id] })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    // One records and queues it; the others find it queued (the table refuses a second dispatch), none fails.
    const codes = answers.map((a) => (a.body as BulkResult).results[0]!.code);
    expect(codes.filter((c) => c === null).length).toBeGreaterThanOrEqual(1);
    expect(codes.every((c) => c === null || c === 'not_allowed')).toBe(true);
    await waitForStatus(s.app, shop, id, 'CREATED');
    await settled(id);
    expect(await s.app.db.delivery.count({ where: { shop: { domain: shop }, shopifyOrderId: id } })).toBe(1);
    expect(await s.courier.ordersCreatedFor(id)).toBe(1);
  });

  it('bulk retry: allowed where the table allows it, refused elsewhere; an order the app holds no delivery for is not found', async () => {
    const bookedBefore = await snapshot(booked);
    const r = await api.post('/api/bulk', { action: 'retry', orderIds: [heavy, booked, UNKNOWN] });
    expect(r.status).toBe(200);
    const res = byOrder(r.body);
    // PENDING, or already refused again if the job was quicker than this answer.
    expect(res[heavy]).toMatchObject({ outcome: 'ok', message: 'Queued again', status: expect.stringMatching(/^(PENDING|NEEDS_ATTENTION)$/) });
    expect(res[booked]).toMatchObject({ outcome: 'refused', code: 'not_allowed', message: 'delivery is CREATED; nothing to retry' });
    expect(res[UNKNOWN]).toMatchObject({ outcome: 'not_found', deliveryId: null });
    await waitForStatus(s.app, shop, heavy, 'NEEDS_ATTENTION');
    expect(await snapshot(booked)).toEqual(bookedBefore);
  });

  it('bulk quote prices each order and books nothing: no courier order, no delivery recorded', async () => {
    const inShopifyOnly = paidOrder();
    sim.addOrder(inShopifyOnly);
    const fresh = orderIdOfPayload(inShopifyOnly);
    const before = { courier: (await s.courier.stats()).ordersCreated, deliveries: await s.app.db.delivery.count(), events: await s.app.db.deliveryEvent.count() };
    const bookedPrice = (await snapshot(booked))!.deliveryPrice;

    const r = await api.post('/api/bulk', { action: 'quote', orderIds: [booked, fresh, heavy, UNKNOWN] });
    expect(r.status).toBe(200);
    const res = byOrder(r.body);
    expect(res[booked]).toMatchObject({ outcome: 'ok', status: 'CREATED', quote: { environment: 'test', price: bookedPrice, currency: 'ZAR', aboveMax: false } });
    expect(res[fresh]).toMatchObject({ outcome: 'ok', deliveryId: null, status: null, orderName: inShopifyOnly.name, quote: { price: expect.stringMatching(/^\d+\.\d{2}$/) } });
    expect(res[heavy]).toMatchObject({ outcome: 'refused', code: 'courier_rejected', message: expect.stringMatching(/^Courier: .*weightKg/), quote: null });
    expect(res[UNKNOWN]).toMatchObject({ outcome: 'not_found' });
    expect(r.body.counts).toEqual({ ok: 2, refused: 1, not_found: 1 });

    expect((await s.courier.stats()).ordersCreated).toBe(before.courier);
    expect(await s.app.db.delivery.count()).toBe(before.deliveries);
    expect(await s.app.db.deliveryEvent.count()).toBe(before.events);
  });
});

describe('the orders-list extension', () => {
  // What the admin does for an extension: relative URLs go to the app, with the session token added.
  const asShopify: typeof fetch = (path, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${sessionToken(shop)}`);
    return fetch(`${s.app.url}${String(path)}`, { ...init, headers });
  };

  it("its request code, with the selection's GIDs, gets one result per order from the endpoint", async () => {
    const booked = (await placeOrder(s, sim)).orderId;
    await waitForStatus(s.app, shop, booked, 'CREATED');
    const r = await sendBulk(bulkRequest('quote', [{ id: `gid://shopify/Order/${booked}` }, { id: `gid://shopify/Order/${UNKNOWN}` }]), asShopify);
    expect(r.results.map((x) => [x.orderId, x.outcome])).toEqual([[booked, 'ok'], [UNKNOWN, 'not_found']]);
    await expect(sendBulk({ action: 'quote', orderIds: [] }, asShopify)).rejects.toThrow('Bulk request not valid: orderIds');
  });
});

describe('bad requests', () => {
  it('400 naming the field, and nothing runs', async () => {
    const count = await s.app.db.delivery.count();
    const tooMany = await api.post('/api/bulk', { action: 'dispatch', orderIds: Array.from({ length: 51 }, (_, i) => String(1000 + i)) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual({ orderIds: 'at most 50 orders at a time (got 51)' });
    const badAction = await api.post('/api/bulk', { action: 'cancel', orderIds: ['1'] });
    expect(badAction.status).toBe(400);
    expect(Object.keys(badAction.body.errors)).toEqual(['action']);
    const badId = await api.post('/api/bulk', { action: 'quote', orderIds: ['1', 'gid://shopify/Product/2'] });
    expect(badId.body.errors).toEqual({ 'orderIds.1': 'expected a numeric Shopify order id or its GID' });
    expect(await s.app.db.delivery.count()).toBe(count);
  });

  it('needs a session token', async () => {
    const r = await fetch(`${s.app.url}/api/bulk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'quote', orderIds: ['1'] }) });
    expect(r.status).toBe(401);
  });
});

describe('the CLI', () => {
  it('runs the same service: quote per order, and the request check naming the field', async () => {
    const { cliOf } = await import('../support/cli.ts');
    const cli = cliOf(s);
    const booked = (await placeOrder(s, sim)).orderId;
    await waitForStatus(s.app, shop, booked, 'CREATED');
    const created = (await s.courier.stats()).ordersCreated;
    const r = await cli('bulk', shop, 'quote', booked, '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'quote', counts: { ok: 1, refused: 0, not_found: 0 }, results: [{ orderId: booked, outcome: 'ok', quote: { currency: 'ZAR' } }] });
    expect((await s.courier.stats()).ordersCreated).toBe(created);
    const bad = await cli('bulk', shop, 'cancel', booked);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/action: expected one of dispatch, retry, quote/);
  }, 60_000);
});
