// Delivery slots end to end (web/slots/): the app proxy answers the cart block's slots with the
// places left, signed by Shopify or refused; an order paid with a chosen slot is SCHEDULED for the
// slot's start minus the lead time and booked then; an invalid slot follows the shop's setting; and
// the capacity holds under concurrent orders. Real app and queue, the sandbox courier, the Shopify
// simulator; SQLite and PostgreSQL.
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { startTestApp, TEST_API_SECRET } from '../support/app.ts';
import { testProvider } from '../support/db.ts';
import { TestClock } from '../support/time.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { updateSettings } from '../../web/settings/store.ts';
import { retryDelivery } from '../../web/dispatch/service.ts';
import { claimPlace } from '../../web/slots/capacity.ts';
import { trackingUrlFor } from '../../web/tracking/store.ts';
import { adminClient } from '../support/admin-client.ts';

/** Thursday 08:00 in Johannesburg (UTC+2, no DST). */
const START = '2026-11-26T06:00:00Z';
const clock = new TestClock(START);
let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ runtime: { clock } });
});
afterAll(async () => {
  await s?.close();
});
afterEach(async () => {
  // A delivery left scheduled would be booked when a later test moves the clock.
  await s.app.db.delivery.deleteMany({ where: { status: 'SCHEDULED' } });
  clock.moveTo(START);
});

const DAY = { open: '08:00', close: '18:00' };
const WINDOWS = { default: { timeZone: 'Africa/Johannesburg', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY }, cutoff: '16:00', closures: [], prepMinutes: 30 } };
const SLOTS = { enabled: true, slotMinutes: 120, daysAhead: 6, capacity: 2, leadMinutes: 60, invalidSlot: 'attention' };
/** Friday 10:30–12:30 local: booked at 09:30 local (07:30 UTC). */
const FRIDAY = '2026-11-27T08:30:00.000Z/2026-11-27T10:30:00.000Z';
const slotAttrs = (value: string) => ({ note_attributes: [{ name: '_delivery_slot', value }, { name: 'Delivery slot', value: 'Fri 27 Nov, 10:30–12:30' }] });

/** Shopify's app proxy query, signed as shopify.dev documents (written out here, apart from the product's verifier). */
function proxyUrl(shop: string, extra: Record<string, string> = {}, opts: { secret?: string; timestamp?: number; unsigned?: boolean } = {}): string {
  const params: Record<string, string> = { shop, logged_in_customer_id: '', path_prefix: '/apps/same-day', timestamp: String(Math.floor((opts.timestamp ?? clock.now()) / 1000)), ...extra };
  const message = Object.keys(params).map((k) => `${k}=${params[k]}`).sort().join('');
  const q = new URLSearchParams(params);
  if (!opts.unsigned) q.set('signature', createHmac('sha256', opts.secret ?? TEST_API_SECRET).update(message).digest('hex'));
  return `${s.app.url}/storefront/slots?${q}`;
}
async function get(url: string) {
  const r = await fetch(url);
  return { status: r.status, cache: r.headers.get('cache-control'), body: await r.json() as any };
}

