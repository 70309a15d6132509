// Time in tests: never the hour the suite runs at, nor the machine's zone.
// - TestClock is the app's clock (startScenario's `runtime.clock`, the sandbox's `now`) set to a
//   fixed instant. It then runs at real speed, so timers, leases and polls behave as in production;
//   moveTo() jumps it and wakes the app the way the development clock (DEV_CLOCK_FILE) does.
// - SHOP_ZONES, aroundMidnight() and ACROSS_DST are the fixed instants the date-sensitive tests run
//   at, as tables: each row gives the shop's zone, the instant and the shop's local day then.
import type { Clock } from '../../web/ops/clock.ts';

export type Instant = number | string;

function toMs(t: Instant): number {
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms)) throw new Error(`not an instant: ${String(t)}`);
  return ms;
}

export class TestClock implements Clock {
  #offsetMs: number;
  readonly #listeners = new Set<() => void>();

  constructor(start: Instant) {
    this.#offsetMs = toMs(start) - Date.now();
  }

  readonly now = (): number => Date.now() + this.#offsetMs;

  onJump(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** How many runtimes listen for jumps (a closed one must not). */
  get listeners(): number {
    return this.#listeners.size;
  }

  /** The clock reads `t` now and runs on from there; the app looks at due work again. */
  moveTo(t: Instant): void {
    this.#offsetMs = toMs(t) - Date.now();
    for (const l of this.#listeners) l();
  }

  advance(ms: number): void {
    this.moveTo(this.now() + ms);
  }

  date(): Date {
    return new Date(this.now());
  }

  /** Seconds, as signed webhook timestamps carry them. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }
}

/** A shop's zone without summer time, and its offset from UTC. */
export interface ShopZone {
  label: string;
  zone: string;
  offset: string;
}

export const SHOP_ZONES: readonly ShopZone[] = [
  { label: 'UTC−10', zone: 'Pacific/Honolulu', offset: '-10:00' },
  { label: 'UTC', zone: 'UTC', offset: '+00:00' },
  { label: 'UTC+2', zone: 'Africa/Johannesburg', offset: '+02:00' },
  { label: 'UTC+14', zone: 'Pacific/Kiritimati', offset: '+14:00' },
];

/** A moment in a shop: the instant, and the shop's wall clock then (day, time, offset in force). */
export interface ZonedMoment {
  name: string;
  zone: string;
  at: number;
  day: string;
  time: string;
  offset: string;
}

/** The instant a wall clock at `offset` reads `time` on `day`. */
export function wallTime(day: string, time: string, offset: string): number {
  return toMs(`${day}T${time}:00${offset}`);
}

/** placeOrder's changes for an order Shopify made `minutes` before `at` (one from the app's future, or under a minute old, waits for routing). */
export function madeBefore(at: number, minutes = 5): { created_at: string } {
  return { created_at: new Date(at - minutes * 60_000).toISOString() };
}

/** The calendar day after `day` (YYYY-MM-DD). */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** The shop's calendar day at `t`, as Intl reads it: the check on every table row. */
export function localDay(t: number, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);
}

function moment(label: string, zone: string, day: string, time: string, offset: string): ZonedMoment {
  const at = wallTime(day, time, offset);
  const m = { name: `${label} (${zone}) ${day} ${time} = ${new Date(at).toISOString().slice(0, 16)}Z`, zone, at, day, time, offset };
  // A table row the machine's time-zone data disagrees with fails here, not as a puzzling test failure.
  if (localDay(at, zone) !== day) throw new Error(`${m.name}: Intl says the local day is ${localDay(at, zone)}, not ${day}`);
  return m;
}

/**
 * Wall times around midnight in every shop zone: the evening of `day` (times from 12:00) and the
 * first minutes of the day after (times before 12:00). 23:45 in UTC+2 is 21:45 UTC.
 */
export function aroundMidnight(day = '2026-11-23', times: readonly string[] = ['23:45', '23:59', '00:00', '00:15']): ZonedMoment[] {
  return SHOP_ZONES.flatMap((z) => times.map((t) => moment(z.label, z.zone, t >= '12:00' ? day : nextDay(day), t, z.offset)));
}

/** Across summer-time changes: New York springs forward at 02:00 on 8 March 2026, London falls back at 02:00 on 25 October. */
export const ACROSS_DST: readonly ZonedMoment[] = [
  moment('New York, the night before clocks go forward', 'America/New_York', '2026-03-07', '23:45', '-05:00'),
  moment('New York, a minute before clocks go forward', 'America/New_York', '2026-03-08', '01:59', '-05:00'),
  moment('New York, a minute after (EDT)', 'America/New_York', '2026-03-08', '03:00', '-04:00'),
  moment('London, 01:30 the first time (BST)', 'Europe/London', '2026-10-25', '01:30', '+01:00'),
  moment('London, 01:30 the second time (GMT)', 'Europe/London', '2026-10-25', '01:30', '+00:00'),
  moment('London, the night before clocks go back', 'Europe/London', '2026-10-24', '23:45', '+01:00'),
];
