// The home dashboard's figures (web/admin/dashboard.ts): day buckets in the
// shop's zone, ISO weeks, money per currency in cents, the paid → delivered median.
import { describe, expect, it } from 'vitest';
import { addDays, dayKey, median, readSince, safeTimeZone, summarize, weekStart, type DashboardRow } from '../../web/admin/dashboard.ts';
import { ACROSS_DST, aroundMidnight } from '../support/time.ts';

const at = (iso: string) => new Date(iso);
function row(p: Partial<DashboardRow> & { dispatchedAt?: Date | null }): DashboardRow {
  return { createdAt: p.createdAt ?? p.dispatchedAt ?? at('2026-11-20T08:00:00Z'), dispatchedAt: p.dispatchedAt ?? null, status: p.status ?? 'CREATED', deliveryPrice: p.deliveryPrice ?? null, currency: p.currency ?? null, courierStatusAt: p.courierStatusAt ?? null };
}
const base = { attention: 0, unmatched: 0 };

describe('calendar helpers', () => {
  it.each([
    // [instant, zone, day]
    ['2026-11-22T21:59:59Z', 'Africa/Johannesburg', '2026-11-22'],
    ['2026-11-22T22:00:00Z', 'Africa/Johannesburg', '2026-11-23'], // midnight in Johannesburg (UTC+2)
    ['2026-11-23T04:59:59Z', 'America/New_York', '2026-11-22'],
    ['2026-11-23T05:00:00Z', 'America/New_York', '2026-11-23'], // midnight EST (UTC-5)
    ['2026-07-01T04:00:00Z', 'America/New_York', '2026-07-01'], // midnight EDT (UTC-4)
    ['2026-11-22T12:59:59Z', 'Pacific/Auckland', '2026-11-23'], // UTC+13 in summer
    ['2026-11-22T23:59:59Z', 'UTC', '2026-11-22'],
    ['2026-03-29T00:30:00Z', 'Europe/London', '2026-03-29'],
  ])('%s in %s is %s', (iso, zone, day) => expect(dayKey(Date.parse(iso), zone)).toBe(day));

  it.each([
    ['2026-11-22', 1, '2026-11-23'],
    ['2026-02-28', 1, '2026-03-01'],
    ['2028-02-28', 1, '2028-02-29'],
    ['2026-01-01', -1, '2025-12-31'],
    ['2026-11-23', -13, '2026-11-10'],
  ])('%s %+d days is %s', (d, n, out) => expect(addDays(d, n)).toBe(out));

  it.each([
    ['2026-11-23', '2026-11-23'], // Monday
    ['2026-11-22', '2026-11-16'], // Sunday belongs to the week before
    ['2026-11-28', '2026-11-23'], // Saturday
    ['2026-01-01', '2025-12-29'], // across the year
  ])('the week of %s starts %s', (d, monday) => expect(weekStart(d)).toBe(monday));

  // knownTimeZone itself: test/unit/shop-profile.test.ts.
  it('time zones: known ones as Intl names them, anything else UTC', () => {
    expect(safeTimeZone('Not/AZone')).toBe('UTC');
    expect(safeTimeZone(undefined)).toBe('UTC');
    expect(safeTimeZone('America/New_York')).toBe('America/New_York');
  });

  it('reads 22 days back: 14 chart days, 7 of lookback, 1 for any zone offset', () => {
    expect(readSince(Date.parse('2026-11-23T00:00:00Z')).toISOString()).toBe('2026-11-01T00:00:00.000Z');
  });

  it.each([
    [[], null],
    [[5], 5],
    [[9, 1, 5], 5],
    [[10, 1, 5, 3], 4], // (3 + 5) / 2, not the upper middle
    [[4, 1], 3], // (1 + 4) / 2 = 2.5, rounded
  ])('median of %j is %s', (v, m) => expect(median(v as number[])).toBe(m));
});

