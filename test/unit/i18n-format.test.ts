// Dates and times per locale and the shop's zone (web/i18n/format.ts): Intl only, clock passed in.
import { describe, expect, it } from 'vitest';
import { dateFormats, formattingTag } from '../../web/i18n/format.ts';

const z = (iso: string) => new Date(iso);
// ICU puts thin and narrow no-break spaces around range dashes and before AM/PM: compared as plain spaces.
const plain = (s: string) => s.replace(/[\u2009\u202f]/g, ' ');

describe('formattingTag: the region of the candidate the language was chosen from, else the shop country', () => {
  it.each<[Parameters<typeof formattingTag>, string]>([
    [['en', ['en', 'de'], 'ZA'], 'en-ZA'],
    [['en', ['en-US', 'de'], 'ZA'], 'en-US'],
    [['de', ['xx', 'de-AT', 'de-CH'], 'ZA'], 'de-AT'],
    [['de', [null, 'de', 'de-CH'], 'AT'], 'de-AT'],
    [['en', [null, 'fr', 'en-GB'], null], 'en-GB'],
    [['en', ['en'], null], 'en'],
    [['es', ['es_419'], 'ZA'], 'es-419'],
    [['en', [], null], 'en'],
    [['en', ['en-!!'], 'ZA'], 'en'],
  ])('%j → %s', (args, expected) => {
    expect(formattingTag(...args)).toBe(expected);
  });
});

describe("clock: the shop's wall clock, in the reader's locale", () => {
  it.each<[string, string, string, string, string, string]>([
    ['same local day: the time alone', 'en-ZA', '2026-11-23T12:05:00Z', '2026-11-23T12:17:00Z', 'Africa/Johannesburg', '14:05'],
    ['a 12-hour locale', 'en-US', '2026-11-23T12:05:00Z', '2026-11-23T12:17:00Z', 'Africa/Johannesburg', '2:05 PM'],
    ['an earlier local day: weekday, date and time', 'en-ZA', '2026-11-20T12:05:00Z', '2026-11-23T12:17:00Z', 'Africa/Johannesburg', 'Fri, 20 Nov, 14:05'],
    ['the same in German', 'de-DE', '2026-11-20T12:05:00Z', '2026-11-23T12:17:00Z', 'Africa/Johannesburg', 'Fr., 20. Nov., 14:05'],
    ['midnight is 00, not 24 or 0', 'en-ZA', '2026-11-22T22:00:00Z', '2026-11-22T23:00:00Z', 'Africa/Johannesburg', '00:00'],
    ['same UTC day, but yesterday in the zone', 'en-GB', '2026-11-23T10:00:00Z', '2026-11-23T12:00:00Z', 'Pacific/Auckland', 'Mon 23 Nov, 23:00'],
    ['same local day that is two UTC days', 'en-GB', '2026-11-22T23:30:00Z', '2026-11-23T00:30:00Z', 'America/New_York', '18:30'],
    ['UTC', 'en-GB', '2026-11-23T09:04:00Z', '2026-11-23T12:00:00Z', 'UTC', '09:04'],
    ['New York, summer time (EDT, UTC-4)', 'en-GB', '2026-11-01T05:30:00Z', '2026-11-01T07:00:00Z', 'America/New_York', '01:30'],
    ['New York, the same 01:30 again an hour later (EST, UTC-5)', 'en-GB', '2026-11-01T06:30:00Z', '2026-11-01T07:00:00Z', 'America/New_York', '01:30'],
    ['New York, the next minute after 01:59 is 03:00', 'en-GB', '2026-03-08T07:00:00Z', '2026-03-08T08:00:00Z', 'America/New_York', '03:00'],
    ['Sydney, 01:30 on the morning clocks go forward (AEST, UTC+10), seen the next day', 'en-GB', '2026-10-03T15:30:00Z', '2026-10-04T15:30:00Z', 'Australia/Sydney', 'Sun 4 Oct, 01:30'],
    ['Sydney, after the change (AEDT, UTC+11)', 'en-GB', '2026-10-04T15:30:00Z', '2026-10-04T16:00:00Z', 'Australia/Sydney', '02:30'],
    ['a year earlier shows the year, not "today"', 'en-GB', '2025-11-23T12:05:00Z', '2026-11-23T12:17:00Z', 'UTC', 'Sun, 23 Nov 2025, 12:05'],
  ])('%s', (_name, tag, at, now, zone, expected) => {
    expect(plain(dateFormats(tag, zone).clock(z(at), z(now).getTime()))).toBe(expected);
  });
});

describe('ago: how long ago, in words of the locale (Intl.RelativeTimeFormat, its plural rules)', () => {
  const now = z('2026-11-23T12:00:00Z').getTime();
  it.each<[string, number, string]>([
    ['en', 0, 'now'], ['en', 59, 'now'], ['en', 60, '1 minute ago'], ['en', 15 * 60, '15 minutes ago'], ['en', 3600, '1 hour ago'],
    ['en', 86_400, 'yesterday'], ['en', 3 * 86_400, '3 days ago'],
    ['de', 60, 'vor 1 Minute'], ['de', 15 * 60, 'vor 15 Minuten'], ['fr', 2 * 3600, 'il y a 2 heures'], ['es', 15 * 60, 'hace 15 minutos'], ['af', 15 * 60, '15 minute gelede'],
    ['en', -120, 'now'],
  ])('%s, %i s → %s', (tag, seconds, expected) => {
    expect(dateFormats(tag, 'UTC').ago(new Date(now - seconds * 1000), now)).toBe(expected);
  });
});

describe('window: an expected time range on its day', () => {
  const now = z('2026-11-23T08:00:00Z').getTime();
  it.each<[string, string, string, string, string]>([
    ['today', 'en-ZA', '2026-11-23T12:30:00Z', '2026-11-23T15:30:00Z', 'Today, 14:30–17:30'],
    ['tomorrow', 'en-ZA', '2026-11-24T06:30:00Z', '2026-11-24T09:30:00Z', 'Tomorrow, 08:30–11:30'],
    ['a later day: its date', 'en-ZA', '2026-11-26T06:30:00Z', '2026-11-26T09:30:00Z', 'Thu, 26 Nov, 08:30–11:30'],
    ['across midnight: both dates', 'en-ZA', '2026-11-23T20:30:00Z', '2026-11-23T23:30:00Z', 'Mon, 23 Nov, 22:30 – Tue, 24 Nov, 01:30'],
    ['German', 'de-ZA', '2026-11-23T12:30:00Z', '2026-11-23T15:30:00Z', 'Heute, 14:30–17:30 Uhr'],
    ['Afrikaans', 'af-ZA', '2026-11-24T06:30:00Z', '2026-11-24T09:30:00Z', 'Môre, 08:30–11:30'],
    ['12-hour English', 'en-US', '2026-11-23T12:30:00Z', '2026-11-23T15:30:00Z', 'Today, 2:30 – 5:30 PM'],
  ])('%s', (_name, tag, from, to, expected) => {
    expect(plain(dateFormats(tag, 'Africa/Johannesburg').window(z(from), z(to), now))).toBe(expected);
  });

  it("names the zone in the locale, by this year's rules", () => {
    const now = z('2026-11-23T08:00:00Z').getTime();
    expect(dateFormats('en-ZA', 'Africa/Johannesburg').zoneName(now)).toBe('South Africa Standard Time');
    expect(dateFormats('de-DE', 'Europe/Berlin').zoneName(now)).toBe('Mitteleuropäische Zeit');
    expect(dateFormats('fr-FR', 'Europe/Paris').zoneName(now)).toBe('heure d’Europe centrale');
  });
});