describe('the app proxy: GET /storefront/slots', () => {
  const SHOP = 'slots-proxy.myshopify.com';
  beforeAll(async () => {
    await installShop(s, SHOP, { settings: { windows: WINDOWS, slots: SLOTS } });
  });

  it('answers the slots with the places left and a short cache', async () => {
    const r = await get(proxyUrl(SHOP));
    expect(r.status).toBe(200);
    expect(r.cache).toBe('private, max-age=15');
    expect(r.body).toMatchObject({ enabled: true, asap: true, timeZone: 'Africa/Johannesburg', location: null });
    // Today: 08:30 is gone (its booking at 07:30 local has passed); the weekend has no slots.
    expect(r.body.days.map((d: any) => d.date)).toEqual(['2026-11-26', '2026-11-27', '2026-11-30', '2026-12-01', '2026-12-02']);
    expect(r.body.days[0].slots.map((x: any) => x.start)).toEqual(['2026-11-26T08:30:00.000Z', '2026-11-26T10:30:00.000Z', '2026-11-26T12:30:00.000Z']);
    expect(r.body.days[1].slots[1]).toEqual({ value: FRIDAY, start: '2026-11-27T08:30:00.000Z', end: '2026-11-27T10:30:00.000Z', remaining: 2, full: false });
  });

  it('a slot drops out at its booking time, to the instant (not the minute)', async () => {
    clock.moveTo('2026-11-26T07:29:30Z');
    expect((await get(proxyUrl(SHOP))).body.days[0].slots[0].start).toBe('2026-11-26T08:30:00.000Z');
    // Booked at 07:30:00: half a minute later it is gone, though the minute's slots were generated at 07:30:00.
    clock.moveTo('2026-11-26T07:30:30Z');
    expect((await get(proxyUrl(SHOP))).body.days[0].slots[0].start).toBe('2026-11-26T10:30:00.000Z');
  });

  it('a full slot is listed as full', async () => {
    const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    await s.app.db.slotCount.create({ data: { shopId: shop.id, windowKey: 'default', slotStart: '2026-11-27T08:30:00.000Z', count: 2 } });
    const r = await get(proxyUrl(SHOP));
    expect(r.body.days[1].slots[1]).toMatchObject({ value: FRIDAY, remaining: 0, full: true });
    expect(r.body.days[1].slots[0]).toMatchObject({ remaining: 2, full: false });
  });

  it.each<[string, () => string]>([
    ['unsigned', () => proxyUrl(SHOP, {}, { unsigned: true })],
    ['forged (another secret)', () => proxyUrl(SHOP, {}, { secret: 'not-the-app-secret' })],
    ['stale (two minutes old)', () => proxyUrl(SHOP, {}, { timestamp: clock.now() - 120_000 })],
    ['a parameter added after signing', () => `${proxyUrl(SHOP)}&location=5`],
  ])('%s: 401, learning nothing', async (_name, url) => {
    const r = await get(url());
    expect(r).toEqual({ status: 401, cache: 'no-store', body: { error: 'unauthorized' } });
  });

  it('an unknown or uninstalled shop: a JSON error, never a 500', async () => {
    expect(await get(proxyUrl('stranger.myshopify.com'))).toMatchObject({ status: 404, body: { error: 'shop_not_installed' } });
    await installShop(s, 'slots-gone.myshopify.com', { settings: { windows: WINDOWS, slots: SLOTS } });
    await s.app.db.shop.update({ where: { domain: 'slots-gone.myshopify.com' }, data: { uninstalledAt: new Date() } });
    expect(await get(proxyUrl('slots-gone.myshopify.com'))).toMatchObject({ status: 404, body: { error: 'shop_not_installed' } });
  });

  it('bad input is a 400 naming the field', async () => {
    expect(await get(proxyUrl(SHOP, { location: 'north' }))).toMatchObject({ status: 400, body: { field: 'location' } });
    expect(await get(proxyUrl('evil.example.com'))).toMatchObject({ status: 400, body: { field: 'shop' } });
  });

  it('slots off: ASAP only', async () => {
    await installShop(s, 'slots-off.myshopify.com', { settings: { windows: WINDOWS } });
    expect((await get(proxyUrl('slots-off.myshopify.com'))).body).toEqual({ enabled: false, asap: true, timeZone: 'Africa/Johannesburg', location: null, days: [] });
  });
});