describe('summarize', () => {
  const now = Date.parse('2026-11-23T10:00:00Z'); // Monday, 12:00 in Johannesburg

  it('no data: 14 zero days ending today, empty spend, no median', () => {
    const d = summarize({ rows: [], now, timeZone: 'Africa/Johannesburg', attention: 2, unmatched: 3 });
    expect(d.days).toHaveLength(14);
    expect(d.days[0]!.date).toBe('2026-11-10');
    expect(d.days.at(-1)!.date).toBe('2026-11-23');
    expect(d.days.every((x) => x.bookings === 0 && x.delivered === 0 && x.problems === 0)).toBe(true);
    expect(d).toMatchObject({
      timeZone: 'Africa/Johannesburg',
      today: { date: '2026-11-23', bookings: 0, spend: [] },
      week: { start: '2026-11-23', bookings: 0, spend: [] },
      paidToDelivered: { medianSeconds: null, deliveries: 0 },
      attention: 2,
      unmatched: 3,
    });
  });

  it('a booking at 23:30 local on Sunday is Sunday and last week; at 00:30 Monday it is today', () => {
    const rows = [
      row({ dispatchedAt: at('2026-11-22T21:30:00Z'), deliveryPrice: '10.00', currency: 'ZAR' }), // Sun 23:30 SAST
      row({ dispatchedAt: at('2026-11-22T22:30:00Z'), deliveryPrice: '20.00', currency: 'ZAR' }), // Mon 00:30 SAST
    ];
    const d = summarize({ rows, now, timeZone: 'Africa/Johannesburg', ...base });
    expect(d.today).toEqual({ date: '2026-11-23', bookings: 1, spend: [{ currency: 'ZAR', amount: '20.00' }] });
    expect(d.week).toEqual({ start: '2026-11-23', bookings: 1, spend: [{ currency: 'ZAR', amount: '20.00' }] });
    expect(d.days.find((x) => x.date === '2026-11-22')!.bookings).toBe(1);
    // The same instants in UTC are both Sunday.
    const utc = summarize({ rows, now, timeZone: 'UTC', ...base });
    expect(utc.today.bookings).toBe(0);
    expect(utc.days.find((x) => x.date === '2026-11-22')!.bookings).toBe(2);
    expect(utc.week.start).toBe('2026-11-23');
  });

  it('the week runs Monday to today and leaves out the Sunday before', () => {
    const thursday = Date.parse('2026-11-26T12:00:00Z');
    const rows = [
      row({ dispatchedAt: at('2026-11-22T12:00:00Z'), deliveryPrice: '1.00', currency: 'ZAR' }), // Sunday
      row({ dispatchedAt: at('2026-11-23T00:00:00Z'), deliveryPrice: '2.00', currency: 'ZAR' }), // Monday 00:00 UTC
      row({ dispatchedAt: at('2026-11-25T12:00:00Z'), deliveryPrice: '4.00', currency: 'ZAR' }), // Wednesday
      row({ dispatchedAt: at('2026-11-26T11:00:00Z'), deliveryPrice: '8.00', currency: 'ZAR' }), // today
    ];
    const d = summarize({ rows, now: thursday, timeZone: 'UTC', ...base });
    expect(d.week).toEqual({ start: '2026-11-23', bookings: 3, spend: [{ currency: 'ZAR', amount: '14.00' }] });
    expect(d.today.bookings).toBe(1);
  });

  it('sums money exactly per currency, sorted by code; unpriced bookings count but add nothing', () => {
    const t = at('2026-11-23T08:00:00Z');
    const rows = [
      row({ dispatchedAt: t, deliveryPrice: '0.10', currency: 'ZAR' }),
      row({ dispatchedAt: t, deliveryPrice: '0.20', currency: 'zar' }),
      row({ dispatchedAt: t, deliveryPrice: '99.9', currency: 'USD' }),
      row({ dispatchedAt: t, deliveryPrice: '0.1', currency: 'USD' }),
      row({ dispatchedAt: t, deliveryPrice: '5', currency: null }),
      row({ dispatchedAt: t, deliveryPrice: null, currency: 'EUR' }),
      row({ dispatchedAt: t, deliveryPrice: 'n/a', currency: 'EUR' }),
    ];
    const d = summarize({ rows, now, timeZone: 'UTC', ...base });
    expect(d.today.bookings).toBe(7);
    expect(d.today.spend).toEqual([
      { currency: 'USD', amount: '100.00' },
      { currency: 'XXX', amount: '5.00' },
      { currency: 'ZAR', amount: '0.30' },
    ]);
  });

  it('buckets bookings with their outcome; rows not booked, or booked outside the 14 days, are left out', () => {
    const rows = [
      row({ dispatchedAt: at('2026-11-20T08:00:00Z'), status: 'DELIVERED', courierStatusAt: at('2026-11-20T09:00:00Z') }),
      row({ dispatchedAt: at('2026-11-20T08:00:00Z'), status: 'IN_PROGRESS' }),
      row({ dispatchedAt: at('2026-11-20T08:00:00Z'), status: 'NEEDS_ATTENTION' }),
      row({ dispatchedAt: at('2026-11-20T08:00:00Z'), status: 'FAILED' }),
      row({ dispatchedAt: at('2026-11-20T08:00:00Z'), status: 'CANCEL_REQUESTED_IN_SHOPIFY' }),
      row({ dispatchedAt: null, status: 'PENDING' }),
      row({ dispatchedAt: null, status: 'SKIPPED' }),
      row({ dispatchedAt: at('2026-11-09T23:59:59Z'), status: 'DELIVERED' }), // the day before the chart
      row({ dispatchedAt: at('2026-11-10T00:00:00Z'), status: 'CREATED' }), // its first day
    ];
    const d = summarize({ rows, now, timeZone: 'UTC', ...base });
    expect(d.days.find((x) => x.date === '2026-11-20')).toEqual({ date: '2026-11-20', bookings: 5, delivered: 1, problems: 3 });
    expect(d.days[0]).toEqual({ date: '2026-11-10', bookings: 1, delivered: 0, problems: 0 });
    expect(d.days.reduce((n, x) => n + x.bookings, 0)).toBe(6);
  });

  it('median paid → delivered over deliveries delivered on the chart days, in seconds', () => {
    const rows = [
      row({ createdAt: at('2026-11-20T08:00:00Z'), dispatchedAt: at('2026-11-20T08:01:00Z'), status: 'DELIVERED', courierStatusAt: at('2026-11-20T09:00:00Z') }), // 3600
      row({ createdAt: at('2026-11-21T08:00:00Z'), dispatchedAt: at('2026-11-21T08:01:00Z'), status: 'DELIVERED', courierStatusAt: at('2026-11-21T10:00:00Z') }), // 7200
      row({ createdAt: at('2026-11-22T08:00:00Z'), dispatchedAt: at('2026-11-22T08:01:00Z'), status: 'DELIVERED', courierStatusAt: at('2026-11-22T08:30:00Z') }), // 1800
      row({ createdAt: at('2026-11-22T08:00:00Z'), status: 'IN_PROGRESS', courierStatusAt: at('2026-11-22T08:10:00Z') }), // not delivered
      row({ createdAt: at('2026-11-01T08:00:00Z'), status: 'DELIVERED', courierStatusAt: at('2026-11-09T08:00:00Z') }), // delivered before the chart
      row({ createdAt: at('2026-11-22T08:00:00Z'), status: 'DELIVERED', courierStatusAt: null }), // no time known
    ];
    const d = summarize({ rows, now, timeZone: 'UTC', ...base });
    expect(d.paidToDelivered).toEqual({ medianSeconds: 3600, deliveries: 3 });
    // A courier clock behind ours never makes a negative time.
    const skew = summarize({ rows: [row({ createdAt: at('2026-11-22T08:00:00Z'), status: 'DELIVERED', courierStatusAt: at('2026-11-22T07:59:00Z') })], now, timeZone: 'UTC', ...base });
    expect(skew.paidToDelivered).toEqual({ medianSeconds: 0, deliveries: 1 });
  });

  it('an unknown zone falls back to UTC', () => {
    const d = summarize({ rows: [], now: Date.parse('2026-11-22T23:30:00Z'), timeZone: 'Mars/Olympus', ...base });
    expect(d.timeZone).toBe('UTC');
    expect(d.today.date).toBe('2026-11-22');
  });

  it('a zone ahead of UTC moves today and the whole chart a day on', () => {
    const late = Date.parse('2026-11-22T23:30:00Z');
    const d = summarize({ rows: [row({ dispatchedAt: at('2026-11-22T23:00:00Z') })], now: late, timeZone: 'Africa/Johannesburg', ...base });
    expect(d.today).toMatchObject({ date: '2026-11-23', bookings: 1 });
    expect(d.days.at(-1)).toEqual({ date: '2026-11-23', bookings: 1, delivered: 0, problems: 0 });
    expect(d.days[0]!.date).toBe('2026-11-10');
  });
});

describe('summarize at fixed instants around midnight, from UTC−10 to UTC+14, and across summer time', () => {
  it.each([...aroundMidnight(), ...ACROSS_DST].map((m) => [m.name, m] as const))('%s', (_name, m) => {
    const minute = 60_000;
    const rows = [
      row({ dispatchedAt: new Date(m.at) }),
      // A minute earlier: the day before only at 00:00. Paid 25 min before it was delivered, now.
      row({ createdAt: new Date(m.at - 25 * minute), dispatchedAt: new Date(m.at - minute), status: 'DELIVERED', courierStatusAt: new Date(m.at) }),
    ];
    const d = summarize({ rows, now: m.at, timeZone: m.zone, ...base });
    expect(d.timeZone).toBe(m.zone);
    expect(d.today.date).toBe(m.day);
    expect(d.days.at(-1)!.date).toBe(m.day);
    expect(d.today.bookings).toBe(m.time === '00:00' ? 1 : 2);
    expect(d.days.reduce((n, x) => n + x.bookings, 0)).toBe(2);
    expect(d.paidToDelivered).toEqual({ medianSeconds: 25 * 60, deliveries: 1 });
  });
});
