// The tracking page's pure parts: customer labels, the token, the expiry decision (clock injected), the view and the HTML.
import { describe, expect, it } from 'vitest';
import { courierStatusLabel, customerSteps, deliveryStatusLabel, headline, type TimelineRow } from '../../web/tracking/labels.ts';
import { endedAt, isLinkExpired } from '../../web/tracking/expiry.ts';
import { isTrackingToken, newTrackingToken, trackingPageUrl } from '../../web/tracking/token.ts';
import { trackingView } from '../../web/tracking/view.ts';
import { ago, clockTime, TRACKING_CSP, trackingPage, unavailablePage } from '../../web/tracking/page.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../web/lifecycle/machine.ts';
import { boundedZoneLookup } from '../../web/tracking/time-zone.ts';

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
  const opts = { courierName: 'Swift', shopName: 'demo', final: false, timeZone: 'UTC' };

  it('shows first name, suburb, courier, last update and the steps', () => {
    const v = trackingView(delivery, [row('picked_up', 30)], opts);
    expect(v).toMatchObject({ headline: 'Picked up', firstName: 'Anna <b>', suburb: 'Surry Hills', courierName: 'Swift', lastUpdate: at(30) });
    const html = trackingPage(v, T0 + 45 * 60_000);
    expect(html).toContain('Surry Hills');
    expect(html).toContain('Hi Anna &#60;b&#62;');
    expect(html).toContain('<time datetime="2026-11-20T10:30:00.000Z">10:30</time> · 15 min ago');
    expect(html).toContain('Times are in UTC.');
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

  it('shows the times on the shop\'s clock, naming its zone', () => {
    const v = trackingView(delivery, [row('picked_up', 30)], { ...opts, timeZone: 'Australia/Sydney' });
    const html = trackingPage(v, T0 + 45 * 60_000);
    // 10:30 UTC on 20 Nov is 21:30 in Sydney (AEDT, UTC+11).
    expect(html).toContain('<time datetime="2026-11-20T10:30:00.000Z">21:30</time> · 15 min ago');
    expect(html).toContain('Times are Australia/Sydney time.');
  });

  it('the busy page says to try again later', () => {
    expect(unavailablePage('too_many')).toContain('Please try again in a minute.');
  });
});

describe('clockTime: the shop\'s wall clock', () => {
  const z = (iso: string) => new Date(iso);
  it.each<[string, string, string, string, string]>([
    ['same local day: the time alone', '2026-11-23T12:05:00Z', '2026-11-23T12:17:00Z', 'Africa/Johannesburg', '14:05'],
    ['an earlier local day: weekday, date and time', '2026-11-20T12:05:00Z', '2026-11-23T12:17:00Z', 'Africa/Johannesburg', 'Fri 20 Nov, 14:05'],
    ['midnight is 00, not 24', '2026-11-22T22:00:00Z', '2026-11-22T23:00:00Z', 'Africa/Johannesburg', '00:00'],
    ['same UTC day, but yesterday in the zone', '2026-11-23T10:00:00Z', '2026-11-23T12:00:00Z', 'Pacific/Auckland', 'Mon 23 Nov, 23:00'],
    ['same local day that is two UTC days', '2026-11-22T23:30:00Z', '2026-11-23T00:30:00Z', 'America/New_York', '18:30'],
    ['UTC fallback', '2026-11-23T09:04:00Z', '2026-11-23T12:00:00Z', 'UTC', '09:04'],
    ['New York, summer time (EDT, UTC-4)', '2026-11-01T05:30:00Z', '2026-11-01T07:00:00Z', 'America/New_York', '01:30'],
    ['New York, the same 01:30 again an hour later (EST, UTC-5)', '2026-11-01T06:30:00Z', '2026-11-01T07:00:00Z', 'America/New_York', '01:30'],
    ['New York, the last minute before clocks go forward', '2026-03-08T06:59:00Z', '2026-03-08T08:00:00Z', 'America/New_York', '01:59'],
    ['New York, the next minute is 03:00', '2026-03-08T07:00:00Z', '2026-03-08T08:00:00Z', 'America/New_York', '03:00'],
    ['Sydney, 01:30 on the morning clocks go forward (AEST, UTC+10), seen the next day', '2026-10-03T15:30:00Z', '2026-10-04T15:30:00Z', 'Australia/Sydney', 'Sun 4 Oct, 01:30'],
    ['Sydney, a day later after the change (AEDT, UTC+11)', '2026-10-04T15:30:00Z', '2026-10-04T16:00:00Z', 'Australia/Sydney', '02:30'],
    ['a year earlier shows the date, not "today"', '2025-11-23T12:05:00Z', '2026-11-23T12:17:00Z', 'UTC', 'Sun 23 Nov, 12:05'],
  ])('%s', (_name, at_, now, zone, expected) => {
    expect(clockTime(z(at_), z(now).getTime(), zone)).toBe(expected);
  });
});

describe('boundedZoneLookup: the page does not wait on a slow Shopify', () => {
  // A stand-in for the Shopify lookup whose answer the test releases by hand.
  function slowShopify() {
    let release!: (zone: string) => void;
    let calls = 0;
    const answer = new Promise<string>((r) => (release = r));
    const lookup = (_domain: string) => {
      calls++;
      return answer;
    };
    return { lookup, release, calls: () => calls };
  }

  it('UTC while Shopify has not answered; its zone once it has; one question at a time', async () => {
    const shopify = slowShopify();
    const zoneOf = boundedZoneLookup(shopify.lookup, 5);
    expect(await zoneOf('slow.myshopify.com')).toBe('UTC');
    expect(await zoneOf('slow.myshopify.com')).toBe('UTC');
    expect(shopify.calls()).toBe(1);
    shopify.release('Europe/Berlin');
    expect(await zoneOf('slow.myshopify.com')).toBe('Europe/Berlin');
  });

  it('an answer in time is used at once; a failed lookup is UTC', async () => {
    const shopify = slowShopify();
    shopify.release('America/Chicago');
    expect(await boundedZoneLookup(shopify.lookup, 60_000)('quick.myshopify.com')).toBe('America/Chicago');
    expect(await boundedZoneLookup(() => Promise.reject(new Error('Shopify down')), 60_000)('down.myshopify.com')).toBe('UTC');
  });
});
