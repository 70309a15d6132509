// The tracking page's pure parts: customer labels, the token, the expiry decision (clock injected), the view and the HTML.
import { describe, expect, it } from 'vitest';
import { courierStatusLabel, customerSteps, deliveryStatusLabel, headline, type TimelineRow } from '../../web/tracking/labels.ts';
import { endedAt, isLinkExpired } from '../../web/tracking/expiry.ts';
import { isTrackingToken, newTrackingToken, trackingPageUrl } from '../../web/tracking/token.ts';
import { trackingView } from '../../web/tracking/view.ts';
import { ago, TRACKING_CSP, trackingPage, unavailablePage } from '../../web/tracking/page.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../web/lifecycle/machine.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const DAY = 86_400_000;
const row = (status: string, min: number, extra: Partial<TimelineRow> = {}): TimelineRow => ({ kind: 'courier_status', status, applied: true, generation: 1, occurredAt: at(min), ...extra });

describe('courierStatusLabel', () => {
  it.each([
    ['pending', 'Booked with the courier'],
    ['accepted', 'Booked with the courier'],
    ['confirmed', 'Booked with the courier'],
    ['driver_assigned', 'Driver assigned'],
    ['courier_assigned', 'Driver assigned'],
    ['at_pickup', 'Driver heading to the store'],
    ['picked_up', 'Picked up'],
    ['Collected', 'Picked up'],
    ['in_transit', 'On the way'],
    ['delayed', 'Running late'],
    ['out_for_delivery', 'Out for delivery'],
    ['arriving', 'Out for delivery'],
    ['delivery_attempted', 'Delivery attempted'],
    ['delivered', 'Delivered'],
    ['completed', 'Delivered'],
    ['failed', 'Delivery unsuccessful'],
    ['cancelled', 'Delivery cancelled'],
    ['canceled', 'Delivery cancelled'],
    ['returned', 'Returned to the store'],
    ['teleported', null],
  ])('%s → %s', (status, label) => {
    expect(courierStatusLabel(status)).toBe(label);
  });
});

describe('deliveryStatusLabel', () => {
  it.each<[DeliveryStatus, string]>([
    ['PENDING', 'Preparing your delivery'],
    ['NEEDS_ATTENTION', 'Preparing your delivery'],
    ['CREATED', 'Booked with the courier'],
    ['IN_PROGRESS', 'Booked with the courier'],
    ['DELIVERED', 'Delivered'],
    ['CANCEL_REQUESTED_IN_SHOPIFY', 'Delivery cancelled'],
    ['FAILED', 'Not sent by same-day delivery'],
    ['SKIPPED', 'Not sent by same-day delivery'],
  ])('%s → %s', (status, label) => {
    expect(deliveryStatusLabel(status)).toBe(label);
  });

  it('covers every delivery status', () => {
    expect(DELIVERY_STATUSES.map(deliveryStatusLabel).every((l) => l.length > 0)).toBe(true);
  });
});

describe('customerSteps and headline', () => {
  const d = { createdAt: at(0), generation: 2 };
  it.each<[string, TimelineRow[], string[]]>([
    ['no courier status yet: the order alone', [], ['Order received']],
    ['applied statuses oldest first, synonyms folded', [row('picked_up', 30, { generation: 2 }), row('accepted', 5, { generation: 2 }), row('confirmed', 6, { generation: 2 })], ['Order received', 'Booked with the courier', 'Picked up']],
    ['late (not applied) statuses are left out', [row('in_transit', 40, { generation: 2 }), row('picked_up', 45, { generation: 2, applied: false })], ['Order received', 'On the way']],
    ['an earlier booking is left out', [row('delivered', 20, { generation: 1 }), row('driver_assigned', 50, { generation: 2 })], ['Order received', 'Driver assigned']],
    ['statuses with the same timestamp, stored in any order: progress order', [row('delivered', 30, { generation: 2 }), row('out_for_delivery', 30, { generation: 2 }), row('picked_up', 30, { generation: 2 })], ['Order received', 'Picked up', 'Out for delivery', 'Delivered']],
    ['unknown statuses and other kinds are left out', [row('teleported', 10, { generation: 2 }), { kind: 'fulfilled', status: null, applied: true, generation: 2, occurredAt: at(11) }], ['Order received']],
  ])('%s', (_name, rows, labels) => {
    expect(customerSteps(d, rows).map((s) => s.label)).toEqual(labels);
  });

  it.each<[DeliveryStatus, string[], string]>([
    ['PENDING', [], 'Preparing your delivery'],
    ['IN_PROGRESS', ['picked_up'], 'Picked up'],
    ['DELIVERED', ['delivered'], 'Delivered'],
    ['CANCEL_REQUESTED_IN_SHOPIFY', ['picked_up'], 'Delivery cancelled'],
    ['NEEDS_ATTENTION', ['failed'], 'Delivery unsuccessful'],
  ])('headline of %s after %j is %s', (status, statuses, expected) => {
    const steps = customerSteps({ createdAt: at(0), generation: 1 }, statuses.map((s, i) => row(s, i + 1)));
    expect(headline(status, steps)).toBe(expected);
  });
});

