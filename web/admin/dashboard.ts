// The home dashboard, as a pure function: delivery rows in, the page's figures
// out. Days are calendar days in the shop's IANA time zone (Intl, no library);
// weeks start on Monday (ISO 8601). Money is summed per currency in integer
// cents. Table-tested in test/unit/admin-dashboard.test.ts; in the mutation scope.
import { formatCents, toCents } from '../order/money.ts';
import { knownTimeZone } from '../shopify/shop-profile.ts';

export const CHART_DAYS = 14;
/** Rows are read from this long before the chart's first day: a booking made later than this after payment is not counted. */
export const BOOKING_LOOKBACK_DAYS = 7;
const DAY_MS = 86_400_000;

/** The columns read per delivery (web/admin/services/dashboard.ts). */
export interface DashboardRow {
  /** When the paid order reached the app (orders/paid): "paid". */
  createdAt: Date;
  /** When the courier booked it; null while not booked (a re-dispatch clears it). */
  dispatchedAt: Date | null;
  status: string;
  deliveryPrice: string | null;
  currency: string | null;
  /** When the courier reported its current status (the delivery time once DELIVERED). */
  courierStatusAt: Date | null;
}

export interface Money {
  currency: string;
  amount: string;
}

export interface DayBucket {
  /** YYYY-MM-DD in the shop's time zone. */
  date: string;
  bookings: number;
  /** Of that day's bookings: delivered by now. */
  delivered: number;
  /** Of that day's bookings: failed, cancelled or needing the merchant. */
  problems: number;
}

export interface Dashboard {
  timeZone: string;
  today: { date: string; bookings: number; spend: Money[] };
  week: { start: string; bookings: number; spend: Money[] };
  /** Paid → delivered over the deliveries delivered on the chart's days. */
  paidToDelivered: { medianSeconds: number | null; deliveries: number };
  attention: number;
  unmatched: number;
  days: DayBucket[];
}

const PROBLEM = new Set(['NEEDS_ATTENTION', 'FAILED', 'CANCEL_REQUESTED_IN_SHOPIFY']);
const NO_CURRENCY = 'XXX';

/** The zone when Intl knows it, else UTC (the documented fallback). */
export function safeTimeZone(zone: string | null | undefined): string {
  return knownTimeZone(zone) ?? 'UTC';
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) an instant falls on in a zone. */
export function dayKey(ms: number, zone: string): string {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** Calendar arithmetic on YYYY-MM-DD (no zone involved). */
export function addDays(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + n)).toISOString().slice(0, 10);
}

/** The Monday of the week holding `date`. */
export function weekStart(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const dow = new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay();
  return addDays(date, -((dow + 6) % 7));
}

/** The oldest createdAt the service must read: the chart's first day, less the lookback, less a day for any zone offset. */
export function readSince(now: number): Date {
  return new Date(now - (CHART_DAYS + BOOKING_LOOKBACK_DAYS + 1) * DAY_MS);
}

function sumMoney(rows: DashboardRow[]): Money[] {
  const totals = new Map<string, bigint>();
  for (const r of rows) {
    const cents = toCents(r.deliveryPrice);
    if (cents === null) continue;
    const currency = r.currency?.trim().toUpperCase() || NO_CURRENCY;
    totals.set(currency, (totals.get(currency) ?? 0n) + cents);
  }
  return [...totals.keys()].sort().map((currency) => ({ currency, amount: formatCents(totals.get(currency)!) }));
}

export function median(values: number[]): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

export function summarize(input: { rows: DashboardRow[]; now: number; timeZone: string; attention: number; unmatched: number }): Dashboard {
  const zone = safeTimeZone(input.timeZone);
  const today = dayKey(input.now, zone);
  const first = addDays(today, 1 - CHART_DAYS);
  const monday = weekStart(today);
  const days = new Map<string, DayBucket>();
  for (let i = 0; i < CHART_DAYS; i++) {
    const date = addDays(first, i);
    days.set(date, { date, bookings: 0, delivered: 0, problems: 0 });
  }
  const todayRows: DashboardRow[] = [];
  const weekRows: DashboardRow[] = [];
  const durations: number[] = [];
  for (const r of input.rows) {
    if (r.dispatchedAt) {
      const day = days.get(dayKey(r.dispatchedAt.getTime(), zone));
      if (day) {
        day.bookings++;
        if (r.status === 'DELIVERED') day.delivered++;
        else if (PROBLEM.has(r.status)) day.problems++;
        if (day.date === today) todayRows.push(r);
        if (day.date >= monday) weekRows.push(r);
      }
    }
    if (r.status === 'DELIVERED' && r.courierStatusAt && days.has(dayKey(r.courierStatusAt.getTime(), zone))) {
      durations.push(Math.max(0, Math.round((r.courierStatusAt.getTime() - r.createdAt.getTime()) / 1000)));
    }
  }
  return {
    timeZone: zone,
    today: { date: today, bookings: todayRows.length, spend: sumMoney(todayRows) },
    week: { start: monday, bookings: weekRows.length, spend: sumMoney(weekRows) },
    paidToDelivered: { medianSeconds: median(durations), deliveries: durations.length },
    attention: input.attention,
    unmatched: input.unmatched,
    days: [...days.values()],
  };
}
