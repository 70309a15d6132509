// GET /api/dashboard over real HTTP, on SQLite and PostgreSQL: one order
// booked through the real path (orders/paid → dispatch → sandbox courier),
// older deliveries and an unmatched courier event as rows, the shop's zone from
// Shopify (the simulator's Shop.ianaTimezone). The app's clock is a TestClock at fixed instants:
// around midnight in shops from UTC−10 to UTC+14 and across summer-time changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCents, toCents } from '../../web/order/money.ts';
import { forgetShopProfile } from '../../web/shopify/shop-profile.ts';
import type { HomeDashboard } from '../../web/admin/contract.ts';
import { adminClient } from '../support/admin-client.ts';
import { postStatusEvent } from '../support/courier-events.ts';
import { connectCourierAccount, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { ACROSS_DST, aroundMidnight, localDay, madeBefore, TestClock } from '../support/time.ts';

const clock = new TestClock('2026-11-26T01:00:00Z');
let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ runtime: { clock } });
});
afterAll(async () => {
  await s?.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let seq = 0;

async function row(shopId: string, p: { createdAt: Date; dispatchedAt?: Date | null; status: string; price?: string; currency?: string; deliveredAt?: Date }) {
  seq++;
  await s.app.db.delivery.create({
    data: {
      shopId,
      shopifyOrderId: `9000${seq}`,
      orderName: `#D${seq}`,
      environment: 'test',
      status: p.status,
      orderJson: '{}',
      createdAt: p.createdAt,
      dispatchedAt: p.dispatchedAt ?? null,
      deliveryPrice: p.price ?? null,
      currency: p.currency ?? null,
      courierStatusAt: p.deliveredAt ?? null,
    },
  });
}

describe('home dashboard', () => {
  const domain = 'dashboard-shop.myshopify.com';
  const zone = 'Pacific/Auckland'; // UTC+13 in November: 01:00 UTC is 14:00 there

  it.each([
    // [when, now, the shop's today, three days ago, whether that is this week]
    ['a Thursday: three days ago is this week', '2026-11-26T01:00:00Z', '2026-11-26', '2026-11-23', true],
    ['a Monday: three days ago is last week', '2026-11-23T01:00:00Z', '2026-11-23', '2026-11-20', false],
  ] as const)('counts bookings, spend per currency, the median, attention and unmatched for this shop only, in the shop zone: %s', async (_when, at, today, threeDaysAgo, sameWeek) => {
    const domain = `dashboard-${today}.myshopify.com`;
    clock.moveTo(at);
    const sim = await installShop(s, domain);
    sim.ianaTimezone = zone;
    forgetShopProfile();
    const { orderId } = await placeOrder(s, sim, madeBefore(clock.now()));
    const booked = await waitForStatus(s.app, domain, orderId, 'CREATED');
    expect(booked.deliveryPrice).toMatch(/^\d+\.\d{2}$/);
    const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain }, include: { environments: true } });
    const now = clock.now();
    // Three days ago: two delivered bookings (1 h and 3 h after payment), one in another currency, one needing attention.
    const d3 = new Date(now - 3 * DAY);
    await row(shop.id, { createdAt: d3, dispatchedAt: d3, status: 'DELIVERED', price: '10.10', currency: 'USD', deliveredAt: new Date(d3.getTime() + HOUR) });
    await row(shop.id, { createdAt: d3, dispatchedAt: d3, status: 'DELIVERED', price: '20.20', currency: 'USD', deliveredAt: new Date(d3.getTime() + 3 * HOUR) });
    await row(shop.id, { createdAt: d3, dispatchedAt: d3, status: 'NEEDS_ATTENTION', price: '5.00', currency: booked.currency! });
    await row(shop.id, { createdAt: d3, status: 'FAILED' }); // never booked: attention, no booking
    // Too old for the chart (and for the rows read), and another shop's delivery.
    await row(shop.id, { createdAt: new Date(now - 40 * DAY), dispatchedAt: new Date(now - 40 * DAY), status: 'DELIVERED', price: '999.00', currency: 'USD', deliveredAt: new Date(now - 40 * DAY + HOUR) });
    const other = `dashboard-other-${today}.myshopify.com`;
    await installShop(s, other);
    const otherShop = await s.app.db.shop.findUniqueOrThrow({ where: { domain: other } });
    await row(otherShop.id, { createdAt: new Date(now), dispatchedAt: new Date(now), status: 'NEEDS_ATTENTION', price: '1.00', currency: 'EUR' });
    await s.app.db.courierEvent.create({
      data: { environmentId: shop.environments[0]!.id, eventId: `evt-dashboard-${today}`, type: 'delivery.status.updated', deliveryRef: 'nobody', status: 'in_transit', payload: '{}', state: 'UNMATCHED' },
    });

    const r = await adminClient(s.app.url, domain).get<HomeDashboard>('/api/dashboard');
    expect(r.status).toBe(200);
    const d = r.body;
    expect(d.timeZone).toBe(zone);
    expect(d.timeZoneSource).toBe('shop');
    expect(d.today).toEqual({ date: today, bookings: 1, spend: [{ currency: booked.currency, amount: booked.deliveryPrice }] });
    expect(d.days).toHaveLength(14);
    expect(d.days.at(-1)!.date).toBe(today);
    expect(d.days.find((x) => x.date === threeDaysAgo)).toMatchObject({ bookings: 3, delivered: 2, problems: 1 });
    expect(d.days.reduce((n, x) => n + x.bookings, 0)).toBe(4);
    expect(d.paidToDelivered).toEqual({ medianSeconds: 2 * 3600, deliveries: 2 });
    expect(d.attention).toBe(2);
    expect(d.unmatched).toBe(1);
    // The week: Monday to today, so it holds the rows of three days ago only from Thursday on.
    if (sameWeek) {
      expect(d.week.bookings).toBe(4);
      expect(d.week.spend).toEqual([{ currency: 'USD', amount: '30.30' }, { currency: booked.currency!, amount: formatCents(toCents(booked.deliveryPrice)! + 500n) }].sort((a, b) => a.currency.localeCompare(b.currency)));
    } else expect(d.week).toMatchObject({ start: today, bookings: 1, spend: d.today.spend });
  });

  // Paid at each instant, delivered 25 minutes later (the courier's signed webhook), read a minute after
  // that: the booking counts on the day it was paid, "today" is the day it is read, and the time is 25 min
  // whatever the wall clocks did (UTC+2 at 23:45 is 21:45 UTC: the hour this test once failed at).
  const paid = [...aroundMidnight('2026-11-23', ['23:20', '23:45', '00:05']), ...ACROSS_DST];
  it.each(paid.map((m, i) => [m.name, m, i] as const))('end to end: a real booking, then the courier’s signed delivered webhook: booked and delivered, with its time; paid %s', async (_name, m, i) => {
    const shop = `dashboard-e2e-${i}.myshopify.com`;
    const sim = await installShop(s, shop);
    sim.ianaTimezone = m.zone;
    forgetShopProfile(shop);
    const account = await connectCourierAccount(s, shop);
    clock.moveTo(m.at);
    const { orderId } = await placeOrder(s, sim, madeBefore(m.at));
    const delivery = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(localDay(delivery.createdAt.getTime(), m.zone)).toBe(m.day);
    const deliveredAt = delivery.createdAt.getTime() + 25 * 60_000; // the courier says: delivered 25 min after payment
    const { id: eventId } = await postStatusEvent(account.endpointUrl, { deliveryRef: delivery.courierOrderId!, status: 'delivered', createdAt: deliveredAt, timestampSec: clock.seconds() });
    await waitForStatus(s.app, shop, orderId, 'DELIVERED');
    // Written on the app's clock, not the machine's.
    const received = (await s.app.db.courierEvent.findFirstOrThrow({ where: { eventId } })).receivedAt.getTime();
    for (const t of [delivery.dispatchedAt!.getTime(), received]) expect(Math.abs(t - m.at)).toBeLessThan(5 * 60_000);
    clock.moveTo(deliveredAt + 60_000);
    const readDay = localDay(clock.now(), m.zone);
    const r = await adminClient(s.app.url, shop).get<HomeDashboard>('/api/dashboard');
    expect(r.body.timeZone).toBe(m.zone);
    expect(r.body.days.at(-1)!.date).toBe(readDay);
    expect(r.body.days.find((x) => x.date === m.day)).toMatchObject({ bookings: 1, delivered: 1, problems: 0 });
    expect(r.body.paidToDelivered).toEqual({ medianSeconds: 25 * 60, deliveries: 1 });
    const spend = [{ currency: delivery.currency, amount: delivery.deliveryPrice }];
    expect(r.body.today).toEqual(readDay === m.day ? { date: readDay, bookings: 1, spend } : { date: readDay, bookings: 0, spend: [] });
  });

  it('a zone Shopify gives that Intl does not know: UTC, said so', async () => {
    const sim = await installShop(s, 'dashboard-nozone.myshopify.com');
    sim.ianaTimezone = 'Nowhere/Special';
    forgetShopProfile();
    clock.moveTo('2026-11-23T23:59:30Z');
    const r = await adminClient(s.app.url, 'dashboard-nozone.myshopify.com').get<HomeDashboard>('/api/dashboard');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ timeZone: 'UTC', timeZoneSource: 'fallback', today: { date: '2026-11-23', bookings: 0, spend: [] }, attention: 0, unmatched: 0 });
    expect(r.body.days.every((x) => x.bookings === 0)).toBe(true);
  });

  it('needs a session token', async () => {
    expect((await fetch(`${s.app.url}/api/dashboard`)).status).toBe(401);
  });
});
