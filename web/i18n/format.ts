// Dates and times in the reader's locale and the shop's time zone, with Intl
// only: ICU's own words, plural rules and 12/24-hour habits per locale. Pure;
// table-tested in test/unit/i18n-format.test.ts (in the mutation scope).
import { shippedLocale, type Locale } from './locales.ts';

/**
 * The tag to format with, for a chosen language: the candidate it was chosen
 * from (the first of that language), as written when it names a region
 * ("en-ZA", "de-AT"), else the language in the shop's country ("en" in ZA is
 * "en-ZA": 14:05 rather than 2:05 PM), else the language alone.
 */
export function formattingTag(language: Locale, candidates: ReadonlyArray<string | null | undefined>, country: string | null): string {
  const chosen = candidates.find((c) => shippedLocale(c) === language)?.trim().replace('_', '-');
  const wanted = chosen?.includes('-') ? chosen : country ? `${language}-${country}` : language;
  try {
    return Intl.getCanonicalLocales(wanted)[0] ?? language;
  } catch {
    return language;
  }
}

const DAY_MS = 86_400_000;

export interface DateFormats {
  readonly tag: string;
  readonly timeZone: string;
  /** The zone's name in the locale, as it is now: "South Africa Standard Time", "Mitteleuropäische Zeit". */
  zoneName(now: number): string;
  /** The wall-clock time: "14:05" on the same local day as now, else with the weekday and date (and the year when not this year's). */
  clock(at: Date, now: number): string;
  /** How long ago: "now", "15 minutes ago", "2 hours ago", "yesterday". */
  ago(at: Date, now: number): string;
  /** A time range on its day: "Today, 14:30–17:30", "Tomorrow, …", else the date; across days, both dates. */
  window(from: Date, to: Date, now: number): string;
}

const cache = new Map<string, DateFormats>();

export function dateFormats(tag: string, timeZone: string): DateFormats {
  const key = `${tag}|${timeZone}`;
  let f = cache.get(key);
  if (!f) {
    f = build(tag, timeZone);
    cache.set(key, f);
  }
  return f;
}

function build(tag: string, timeZone: string): DateFormats {
  // A 24-hour locale writes 00:05 and 09:30 (ICU's "numeric" would give 0:05); a 12-hour one, 9:30 AM.
  const cycle = new Intl.DateTimeFormat(tag, { hour: 'numeric' }).resolvedOptions().hourCycle;
  const clockParts = cycle === 'h23' || cycle === 'h24' ? ({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const) : ({ hour: 'numeric', minute: '2-digit' } as const);
  const time = new Intl.DateTimeFormat(tag, { timeZone, ...clockParts });
  const dated = new Intl.DateTimeFormat(tag, { timeZone, weekday: 'short', day: 'numeric', month: 'short', ...clockParts });
  const datedYear = new Intl.DateTimeFormat(tag, { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', ...clockParts });
  const dayOnly = new Intl.DateTimeFormat(tag, { timeZone, weekday: 'short', day: 'numeric', month: 'short' });
  const ymd = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const relative = new Intl.RelativeTimeFormat(tag, { numeric: 'auto' });
  /** The local calendar day as a day number, for differences in days. */
  const dayNumber = (ms: number) => Date.parse(`${ymd.format(ms)}T00:00:00Z`) / DAY_MS;
  const year = (ms: number) => ymd.format(ms).slice(0, 4);
  const capital = (s: string) => s.charAt(0).toLocaleUpperCase(tag) + s.slice(1);

  const zone = new Intl.DateTimeFormat(tag, { timeZone, timeZoneName: 'longGeneric' });

  return {
    tag,
    timeZone,
    // Of now: ICU names a zone by the rules of the year (1970 Berlin had no summer time: "Normalzeit").
    zoneName: (now) => zone.formatToParts(now).find((p) => p.type === 'timeZoneName')?.value ?? timeZone,
    clock(at, now) {
      const t = at.getTime();
      if (dayNumber(t) === dayNumber(now)) return time.format(t);
      return (year(t) === year(now) ? dated : datedYear).format(t);
    },
    ago(at, now) {
      const min = Math.max(0, Math.floor((now - at.getTime()) / 60_000));
      if (min < 1) return relative.format(0, 'second');
      if (min < 60) return relative.format(-min, 'minute');
      const h = Math.floor(min / 60);
      if (h < 24) return relative.format(-h, 'hour');
      return relative.format(-Math.floor(h / 24), 'day');
    },
    window(from, to, now) {
      const a = from.getTime();
      const b = to.getTime();
      if (dayNumber(a) !== dayNumber(b)) return dated.formatRange(a, b);
      const days = dayNumber(a) - dayNumber(now);
      const day = days === 0 || days === 1 ? capital(relative.format(days, 'day')) : dayOnly.format(a);
      return `${day}, ${time.formatRange(a, b)}`;
    },
  };
}
