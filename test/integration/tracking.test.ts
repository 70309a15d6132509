// The customer tracking page end to end: the sandbox courier delivers, the shop
// simulator (Shopify) receives fulfillmentCreate with the page as tracking URL,
// and the app serves /track/<token> over real HTTP. SQLite and PostgreSQL.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseDeliveryPersonalData } from '../../web/privacy/erase.ts';
import { updateSettings } from '../../web/settings/store.ts';
import { dateFormats } from '../../web/i18n/format.ts';
import { ensureTrackingToken } from '../../web/tracking/store.ts';
import type { SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { adminClient } from '../support/admin-client.ts';
import { waitFor } from '../support/process.ts';
import { connectCourierAccount, deliveryOf, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

// Each test has its own shop; the courier's settings are never changed, so no reset between tests.
let s: Scenario;
beforeAll(async () => {
  // The only trusted proxy is 127.0.0.2 (any other 127.x peer is a client speaking for itself).
  s = await startScenario({ sandbox: { webhooksEnabled: true }, env: { TRUST_PROXY: '127.0.0.2' } });
});
afterAll(() => s?.close());

const DAY = 86_400_000;

async function deliveredOrder(domain: string, settings: Record<string, unknown> = {}, opts: { order?: Record<string, unknown>; shop?: (sim: SimShop) => void } = {}) {
  const sim = await installShop(s, domain, { settings: { fulfillment: { courierName: 'Swift Couriers' }, ...settings } });
  opts.shop?.(sim);
  await connectCourierAccount(s, domain);
  const { orderId } = await placeOrder(s, sim, opts.order);
  const booked = await waitForStatus(s.app, domain, orderId, 'CREATED');
  await s.courier.advance(booked.courierOrderId!, { to: 'delivered' });
  await waitForStatus(s.app, domain, orderId, 'DELIVERED');
  // The courier's earlier statuses may still wait in their jobs when DELIVERED lands: wait for all of them.
  await waitFor(async () => (await s.app.db.courierEvent.count({ where: { environment: { shop: { domain } }, state: 'RECEIVED' } })) === 0 || null, 'every courier event applied');
  const fulfillment = await waitFor(async () => sim.order(orderId)!.fulfillments[0], 'the Shopify fulfillment');
  return { sim, orderId, fulfillment, delivery: (await deliveryOf(s.app, domain, orderId))! };
}

const page = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(`${s.app.url}${path}`, { headers });
  return { status: r.status, headers: r.headers, body: await r.text() };
};
const pathOf = (url: string) => new URL(url).pathname;

/** GET from a chosen local address: 127.0.0.0/8 is all loopback, so each is a different peer. */
function getFrom(localAddress: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${s.app.url}${path}`, { localAddress, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// What must never be on the page: the rest of the address, the contact details, the ids.
// The phone in each form the order carries it (a bare '555' also matches a timestamp's milliseconds).
const PRIVATE = ['Nkosi', '12 Rivonia Road', 'Sandhurst', '2196', '5551234', '555 1234', 'thandi.nkosi@example.co.za'];

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
  it("found: status timeline, courier, last update, suburb and first name only; the store's name and contact from Shopify; noindex, strict CSP, no cache", async () => {
    const { fulfillment } = await deliveredOrder('track-found.myshopify.com');
    const r = await page(pathOf(fulfillment.trackingInfo.url!));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toContain('<meta name="robots" content="noindex,nofollow">');
    expect(r.body).toMatch(/<h1>Delivered<\/h1>/);
    for (const label of ['Order received', 'Driver assigned', 'Picked up', 'On the way', 'Out for delivery', 'Delivered', 'Swift Couriers', 'Sandton', 'Hi Thandi', 'Last update']) expect(r.body).toContain(label);
    for (const p of PRIVATE) expect(r.body).not.toContain(p);
    // The store as Shopify names it (the simulated shop's ShopProfile), and how to reach it.
    expect(r.body).toContain('<p class="shop">Track Found · Order #');
    expect(r.body).toContain('<a href="mailto:hello@track-found.example">hello@track-found.example</a>');
    expect(r.body).toContain('<a href="tel:+27105001234">+27 10 500 1234</a>');
    expect(r.body).not.toMatch(/<link|<img|src=|http-equiv/);
    // Delivered: nothing left to check for, so no script and no estimate.
    expect(r.body).not.toMatch(/<script|Expected delivery/);
    expect(r.headers.get('content-language')).toBe('en');
    // Times on the shop's clock: the simulated shop is in Africa/Johannesburg (UTC+2, no summer time).
    const times = [...r.body.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)];
    expect(times.length).toBeGreaterThan(5);
    // A time not of the page's day comes after its weekday and date: so the check reads across the shop's midnight.
    for (const [, iso, shown] of times) expect(shown).toMatch(new RegExp(`(^|\\D)${new Date(Date.parse(iso!) + 2 * 3_600_000).toISOString().slice(11, 16)}$`));
    expect(r.body).toContain('Times are in South Africa Standard Time.');
    // The token is a credential: the access log masks it.
    const token = pathOf(fulfillment.trackingInfo.url!).split('/').pop()!;
    await waitFor(async () => s.app.logs.some((l) => l.includes('"path":"/track/<token>"')), 'the access log line');
    expect(s.app.logs.filter((l) => l.includes(token))).toEqual([]);
  });

  it("speaks the order's customer locale, over the shop's and the browser's; dates in it", async () => {
    const { fulfillment } = await deliveredOrder('track-de.myshopify.com', {}, { order: { customer_locale: 'de' }, shop: (sim) => (sim.profile.primaryLocale = 'fr') });
    const r = await page(pathOf(fulfillment.trackingInfo.url!), { 'Accept-Language': 'es-ES,es;q=0.9' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-language')).toBe('de');
    expect(r.body).toContain('<html lang="de">');
    for (const text of ['<h1>Zugestellt</h1>', 'Bestellung eingegangen', 'Hallo Thandi', 'Kurier', 'Zeitangaben: Südafrikanische Zeit.', 'Fragen zu Ihrer Bestellung?']) expect(r.body).toContain(text);
    expect(r.body).not.toMatch(/Delivered|Order received|Livrée|Entregado/);
  });

  it("without a customer locale: the shop's primary locale; without a shipped one: Accept-Language", async () => {
    const fr = await deliveredOrder('track-fr.myshopify.com', {}, { order: { customer_locale: null }, shop: (sim) => (sim.profile.primaryLocale = 'fr-CA') });
    const r = await page(pathOf(fr.fulfillment.trackingInfo.url!), { 'Accept-Language': 'es' });
    expect(r.headers.get('content-language')).toBe('fr');
    expect(r.body).toContain('<h1>Livrée</h1>');

    const es = await deliveredOrder('track-es.myshopify.com', {}, { order: { customer_locale: 'ja' }, shop: (sim) => (sim.profile.primaryLocale = 'ja') });
    const e = await page(pathOf(es.fulfillment.trackingInfo.url!), { 'Accept-Language': 'pt-BR, es;q=0.8, en;q=0.5' });
    expect(e.headers.get('content-language')).toBe('es');
    expect(e.body).toContain('<h1>Entregado</h1>');
    expect((await page(pathOf(es.fulfillment.trackingInfo.url!))).body).toContain('<h1>Delivered</h1>');
  });

  it('before a driver is assigned: the expected window from the booking and the usual time, labelled as an estimate, and the live update', async () => {
    const domain = 'track-estimate.myshopify.com';
    const sim = await installShop(s, domain, { settings: { tracking: { estimateMinutes: 60 } } });
    await connectCourierAccount(s, domain);
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, domain, orderId, 'CREATED');
    const r = await page(`/track/${await ensureTrackingToken(s.app.db, booked.id)}`);
    expect(r.status).toBe(200);
    expect(r.body).toContain('<h1>Booked with the courier</h1>');
    const from = booked.dispatchedAt!;
    const window = dateFormats('en-ZA', 'Africa/Johannesburg').window(from, new Date(from.getTime() + 60 * 60_000), Date.now());
    expect(r.body).toContain(`<h2 id="estimate-h">Expected delivery</h2><p class="window">${window}</p><p class="note">An estimate,`);
    expect(r.body).toMatch(/<script>[\s\S]+<\/script>/);
    expect(r.body).toContain('data-poll="30"');
    expect(r.body).toContain('role="status"');
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
    // In the browser's language: nothing else is known.
    const de = await page(`/track/${'A'.repeat(32)}`, { 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5' });
    expect(de.body).toContain('<h1>Sendungsverfolgung nicht gefunden</h1>');
  });

  it('a shop that uninstalled the app: 404 naming the store and how to reach it, no delivery data', async () => {
    const domain = 'track-gone.myshopify.com';
    const { fulfillment } = await deliveredOrder(domain, {}, { shop: (sim) => (sim.profile.name = 'Gone Flowers') });
    const path = pathOf(fulfillment.trackingInfo.url!);
    expect((await page(path)).status).toBe(200);
    await s.app.db.shop.update({ where: { domain }, data: { uninstalledAt: new Date() } });
    const r = await page(path);
    expect(r.status).toBe(404);
    expect(r.body).toContain('This delivery from Gone Flowers can no longer be tracked here.');
    expect(r.body).toContain('mailto:hello@track-gone.example');
    for (const text of ['Sandton', 'Thandi', 'Swift', 'Delivered']) expect(r.body).not.toContain(text);
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
    // The store is named, with its contact: the customer's way to ask about the order.
    expect(r.body).toContain('Track Expired can help with any question about your order.');
    expect(r.body).toContain('mailto:hello@track-expired.example');
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

// Last: it uses up its clients' allowance for the minute.
describe('rate limit on /track/*: 60 a minute per client IP', () => {
  const path = '/track/not-a-token';

  it('the 61st request answers 429 with Retry-After and a page saying to try again; a spoofed X-Forwarded-For from an untrusted peer changes nothing', async () => {
    // Each from a different forwarded address: if the header were believed, no client would reach the limit.
    for (let i = 0; i < 60; i++) expect((await getFrom('127.0.0.3', path, { 'X-Forwarded-For': `203.0.113.${i}` })).status).toBe(404);
    const r = await getFrom('127.0.0.3', path, { 'X-Forwarded-For': '198.51.100.99' });
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(r.headers['ratelimit-policy']).toBe('60;w=60');
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    expect(r.body).toContain('Please try again in a minute.');
    // Another client is not limited.
    expect((await getFrom('127.0.0.4', path)).status).toBe(404);
  });

  it('behind the trusted proxy, each forwarded client has its own allowance', async () => {
    for (let i = 0; i < 60; i++) expect((await getFrom('127.0.0.2', path, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(404);
    expect((await getFrom('127.0.0.2', path, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(429);
    // The same proxy, another customer: not limited. Only the proxy's own hop is believed, not what the client wrote before it.
    expect((await getFrom('127.0.0.2', path, { 'X-Forwarded-For': '198.51.100.8' })).status).toBe(404);
    expect((await getFrom('127.0.0.2', path, { 'X-Forwarded-For': '198.51.100.7, 198.51.100.9' })).status).toBe(404);
  });
});
