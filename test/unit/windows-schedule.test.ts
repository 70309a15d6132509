// Delivery windows (web/windows/schedule.ts): dispatch now or the planned instant, with the
// reason, across DST transitions (London, New York, Sydney) and a zone without DST (Johannesburg).
import { describe, expect, it } from 'vitest';
import { decideWindow, formatLocal, isTimeZone, parseLocalTime, sameDayOpen, zonedInstant, type WindowConfig } from '../../web/windows/schedule.ts';
import { aroundMidnight, wallTime } from '../support/time.ts';

const DAY = { open: '08:00', close: '18:00' };
const everyDay = (timeZone: string, more: Partial<WindowConfig> = {}): WindowConfig => ({
  timeZone, hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: '16:00', closures: [], prepMinutes: 30, ...more,
});
const weekdays = (timeZone: string, more: Partial<WindowConfig> = {}): WindowConfig => ({
  timeZone, hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: null }, cutoff: '16:00', closures: [], prepMinutes: 30, ...more,
});
const at = (iso: string) => Date.parse(iso);

describe('decideWindow', () => {
  it.each<[string, WindowConfig, string, string | null, string?]>([
    // [name, config, now (UTC), planned (UTC) or null for now, reason]
    ['London, open: now', everyDay('Europe/London'), '2026-03-30T09:00:00Z', null],
    ['London, after cut-off the day before BST starts → 08:30 BST', everyDay('Europe/London'), '2026-03-28T17:00:00Z', '2026-03-29T07:30:00Z', 'after_cutoff'],
    ['London, before opening in BST', everyDay('Europe/London'), '2026-03-30T05:00:00Z', '2026-03-30T07:30:00Z', 'before_opening'],
    ['London, after cut-off the day before BST ends → 08:30 GMT', everyDay('Europe/London'), '2026-10-24T15:30:00Z', '2026-10-25T08:30:00Z', 'after_cutoff'],
    ['New York, after closing the evening before DST starts', everyDay('America/New_York'), '2026-03-08T01:00:00Z', '2026-03-08T12:30:00Z', 'after_closing'],
    ['New York, after cut-off the day before DST ends', everyDay('America/New_York'), '2026-10-31T21:00:00Z', '2026-11-01T13:30:00Z', 'after_cutoff'],
    ['New York, an opening skipped by spring-forward moves forward (02:30 → 03:30 EDT)',
      everyDay('America/New_York', { hours: { sun: { open: '02:30', close: '18:00' } }, prepMinutes: 0 }), '2026-03-08T06:00:00Z', '2026-03-08T07:30:00Z', 'before_opening'],
    ['New York, an opening in the repeated hour takes the first (01:30 EDT)',
      everyDay('America/New_York', { hours: { sun: { open: '01:30', close: '18:00' } }, prepMinutes: 0 }), '2026-11-01T04:30:00Z', '2026-11-01T05:30:00Z', 'before_opening'],
    ['Sydney, after cut-off the day before DST ends → 08:30 AEST', everyDay('Australia/Sydney'), '2026-04-04T06:00:00Z', '2026-04-04T22:30:00Z', 'after_cutoff'],
    ['Sydney, after cut-off the day before DST starts → 08:30 AEDT', everyDay('Australia/Sydney'), '2026-10-03T07:00:00Z', '2026-10-03T21:30:00Z', 'after_cutoff'],
    ['Johannesburg, Friday after cut-off → Monday (weekend closed)', weekdays('Africa/Johannesburg'), '2026-11-27T14:59:00Z', '2026-11-30T06:30:00Z', 'after_cutoff'],
    ['Johannesburg, Saturday → Monday', weekdays('Africa/Johannesburg'), '2026-11-28T09:00:00Z', '2026-11-30T06:30:00Z', 'closed_day'],
    ['Johannesburg, a closure date → the next open day', weekdays('Africa/Johannesburg', { closures: ['2026-12-25', '2026-12-28'] }), '2026-12-25T08:00:00Z', '2026-12-29T06:30:00Z', 'closure'],
    ['Johannesburg, the minute before cut-off: now', weekdays('Africa/Johannesburg'), '2026-11-26T13:59:00Z', null],
    ['Johannesburg, at the cut-off: scheduled', weekdays('Africa/Johannesburg'), '2026-11-26T14:00:00Z', '2026-11-27T06:30:00Z', 'after_cutoff'],
    ['Johannesburg, at opening: now', weekdays('Africa/Johannesburg'), '2026-11-26T06:00:00Z', null],
    ['Johannesburg, the minute before opening', weekdays('Africa/Johannesburg'), '2026-11-26T05:59:00Z', '2026-11-26T06:30:00Z', 'before_opening'],
    ['no cut-off: open until closing', weekdays('Africa/Johannesburg', { cutoff: null }), '2026-11-26T15:59:00Z', null],
    ['no cut-off: at closing, the next day', weekdays('Africa/Johannesburg', { cutoff: null }), '2026-11-26T16:00:00Z', '2026-11-27T06:30:00Z', 'after_closing'],
    ['a closure today before opening waits for the next open day', weekdays('Africa/Johannesburg', { closures: ['2026-11-26'] }), '2026-11-26T05:00:00Z', '2026-11-27T06:30:00Z', 'closure'],
    ['a closure on a one-digit day', weekdays('Africa/Johannesburg', { closures: ['2026-12-03'] }), '2026-12-03T08:00:00Z', '2026-12-04T06:30:00Z', 'closure'],
    ['closures on other days do not matter', weekdays('Africa/Johannesburg', { closures: ['2026-11-25'] }), '2026-11-26T09:00:00Z', null],
    ['the local date decides (Sydney Monday while UTC is Sunday)', weekdays('Australia/Sydney'), '2026-11-29T22:00:00Z', null],
    ['never open: never held', { ...weekdays('UTC'), hours: {} }, '2026-11-26T09:00:00Z', null],
  ])('%s', (_name, config, now, planned, reason) => {
    const d = decideWindow(config, at(now));
    if (planned === null) expect(d).toEqual({ kind: 'now' });
    else expect(d).toEqual({ kind: 'scheduled', at: at(planned), reason });
    expect(sameDayOpen(config, at(now))).toBe(planned === null);
  });
});