describe('orders/paid with a chosen slot', () => {
  it('is SCHEDULED at the slot start minus the lead time, takes a place, and is booked then', async () => {
    const shop = 'slots-valid.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: SLOTS } });
    const { orderId } = await placeOrder(s, sim, slotAttrs(FRIDAY));
    const d = await waitForStatus(s.app, shop, orderId, 'SCHEDULED');
    expect(d.scheduledFor?.toISOString()).toBe('2026-11-27T07:30:00.000Z');
    expect([d.slotStart?.toISOString(), d.slotEnd?.toISOString(), d.slotKey]).toEqual(['2026-11-27T08:30:00.000Z', '2026-11-27T10:30:00.000Z', 'default']);
    expect(d.reasonCode).toBe('delivery_slot');
    expect(d.reason).toBe('Delivery slot Fri 2026-11-27 10:30–12:30 (Africa/Johannesburg): booking with the courier at Fri 2026-11-27 09:30 (Africa/Johannesburg)');
    expect(d.events.map((e) => e.kind)).toContain('slot_scheduled');
    expect(await s.app.db.slotCount.findMany({ where: { shop: { domain: shop } }, select: { slotStart: true, count: true } })).toEqual([{ slotStart: '2026-11-27T08:30:00.000Z', count: 1 }]);
    expect(await s.courier.orders()).toHaveLength(0);
    // Shown on the delivery page and the order block (one admin view), and on the tracking page as the expected window.
    const view = await adminClient(s.app.url, shop).get(`/api/orders/${orderId}/delivery`);
    expect(view.body.delivery.slot).toEqual({ start: '2026-11-27T08:30:00.000Z', end: '2026-11-27T10:30:00.000Z' });
    const page = await (await fetch(await trackingUrlFor(s.app.db, s.app.url, d.id))).text();
    expect(page).toContain('An estimate: the delivery slot you chose at checkout.');
    // The shop's Shopify budget coming back hurries its waiting dispatch jobs, not the slot's: run now, it would end with nothing to do.
    expect(await s.app.ctx.queue.hurry('dispatch', d.shopId)).toBe(0);

    clock.moveTo('2026-11-27T07:30:01Z');
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(booked.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['slot_scheduled', 'window_opened', 'created']));
    expect(await s.courier.orders()).toHaveLength(1);
    // Counted once, however many times the job ran.
    expect((await s.app.db.slotCount.findFirstOrThrow({ where: { shop: { domain: shop } } })).count).toBe(1);
  });

  it('cancelled before booking: its place goes back, once', async () => {
    const shop = 'slots-cancel.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: SLOTS } });
    const { orderId, payload } = await placeOrder(s, sim, slotAttrs(FRIDAY));
    await waitForStatus(s.app, shop, orderId, 'SCHEDULED');
    const count = async () => (await s.app.db.slotCount.findFirstOrThrow({ where: { shop: { domain: shop } } })).count;
    expect(await count()).toBe(1);
    for (const id of ['cancel-1', 'cancel-2']) {
      const r = await postShopifyWebhook(s.app.url, 'orders/cancelled', shop, { ...payload, cancelled_at: new Date(clock.now()).toISOString() }, { webhookId: id });
      expect(r.status).toBe(200);
    }
    expect((await waitForStatus(s.app, shop, orderId, 'SKIPPED')).slotKey).toBe('released');
    expect(await count()).toBe(0);
  });

  it('no slot, or ASAP: booked at once, as before', async () => {
    const shop = 'slots-asap.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: SLOTS } });
    const a = await placeOrder(s, sim);
    const b = await placeOrder(s, sim, slotAttrs('asap'));
    for (const o of [a, b]) expect((await waitForStatus(s.app, shop, o.orderId, 'CREATED')).slotStart).toBeNull();
  });

  it('a past slot needs attention with the reason; retry books it as soon as possible', async () => {
    const shop = 'slots-past.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: SLOTS } });
    const { orderId } = await placeOrder(s, sim, slotAttrs('2026-11-26T06:30:00.000Z/2026-11-26T08:30:00.000Z'));
    const d = await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION');
    expect(d.reasonCode).toBe('slot_unavailable');
    expect(d.reason).toBe('The chosen delivery slot Thu 2026-11-26 08:30–10:30 (Africa/Johannesburg) is no longer available: its booking time has passed. Retry books it as soon as possible');
    await s.app.db.$transaction((tx) => retryDelivery(tx, s.app.ctx.queue, shop, d.id));
    s.app.ctx.queue.notify();
    expect((await waitForStatus(s.app, shop, orderId, 'CREATED')).slotStart).toBeNull();
  });

  it('a closed slot, the shop set to "as soon as possible": booked at once, with the reason on the timeline', async () => {
    const shop = 'slots-closed-asap.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: { ...SLOTS, invalidSlot: 'asap' } } });
    const { orderId } = await placeOrder(s, sim, slotAttrs('2026-11-28T08:30:00.000Z/2026-11-28T10:30:00.000Z'));
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(d.events.find((e) => e.kind === 'slot_declined')?.message).toBe("The chosen delivery slot Sat 2026-11-28 10:30–12:30 (Africa/Johannesburg) is no longer available: the location is closed then; booking as soon as possible (the shop's setting)");
  });

  it('a full slot needs attention, naming it full', async () => {
    const shop = 'slots-full.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: { ...SLOTS, capacity: 1 } } });
    const first = await placeOrder(s, sim, slotAttrs(FRIDAY));
    await waitForStatus(s.app, shop, first.orderId, 'SCHEDULED');
    const second = await placeOrder(s, sim, slotAttrs(FRIDAY));
    const d = await waitForStatus(s.app, shop, second.orderId, 'NEEDS_ATTENTION');
    expect(d.reason).toMatch(/^The chosen delivery slot Fri 2026-11-27 10:30–12:30 \(Africa\/Johannesburg\) is full \(1 orders\)/);
    expect(d.slotStart).toBeNull();
  });

  it('a value that is not a slot follows the same setting', async () => {
    const shop = 'slots-garbage.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: SLOTS } });
    const { orderId } = await placeOrder(s, sim, slotAttrs('next tuesday'));
    expect((await waitForStatus(s.app, shop, orderId, 'NEEDS_ATTENTION')).reason).toMatch(/\("next tuesday"\) is not one the cart offers/);
  });
});