describe('tracking token', () => {
  it('is 192 random bits, base64url, and never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newTrackingToken));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) expect(Buffer.from(t, 'base64url')).toHaveLength(24);
    expect([...tokens].every(isTrackingToken)).toBe(true);
  });

  it.each(['', 'short', 'x'.repeat(31), 'x'.repeat(33), `${'x'.repeat(31)}/`, `${'x'.repeat(31)}=`, 'cm3abcdefghijklmnopqrstu'])('%j is not a token', (t) => {
    expect(isTrackingToken(t)).toBe(false);
  });

  it('makes the page URL from the app URL', () => {
    expect(trackingPageUrl('https://app.example.com/', 'A'.repeat(32))).toBe(`https://app.example.com/track/${'A'.repeat(32)}`);
  });
});

describe('isLinkExpired (clock injected)', () => {
  const ended = at(0);
  it.each<[string, DeliveryStatus, Date | null, number, number, boolean]>([
    ['in progress never expires', 'IN_PROGRESS', ended, T0 + 365 * DAY, 7, false],
    ['needs attention never expires', 'NEEDS_ATTENTION', ended, T0 + 365 * DAY, 7, false],
    ['delivered, a minute before the limit', 'DELIVERED', ended, T0 + 7 * DAY - 60_000, 7, false],
    ['delivered, at the limit', 'DELIVERED', ended, T0 + 7 * DAY, 7, true],
    ['delivered, one day with a 1-day setting', 'DELIVERED', ended, T0 + DAY + 1, 1, true],
    ['delivered, 8 days with a 30-day setting', 'DELIVERED', ended, T0 + 8 * DAY, 30, false],
    ['cancelled in Shopify expires too', 'CANCEL_REQUESTED_IN_SHOPIFY', ended, T0 + 8 * DAY, 7, true],
    ['no end time known: live', 'DELIVERED', null, T0 + 365 * DAY, 7, false],
  ])('%s', (_name, status, endedAtValue, now, expiryDays, expected) => {
    expect(isLinkExpired({ status, endedAt: endedAtValue, now, expiryDays })).toBe(expected);
  });

  it('ends at the courier\'s final status, else the latest timeline line, else the row\'s last change', () => {
    const updatedAt = at(500);
    expect(endedAt({ updatedAt }, [row('picked_up', 10), row('delivered', 60), { kind: 'shopify_event', status: 'DELIVERED', applied: true, generation: 1, occurredAt: at(90) }])).toEqual(at(60));
    expect(endedAt({ updatedAt }, [{ kind: 'shopify_cancelled', status: null, applied: true, generation: 1, occurredAt: at(30) }, row('picked_up', 10)])).toEqual(at(30));
    expect(endedAt({ updatedAt }, [])).toEqual(updatedAt);
  });
});

describe('trackingView and the page', () => {
  const delivery = {
    status: 'IN_PROGRESS' as DeliveryStatus, createdAt: at(0), generation: 1, orderName: '#1001', redactedAt: null as Date | null,
    shippingAddress: () => ({ first_name: 'Anna <b>', city: 'Surry Hills', address1: '1 Secret St', last_name: 'Lastname', phone: '+61400000000' }),
  };
  const opts = { courierName: 'Swift', shopName: 'demo', final: false };

  it('shows first name, suburb, courier, last update and the steps', () => {
    const v = trackingView(delivery, [row('picked_up', 30)], opts);
    expect(v).toMatchObject({ headline: 'Picked up', firstName: 'Anna <b>', suburb: 'Surry Hills', courierName: 'Swift', lastUpdate: at(30) });
    const html = trackingPage(v, T0 + 45 * 60_000);
    expect(html).toContain('Surry Hills');
    expect(html).toContain('Hi Anna &#60;b&#62;');
    expect(html).toContain('15 min ago');
    expect(html).toContain('<meta name="robots" content="noindex,nofollow">');
    for (const secret of ['1 Secret St', 'Lastname', '+61400000000']) expect(html).not.toContain(secret);
  });

  it('shows no address data once the personal data is erased', () => {
    const v = trackingView({ ...delivery, redactedAt: at(100), shippingAddress: () => { throw new Error('must not be read'); } }, [row('delivered', 60)], { ...opts, final: true });
    expect(v.firstName).toBeNull();
    expect(v.suburb).toBeNull();
    const html = trackingPage(v, T0);
    expect(html).not.toContain('Delivering to');
    expect(html).not.toContain('http-equiv="refresh"');
  });

  it('the CSP allows nothing but its own stylesheet', () => {
    expect(TRACKING_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    const html = unavailablePage('expired');
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\//);
  });

  it.each([[0, 'just now'], [59, 'just now'], [60, '1 min ago'], [3600, '1 h ago'], [86_400, '1 day ago'], [3 * 86_400, '3 days ago']])('ago(%i s) = %s', (s, text) => {
    expect(ago(at(0), T0 + s * 1000)).toBe(text);
  });
});