describe('decideWindow around midnight: the shop\'s day, from UTC−10 to UTC+14', () => {
  // Open 08:00–18:00 every day, closed on the 24th (local): late on the 23rd and just after midnight
  // on the 24th, the next opening is the 25th 08:30 in the shop's zone.
  it.each(aroundMidnight('2026-11-23', ['23:50', '23:59', '00:00', '00:10']).map((m) => [m.name, m] as const))('%s', (_name, m) => {
    const config = everyDay(m.zone, { closures: ['2026-11-24'] });
    expect(decideWindow(config, m.at)).toEqual({ kind: 'scheduled', at: wallTime('2026-11-25', '08:30', m.offset), reason: m.day === '2026-11-24' ? 'closure' : 'after_closing' });
    expect(sameDayOpen(config, m.at)).toBe(false);
  });
});

describe('zonedInstant and formatLocal', () => {
  it.each<[string, { y: number; m: number; d: number }, number, string]>([
    ['Europe/London', { y: 2026, m: 7, d: 1 }, 9 * 60, '2026-07-01T08:00:00Z'],
    ['Europe/London', { y: 2026, m: 1, d: 1 }, 9 * 60, '2026-01-01T09:00:00Z'],
    ['Europe/London', { y: 2026, m: 3, d: 29 }, 60 + 30, '2026-03-29T01:30:00Z'],
    ['Europe/London', { y: 2026, m: 10, d: 25 }, 60 + 30, '2026-10-25T00:30:00Z'],
    ['Africa/Johannesburg', { y: 2026, m: 6, d: 1 }, 0, '2026-05-31T22:00:00Z'],
    ['Australia/Sydney', { y: 2026, m: 10, d: 4 }, 2 * 60 + 15, '2026-10-03T16:15:00Z'],
  ])('%s %j %i → %s', (zone, date, minutes, iso) => {
    expect(zonedInstant(date, minutes, zone)).toBe(at(iso));
  });

  it('formats the planned time in the location zone', () => {
    expect(formatLocal(at('2026-03-29T07:30:00Z'), 'Europe/London')).toBe('Sun 2026-03-29 08:30 (Europe/London)');
    expect(formatLocal(at('2026-11-30T06:30:00Z'), 'Africa/Johannesburg')).toBe('Mon 2026-11-30 08:30 (Africa/Johannesburg)');
    expect(formatLocal(at('2026-12-04T07:05:00Z'), 'Africa/Johannesburg')).toBe('Fri 2026-12-04 09:05 (Africa/Johannesburg)');
  });
});

describe('parseLocalTime and isTimeZone', () => {
  it.each([['00:00', 0], ['08:05', 485], ['23:59', 1439], ['19:30', 1170]])('%s → %i', (t, m) => expect(parseLocalTime(t)).toBe(m));
  it.each(['8:05', '24:00', '08:60', 'x08:00', '08:00x', '0800', ''])('%j is refused', (t) => expect(() => parseLocalTime(t)).toThrow(`not a local time: ${t}`));
  it('knows IANA zones', () => {
    expect(isTimeZone('Australia/Sydney')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