describe('capacity under concurrency', () => {
  it('concurrent orders for one slot: exactly the capacity is scheduled, the rest need attention', async () => {
    const shop = 'slots-race.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: { ...SLOTS, capacity: 3 } } });
    const orders = await Promise.all(Array.from({ length: 10 }, () => placeOrder(s, sim, slotAttrs(FRIDAY))));
    const ends = await Promise.all(orders.map((o) => waitForStatus(s.app, shop, o.orderId, ['SCHEDULED', 'NEEDS_ATTENTION'])));
    expect(ends.filter((d) => d.status === 'SCHEDULED')).toHaveLength(3);
    expect((await s.app.db.slotCount.findFirstOrThrow({ where: { shop: { domain: shop } } })).count).toBe(3);
  });

  it('claims racing in separate transactions never pass the capacity', async () => {
    const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain: 'slots-race.myshopify.com' } });
    const start = Date.parse('2026-12-01T08:30:00Z');
    const won = await Promise.all(Array.from({ length: 24 }, () => s.app.db.$transaction((tx) => claimPlace(tx, shop.id, 'default', start, 5))));
    expect(won.filter(Boolean)).toHaveLength(5);
    expect((await s.app.db.slotCount.findFirstOrThrow({ where: { shopId: shop.id, slotStart: new Date(start).toISOString() } })).count).toBe(5);
  });
});

describe('a moved clock', () => {
  it('wakes a running app, never a closed one (its database is closed: a query would open it again)', async () => {
    const listening = clock.listeners;
    const other = await startTestApp({}, { runtime: { clock } });
    expect(clock.listeners).toBe(listening + 1);
    await other.close();
    expect(clock.listeners).toBe(listening);
  });
});

describe.runIf(testProvider() === 'postgres')('capacity across two app instances on one PostgreSQL database', () => {
  it('12 orders for one slot, sent to both instances: exactly the capacity is scheduled', async () => {
    const second = await startTestApp({ ...s.app.env, PORT: '0' }, { databaseUrl: s.app.config.databaseUrl, keepDatabase: true, runtime: { clock } });
    try {
      const shop = 'slots-two.myshopify.com';
      const sim = await installShop(s, shop, { settings: { windows: WINDOWS, slots: { ...SLOTS, capacity: 4 } } });
      const orders = await Promise.all(Array.from({ length: 12 }, (_, i) => placeOrder(s, sim, slotAttrs(FRIDAY), { appUrl: i % 2 ? second.url : s.app.url })));
      const ends = await Promise.all(orders.map((o) => waitForStatus(s.app, shop, o.orderId, ['SCHEDULED', 'NEEDS_ATTENTION'])));
      expect(ends.filter((d) => d.status === 'SCHEDULED')).toHaveLength(4);
      expect(ends.filter((d) => d.status === 'NEEDS_ATTENTION').every((d) => /is full \(4 orders\)/.test(d.reason ?? ''))).toBe(true);
      expect((await s.app.db.slotCount.findFirstOrThrow({ where: { shop: { domain: shop } } })).count).toBe(4);
    } finally {
      await second.close();
    }
  }, 90_000);
});
