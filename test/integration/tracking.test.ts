// The customer tracking page end to end: the sandbox courier delivers, the shop
// simulator (Shopify) receives fulfillmentCreate with the page as tracking URL,
// and the app serves /track/<token> over real HTTP. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseDeliveryPersonalData } from '../../web/privacy/erase.ts';
import { updateSettings } from '../../web/settings/store.ts';
import { adminClient } from '../support/admin-client.ts';
import { waitFor } from '../support/process.ts';
import { connectCourierAccount, deliveryOf, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

// Each test has its own shop; the courier's settings are never changed, so no reset between tests.
let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ sandbox: { webhooksEnabled: true } });
});
afterAll(() => s?.close());

const DAY = 86_400_000;

async function deliveredOrder(domain: string, settings: Record<string, unknown> = {}) {
  const sim = await installShop(s, domain, { settings: { fulfillment: { courierName: 'Swift Couriers' }, ...settings } });
  await connectCourierAccount(s, domain);
  const { orderId } = await placeOrder(s, sim);
  const booked = await waitForStatus(s.app, domain, orderId, 'CREATED');
  await s.courier.advance(booked.courierOrderId!, { to: 'delivered' });
  await waitForStatus(s.app, domain, orderId, 'DELIVERED');
  const fulfillment = await waitFor(async () => sim.order(orderId)!.fulfillments[0], 'the Shopify fulfillment');
  return { sim, orderId, fulfillment, delivery: (await deliveryOf(s.app, domain, orderId))! };
}

const page = async (path: string) => {
  const r = await fetch(`${s.app.url}${path}`);
  return { status: r.status, headers: r.headers, body: await r.text() };
};
const pathOf = (url: string) => new URL(url).pathname;

// What must never be on the page: the rest of the address, the contact details, the ids.
const PRIVATE = ['Nkosi', '12 Rivonia Road', 'Sandhurst', '2196', '555', 'thandi.nkosi@example.co.za'];

describe('tracking URL in the Shopify fulfillment', () => {
  it('is the tracking page by default: a random token that is not the delivery id', async () => {
    const { fulfillment, delivery } = await deliveredOrder('track-default.myshopify.com');
    expect(delivery.trackingToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(fulfillment.trackingInfo).toEqual({ company: 'Swift Couriers', number: delivery.dispatchJobId, url: `https://app.example.test/track/${delivery.trackingToken}` });
    for (const id of [delivery.id, delivery.shopifyOrderId, delivery.courierOrderId!, delivery.dispatchJobId!]) expect(delivery.trackingToken).not.toContain(id);
    // The merchant's admin links to the same page.
    const detail = await adminClient(s.app.url, 'track-default.myshopify.com').get(`/api/deliveries/${delivery.id}`);
    expect(detail.body.delivery.trackingUrl).toBe(fulfillment.trackingInfo.url);
  });

  it("the merchant's own template wins, and no token is made", async () => {
    const { fulfillment, delivery } = await deliveredOrder('track-template.myshopify.com', { fulfillment: { trackingUrlTemplate: 'https://track.example.com/{jobId}' } });
    expect(fulfillment.trackingInfo.url).toBe(`https://track.example.com/${delivery.dispatchJobId}`);
    expect(delivery.trackingToken).toBeNull();
  });
});

describe('GET /track/:token', () => {
  it('found: status timeline, courier, last update, suburb and first name only; noindex, strict CSP, no cache', async () => {
    const { fulfillment } = await deliveredOrder('track-found.myshopify.com');
    const r = await page(pathOf(fulfillment.trackingInfo.url!));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toContain('<meta name="robots" content="noindex,nofollow">');
    expect(r.body).toMatch(/<h1>Delivered<\/h1>/);
    for (const label of ['Order received', 'Driver assigned', 'Picked up', 'On the way', 'Out for delivery', 'Delivered', 'Swift Couriers', 'Sandton', 'Hi Thandi', 'Last update']) expect(r.body).toContain(label);
    for (const p of PRIVATE) expect(r.body).not.toContain(p);
    expect(r.body).not.toMatch(/<script|<link|<img|src=/);
    // The token is a credential: the access log masks it.
    const token = pathOf(fulfillment.trackingInfo.url!).split('/').pop()!;
    await waitFor(async () => s.app.logs.some((l) => l.includes('"path":"/track/<token>"')), 'the access log line');
    expect(s.app.logs.filter((l) => l.includes(token))).toEqual([]);
  });

  it('unknown and malformed tokens: the same 404 page, no database detail', async () => {
    const unknown = await page(`/track/${'A'.repeat(32)}`);
    const malformed = await page('/track/not-a-token');
    const id = await page(`/track/${(await s.app.db.delivery.findFirstOrThrow()).id}`);
    for (const r of [unknown, malformed, id]) {
      expect(r.status).toBe(404);
      expect(r.body).toContain('Tracking page not found');
      expect(r.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    }
    expect(malformed.body).toBe(unknown.body);
  });

  it('expired: 410 once the setting\'s days have passed since delivery, with no delivery data', async () => {
    const domain = 'track-expired.myshopify.com';
    const { fulfillment, delivery } = await deliveredOrder(domain, { tracking: { expiryDays: 3 } });
    const path = pathOf(fulfillment.trackingInfo.url!);
    expect((await page(path)).status).toBe(200);
    // Delivered 2 days ago: still live. 4 days ago: past the shop's 3 days.
    const shift = async (days: number) => {
      for (const e of await s.app.db.deliveryEvent.findMany({ where: { deliveryId: delivery.id } })) {
        await s.app.db.deliveryEvent.update({ where: { id: e.id }, data: { occurredAt: new Date(e.occurredAt.getTime() - days * DAY) } });
      }
    };
    await shift(2);
    expect((await page(path)).status).toBe(200);
    await shift(2);
    const r = await page(path);
    expect(r.status).toBe(410);
    expect(r.body).toContain('This tracking link has expired');
    for (const text of ['Sandton', 'Thandi', 'Swift', 'Delivered</h1>']) expect(r.body).not.toContain(text);
    // A longer setting brings it back.
    await updateSettings(s.app.db, domain, { tracking: { expiryDays: 30 } });
    expect((await page(path)).status).toBe(200);
  });

  it('redacted: after the personal data is erased the page still answers, with no address data', async () => {
    const { fulfillment, delivery } = await deliveredOrder('track-redacted.myshopify.com');
    await s.app.db.$transaction((tx) => eraseDeliveryPersonalData(tx, delivery));
    const r = await page(pathOf(fulfillment.trackingInfo.url!));
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/<h1>Delivered<\/h1>/);
    for (const text of ['Sandton', 'Thandi', 'Delivering to', ...PRIVATE]) expect(r.body).not.toContain(text);
  });
});
