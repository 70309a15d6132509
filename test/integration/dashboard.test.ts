// GET /api/dashboard over real HTTP, on SQLite and PostgreSQL: one order
// booked through the real path (orders/paid → dispatch → sandbox courier),
// older deliveries and an unmatched courier event as rows, the shop's zone from
// Shopify (the simulator's Shop.ianaTimezone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayKey } from '../../web/admin/dashboard.ts';
import { formatCents, toCents } from '../../web/dispatch/money.ts';
import { forgetShopProfile } from '../../web/shopify/shop-profile.ts';
import type { HomeDashboard } from '../../web/admin/contract.ts';
import { adminClient } from '../support/admin-client.ts';
import { bookedWithAccount, postStatusEvent } from '../support/courier-events.ts';
import { installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
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
  const zone = 'Pacific/Auckland'; // far from UTC: days differ from UTC days for half of each day

  it('counts bookings, spend per currency, the median, attention and unmatched for this shop only, in the shop zone', async () => {
    const sim = await installShop(s, domain);
    sim.ianaTimezone = zone;
    forgetShopProfile();
    const { orderId } = await placeOrder(s, sim);
    const booked = await waitForStatus(s.app, domain, orderId, 'CREATED');
    expect(booked.deliveryPrice).toMatch(/^\d+\.\d{2}$/);
    const shop = await s.app.db.shop.findUniqueOrThrow({ where: { domain }, include: { environments: true } });
    const now = Date.now();
    // Three days ago: two delivered bookings (1 h and 3 h after payment), one in another currency, one needing attention.
    const d3 = new Date(now - 3 * DAY);
    await row(shop.id, { createdAt: d3, dispatchedAt: d3, status: 'DELIVERED', price: '10.10', currency: 'USD', deliveredAt: new Date(d3.getTime() + HOUR) });
    await row(shop.id, { createdAt: d3, dispatchedAt: d3, status: 'DELIVERED', price: '20.20', currency: 'USD', deliveredAt: new Date(d3.getTime() + 3 * HOUR) });
    await row(shop.id, { createdAt: d3, dispatchedAt: d3, status: 'NEEDS_ATTENTION', price: '5.00', currency: booked.currency! });
    await row(shop.id, { createdAt: d3, status: 'FAILED' }); // never booked: attention, no booking
    // Too old for the chart (and for the rows read), and another shop's delivery.
    await row(shop.id, { createdAt: new Date(now - 40 * DAY), dispatchedAt: new Date(now - 40 * DAY), status: 'DELIVERED', price: '999.00', currency: 'USD', deliveredAt: new Date(now - 40 * DAY + HOUR) });
    await installShop(s, 'dashboard-other.myshopify.com');
    const otherShop = await s.app.db.shop.findUniqueOrThrow({ where: { domain: 'dashboard-other.myshopify.com' } });
    await row(otherShop.id, { createdAt: new Date(now), dispatchedAt: new Date(now), status: 'NEEDS_ATTENTION', price: '1.00', currency: 'EUR' });
    await s.app.db.courierEvent.create({
      data: { environmentId: shop.environments[0]!.id, eventId: 'evt-dashboard-1', type: 'delivery.status.updated', deliveryRef: 'nobody', status: 'in_transit', payload: '{}', state: 'UNMATCHED' },
    });

    const r = await adminClient(s.app.url, domain).get<HomeDashboard>('/api/dashboard');
    expect(r.status).toBe(200);
    const d = r.body;
    expect(d.timeZone).toBe(zone);
    expect(d.timeZoneSource).toBe('shop');
    const today = dayKey(now, zone);
    expect(d.today).toEqual({ date: today, bookings: 1, spend: [{ currency: booked.currency, amount: booked.deliveryPrice }] });
    expect(d.days).toHaveLength(14);
    expect(d.days.at(-1)!.date).toBe(today);
    expect(d.days.find((x) => x.date === dayKey(d3.getTime(), zone))).toMatchObject({ bookings: 3, delivered: 2, problems: 1 });
    expect(d.days.reduce((n, x) => n + x.bookings, 0)).toBe(4);
    expect(d.paidToDelivered).toEqual({ medianSeconds: 2 * 3600, deliveries: 2 });
    expect(d.attention).toBe(2);
    expect(d.unmatched).toBe(1);
    // The week: Monday to today, so it holds the rows of three days ago only from Thursday on.
    if (dayKey(d3.getTime(), zone) >= d.week.start) {
      expect(d.week.bookings).toBe(4);
      expect(d.week.spend).toEqual([{ currency: 'USD', amount: '30.30' }, { currency: booked.currency!, amount: formatCents(toCents(booked.deliveryPrice)! + 500n) }].sort((a, b) => a.currency.localeCompare(b.currency)));
    } else expect(d.week).toMatchObject({ bookings: 1, spend: d.today.spend });
  });

  it('end to end: a real booking, then the courier’s signed delivered webhook: booked and delivered today, with its time', async () => {
    const shop = 'dashboard-e2e.myshopify.com';
    const { account, orderId, delivery } = await bookedWithAccount(s, shop);
    const deliveredAt = delivery.createdAt.getTime() + 25 * 60_000; // the courier says: delivered 25 min after payment
    await postStatusEvent(account.endpointUrl, { deliveryRef: delivery.courierOrderId!, status: 'delivered', createdAt: deliveredAt });
    await waitForStatus(s.app, shop, orderId, 'DELIVERED');
    const r = await adminClient(s.app.url, shop).get<HomeDashboard>('/api/dashboard');
    const today = r.body.days.at(-1)!;
    expect(today).toMatchObject({ bookings: 1, delivered: 1, problems: 0 });
    expect(r.body.paidToDelivered).toEqual({ medianSeconds: 25 * 60, deliveries: 1 });
    expect(r.body.today.spend).toEqual([{ currency: delivery.currency, amount: delivery.deliveryPrice }]);
  });

  it('a zone Shopify gives that Intl does not know: UTC, said so', async () => {
    const sim = await installShop(s, 'dashboard-nozone.myshopify.com');
    sim.ianaTimezone = 'Nowhere/Special';
    forgetShopProfile();
    const r = await adminClient(s.app.url, 'dashboard-nozone.myshopify.com').get<HomeDashboard>('/api/dashboard');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ timeZone: 'UTC', timeZoneSource: 'fallback', today: { date: dayKey(Date.now(), 'UTC'), bookings: 0, spend: [] }, attention: 0, unmatched: 0 });
    expect(r.body.days.every((x) => x.bookings === 0)).toBe(true);
  });

  it('needs a session token', async () => {
    expect((await fetch(`${s.app.url}/api/dashboard`)).status).toBe(401);
  });
});
