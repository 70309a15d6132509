// Delivery windows, decided: given a pickup location's window config and an
// instant, dispatch now or schedule for a later instant (with the reason).
// Pure (no I/O, no clock of its own): table-tested across DST transitions in
// test/unit/windows-schedule.test.ts, in the mutation scope. Local times are
// the location's IANA zone, converted with Intl (no dependency).

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** "HH:MM", 24-hour, local to the location. */
export type LocalTime = string;

export interface OpeningHours {
  open: LocalTime;
  close: LocalTime;
}

export interface WindowConfig {
  timeZone: string;
  /** Per weekday; null (or absent) = closed that day. */
  hours: Partial<Record<Weekday, OpeningHours | null>>;
  /** Same-day cut-off: orders paid at or after it wait for the next opening. Null = the closing time. */
  cutoff: LocalTime | null;
  /** Local dates ("YYYY-MM-DD") the location is closed. */
  closures: string[];
  /** Minutes after opening before a scheduled order is dispatched. */
  prepMinutes: number;
}

export type ScheduleReason = 'closure' | 'closed_day' | 'before_opening' | 'after_cutoff' | 'after_closing';

export type WindowDecision =
  | { kind: 'now' }
  | { kind: 'scheduled'; at: number; reason: ScheduleReason };

/** How far ahead an opening is looked for; validation keeps every config well inside it. */
export const SEARCH_DAYS = 800;

export interface LocalDate {
  y: number;
  m: number;
  d: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when Intl knows the zone (e.g. "Europe/London"). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock at an instant in a zone. */
export function wallClock(epochMs: number, timeZone: string): LocalDate & { minutes: number; second: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(epochMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, minutes: parts.hour! * 60 + parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at an instant, in ms (whole seconds). */
function offsetAt(epochMs: number, timeZone: string): number {
  const w = wallClock(epochMs, timeZone);
  const asUtc = Date.UTC(w.y, w.m - 1, w.d, 0, w.minutes, w.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant of a local wall time. A time skipped by a spring-forward gap is
 * moved forward by the gap (02:30 → 03:30); a repeated one takes the first.
 */
export function zonedInstant(date: LocalDate, minutes: number, timeZone: string): number {
  const wall = Date.UTC(date.y, date.m - 1, date.d, 0, minutes);
  const before = offsetAt(wall - 86_400_000, timeZone);
  const after = offsetAt(wall + 86_400_000, timeZone);
  const valid = [wall - before, wall - after].filter((t) => offsetAt(t, timeZone) === wall - t);
  if (valid.length) return Math.min(...valid);
  return wall - before;
}

export function parseLocalTime(t: LocalTime): number {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(t);
  if (!m) throw new Error(`not a local time: ${t}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

export function addDays(date: LocalDate, n: number): LocalDate {
  const t = new Date(Date.UTC(date.y, date.m - 1, date.d + n));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

export function isoDate(date: LocalDate): string {
  return `${date.y}-${String(date.m).padStart(2, '0')}-${String(date.d).padStart(2, '0')}`;
}

/** The opening hours on a local date: null when closed (a closure, or a closed weekday). */
export function hoursOn(config: WindowConfig, date: LocalDate): OpeningHours | null {
  if (config.closures.includes(isoDate(date))) return null;
  return config.hours[WEEKDAYS[new Date(Date.UTC(date.y, date.m - 1, date.d)).getUTCDay()]!] ?? null;
}

/** Dispatch now, or the instant to dispatch at (the next opening plus the preparation time) and why. */
export function decideWindow(config: WindowConfig, now: number): WindowDecision {
  const local = wallClock(now, config.timeZone);
  const today: LocalDate = { y: local.y, m: local.m, d: local.d };
  const hours = hoursOn(config, today);
  let reason: ScheduleReason;
  if (!hours) reason = config.closures.includes(isoDate(today)) ? 'closure' : 'closed_day';
  else if (local.minutes < parseLocalTime(hours.open)) return scheduledAt(config, today, hours, 'before_opening');
  else if (local.minutes >= parseLocalTime(hours.close)) reason = 'after_closing';
  else if (config.cutoff !== null && local.minutes >= parseLocalTime(config.cutoff)) reason = 'after_cutoff';
  else return { kind: 'now' };
  for (let i = 1; i <= SEARCH_DAYS; i++) {
    const day = addDays(today, i);
    const h = hoursOn(config, day);
    if (h) return scheduledAt(config, day, h, reason);
  }
  // Never open (validation refuses such a config): never hold an order forever.
  return { kind: 'now' };
}

function scheduledAt(config: WindowConfig, day: LocalDate, hours: OpeningHours, reason: ScheduleReason): WindowDecision {
  return { kind: 'scheduled', at: zonedInstant(day, parseLocalTime(hours.open), config.timeZone) + config.prepMinutes * 60_000, reason };
}

/** Can an order paid now still go out today? Checkout offers a same-day rate only then. */
export function sameDayOpen(config: WindowConfig, now: number): boolean {
  return decideWindow(config, now).kind === 'now';
}

export const REASON_WORDS: Record<ScheduleReason, string> = {
  closure: 'the location is closed today',
  closed_day: 'the location is closed on this weekday',
  before_opening: 'paid before opening',
  after_cutoff: 'paid after the same-day cut-off',
  after_closing: 'paid after closing',
};

/** The planned time in the location's zone, e.g. "Tue 2026-11-24 08:30 (Europe/London)". */
export function formatLocal(epochMs: number, timeZone: string): string {
  const w = wallClock(epochMs, timeZone);
  const day = WEEKDAYS[new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay()]!;
  const hm = `${String(Math.floor(w.minutes / 60)).padStart(2, '0')}:${String(w.minutes % 60).padStart(2, '0')}`;
  return `${day[0]!.toUpperCase()}${day.slice(1)} ${isoDate(w)} ${hm} (${timeZone})`;
}
