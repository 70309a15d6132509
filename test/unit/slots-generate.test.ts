// Delivery slots (web/slots/): generated from the location's delivery window in its zone,
// across DST transitions (London, New York, Sydney) and a zone without DST (Johannesburg).
import { describe, expect, it } from 'vitest';
import { asapOffered, bookAt, checkSlot, generateSlots } from '../../web/slots/generate.ts';
import { choiceFrom, slotValue } from '../../web/slots/attributes.ts';
import { SettingsSchema } from '../../web/settings/schema.ts';
import type { WindowConfig } from '../../web/windows/schedule.ts';

const DAY = { open: '08:00', close: '18:00' };
const everyDay = (timeZone: string, more: Partial<WindowConfig> = {}): WindowConfig => ({
  timeZone, hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: '16:00', closures: [], prepMinutes: 30, ...more,
});
const weekdays = (timeZone: string, more: Partial<WindowConfig> = {}): WindowConfig => ({
  timeZone, hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY }, cutoff: '16:00', closures: [], prepMinutes: 30, ...more,
});
const rules = (more: Partial<{ slotMinutes: number; daysAhead: number; leadMinutes: number }> = {}) => ({ slotMinutes: 120, daysAhead: 1, leadMinutes: 60, ...more });
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');
type Expected = Array<[string, Array<[string, string]>]>;

describe('generateSlots', () => {
  it.each<[string, WindowConfig, ReturnType<typeof rules>, string, Expected]>([
    ['London, after cut-off the day before BST starts: Sunday in BST', everyDay('Europe/London'), rules(), '2026-03-28T20:00:00Z',
      [['2026-03-29', [['2026-03-29T07:30Z', '2026-03-29T09:30Z'], ['2026-03-29T09:30Z', '2026-03-29T11:30Z'], ['2026-03-29T11:30Z', '2026-03-29T13:30Z'], ['2026-03-29T13:30Z', '2026-03-29T15:30Z']]]]],
    ['London, after cut-off the day before BST ends: Sunday in GMT', everyDay('Europe/London'), rules(), '2026-10-24T20:00:00Z',
      [['2026-10-25', [['2026-10-25T08:30Z', '2026-10-25T10:30Z'], ['2026-10-25T10:30Z', '2026-10-25T12:30Z'], ['2026-10-25T12:30Z', '2026-10-25T14:30Z'], ['2026-10-25T14:30Z', '2026-10-25T16:30Z']]]]],
    ['New York, spring-forward: the 00:00–02:00 slot lasts 1 h, 02:00 is 03:00 EDT',
      everyDay('America/New_York', { hours: { sun: { open: '00:00', close: '06:00' } }, prepMinutes: 0, cutoff: null }), rules({ daysAhead: 0, leadMinutes: 0 }), '2026-03-08T05:00:00Z',
      [['2026-03-08', [['2026-03-08T05:00Z', '2026-03-08T07:00Z'], ['2026-03-08T07:00Z', '2026-03-08T08:00Z'], ['2026-03-08T08:00Z', '2026-03-08T10:00Z']]]]],
    ['New York, fall-back: the 01:00–02:00 slot lasts 2 h (01:00 EDT to 02:00 EST)',
      everyDay('America/New_York', { hours: { sun: { open: '00:00', close: '04:00' } }, prepMinutes: 0, cutoff: null }), rules({ slotMinutes: 60, daysAhead: 0, leadMinutes: 0 }), '2026-11-01T04:00:00Z',
      [['2026-11-01', [['2026-11-01T04:00Z', '2026-11-01T05:00Z'], ['2026-11-01T05:00Z', '2026-11-01T07:00Z'], ['2026-11-01T07:00Z', '2026-11-01T08:00Z'], ['2026-11-01T08:00Z', '2026-11-01T09:00Z']]]]],
    ['Sydney, after cut-off the day before DST starts: Sunday in AEDT', everyDay('Australia/Sydney'), rules(), '2026-10-03T07:00:00Z',
      [['2026-10-04', [['2026-10-03T21:30Z', '2026-10-03T23:30Z'], ['2026-10-03T23:30Z', '2026-10-04T01:30Z'], ['2026-10-04T01:30Z', '2026-10-04T03:30Z'], ['2026-10-04T03:30Z', '2026-10-04T05:30Z']]]]],
    ['Johannesburg, today: only slots whose booking (start − 1 h lead) is still ahead', weekdays('Africa/Johannesburg'), rules({ daysAhead: 0 }), '2026-11-26T08:00:00Z',
      [['2026-11-26', [['2026-11-26T10:30Z', '2026-11-26T12:30Z'], ['2026-11-26T12:30Z', '2026-11-26T14:30Z']]]]],
    ['Johannesburg, the booking exactly now is still offered', weekdays('Africa/Johannesburg'), rules({ daysAhead: 0 }), '2026-11-26T09:30:00Z',
      [['2026-11-26', [['2026-11-26T10:30Z', '2026-11-26T12:30Z'], ['2026-11-26T12:30Z', '2026-11-26T14:30Z']]]]],
    ['Johannesburg, before the cut-off today is offered', weekdays('Africa/Johannesburg'), rules({ daysAhead: 0, leadMinutes: 0 }), '2026-11-26T12:29:00Z',
      [['2026-11-26', [['2026-11-26T12:30Z', '2026-11-26T14:30Z']]]]],
    ['Johannesburg, Friday after cut-off: the weekend is closed, Monday', weekdays('Africa/Johannesburg'), rules({ daysAhead: 3 }), '2026-11-27T14:00:00Z',
      [['2026-11-30', [['2026-11-30T06:30Z', '2026-11-30T08:30Z'], ['2026-11-30T08:30Z', '2026-11-30T10:30Z'], ['2026-11-30T10:30Z', '2026-11-30T12:30Z'], ['2026-11-30T12:30Z', '2026-11-30T14:30Z']]]]],
    ['Johannesburg, a closure date has no slots', weekdays('Africa/Johannesburg', { closures: ['2026-11-27'] }), rules(), '2026-11-26T15:00:00Z', []],
    ['at the cut-off, today\'s later slots are no longer offered', weekdays('Africa/Johannesburg', { cutoff: '12:00' }), rules({ daysAhead: 0, leadMinutes: 0 }), '2026-11-26T10:00:00Z', []],
    ['a minute before the cut-off they are', weekdays('Africa/Johannesburg', { cutoff: '12:00' }), rules({ daysAhead: 0, leadMinutes: 0 }), '2026-11-26T09:59:00Z',
      [['2026-11-26', [['2026-11-26T10:30Z', '2026-11-26T12:30Z'], ['2026-11-26T12:30Z', '2026-11-26T14:30Z']]]]],
    ['New York, a slot wholly inside the spring-forward gap is left out (02:00–03:00)',
      everyDay('America/New_York', { hours: { sun: { open: '02:00', close: '05:00' } }, prepMinutes: 0, cutoff: null }), rules({ slotMinutes: 60, daysAhead: 0, leadMinutes: 0 }), '2026-03-08T05:00:00Z',
      [['2026-03-08', [['2026-03-08T07:00Z', '2026-03-08T08:00Z'], ['2026-03-08T08:00Z', '2026-03-08T09:00Z']]]]],
    ['days ahead 0, after cut-off: nothing', weekdays('Africa/Johannesburg'), rules({ daysAhead: 0 }), '2026-11-26T14:00:00Z', []],
    ['a slot longer than the day: nothing', weekdays('Africa/Johannesburg'), rules({ slotMinutes: 720 }), '2026-11-26T05:00:00Z', []],
    ['the local date decides (Sydney Monday while UTC is Sunday)', weekdays('Australia/Sydney', { cutoff: null }), rules({ daysAhead: 0, slotMinutes: 240, leadMinutes: 0 }), '2026-11-29T22:00:00Z',
      [['2026-11-30', [['2026-11-30T01:30Z', '2026-11-30T05:30Z']]]]],
  ])('%s', (_name, config, r, now, expected) => {
    const got = generateSlots(config, r, at(now)).map((d) => [d.date, d.slots.map((s) => [iso(s.start), iso(s.end)])]);
    expect(got).toEqual(expected);
  });

  it('offers every day up to days ahead', () => {
    const days = generateSlots(everyDay('Europe/London'), rules({ daysAhead: 6 }), at('2026-11-27T06:00:00Z'));
    expect(days.map((d) => d.date)).toEqual(['2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03']);
    expect(days.every((d) => d.slots.length === 4)).toBe(true);
  });
});

describe('checkSlot', () => {
  const config = weekdays('Africa/Johannesburg', { closures: ['2026-11-30'] });
  const now = at('2026-11-26T08:00:00Z');
  it.each<[string, string, string, string | null]>([
    ['an offered slot', '2026-11-27T06:30:00Z', '2026-11-27T08:30:00Z', null],
    ['a slot whose booking time has passed', '2026-11-26T08:30:00Z', '2026-11-26T10:30:00Z', 'past'],
    ['a slot on a closure date', '2026-11-30T06:30:00Z', '2026-11-30T08:30:00Z', 'closed'],
    ['a slot on a closed weekday', '2026-11-28T06:30:00Z', '2026-11-28T08:30:00Z', 'closed'],
    ['a slot not on the grid', '2026-11-27T07:00:00Z', '2026-11-27T09:00:00Z', 'closed'],
    ['a slot beyond days ahead', '2026-12-04T06:30:00Z', '2026-12-04T08:30:00Z', 'closed'],
    ['the start on the grid, the end not', '2026-11-27T06:30:00Z', '2026-11-27T07:30:00Z', 'closed'],
    ['the end on the grid, the start not', '2026-11-27T07:30:00Z', '2026-11-27T08:30:00Z', 'closed'],
  ])('%s', (_name, start, end, reason) => {
    expect(checkSlot(config, rules({ daysAhead: 6 }), { start: at(start), end: at(end) }, now)).toEqual(reason ? { ok: false, reason } : { ok: true });
  });

  it('a slot booked exactly now is still offered', () => {
    expect(checkSlot(config, rules({ daysAhead: 6, leadMinutes: 30 }), { start: at('2026-11-26T08:30:00Z'), end: at('2026-11-26T10:30:00Z') }, now)).toEqual({ ok: true });
  });

  it('books at the start minus the lead time', () => {
    expect(bookAt(at('2026-11-27T06:30:00Z'), { leadMinutes: 45 })).toBe(at('2026-11-27T05:45:00Z'));
  });
});

describe('asapOffered', () => {
  const config = weekdays('Africa/Johannesburg');
  it.each<[string, boolean, string, boolean]>([
    ['open, allowed', true, '2026-11-26T08:00:00Z', true],
    ['open, not allowed', false, '2026-11-26T08:00:00Z', false],
    ['after cut-off', true, '2026-11-26T14:00:00Z', false],
  ])('%s', (_name, sameDayAsap, now, expected) => expect(asapOffered(config, { sameDayAsap }, at(now))).toBe(expected));
  it('no window: always, when allowed', () => expect(asapOffered(null, { sameDayAsap: true }, 0)).toBe(true));
});

describe('choiceFrom (the order note attributes)', () => {
  const slot = { start: at('2026-11-27T06:30:00Z'), end: at('2026-11-27T08:30:00Z') };
  it.each<[string, Array<{ name: string; value: string | null }>, ReturnType<typeof choiceFrom>]>([
    ['no attributes', [], { kind: 'none' }],
    ['an empty value', [{ name: '_delivery_slot', value: ' ' }], { kind: 'none' }],
    ['asap', [{ name: '_delivery_slot', value: 'asap' }], { kind: 'asap' }],
    ['a slot', [{ name: '_delivery_slot', value: slotValue(slot) }], { kind: 'slot', slot, locationId: null }],
    ['a slot at a location', [{ name: '_delivery_slot', value: slotValue(slot) }, { name: '_delivery_location', value: '123' }], { kind: 'slot', slot, locationId: '123' }],
    ['a location that is not an id is ignored', [{ name: '_delivery_slot', value: '2026-11-27T06:30Z/2026-11-27T08:30Z' }, { name: '_delivery_location', value: 'x' }], { kind: 'slot', slot, locationId: null }],
    ['end before start', [{ name: '_delivery_slot', value: '2026-11-27T08:30Z/2026-11-27T06:30Z' }], { kind: 'invalid', value: '2026-11-27T08:30Z/2026-11-27T06:30Z' }],
    ['not a slot', [{ name: '_delivery_slot', value: 'tomorrow' }], { kind: 'invalid', value: 'tomorrow' }],
    ['other attributes first', [{ name: 'Gift', value: 'yes' }, { name: '_delivery_slot', value: 'asap' }], { kind: 'asap' }],
    ['only other attributes', [{ name: 'Gift', value: 'asap' }], { kind: 'none' }],
    ['a null value', [{ name: '_delivery_slot', value: null }], { kind: 'none' }],
    ['seconds without a fraction', [{ name: '_delivery_slot', value: '2026-11-27T06:30:00Z/2026-11-27T08:30:00Z' }], { kind: 'slot', slot, locationId: null }],
    ['text before', [{ name: '_delivery_slot', value: 'x2026-11-27T06:30Z/2026-11-27T08:30Z' }], { kind: 'invalid', value: 'x2026-11-27T06:30Z/2026-11-27T08:30Z' }],
    ['text after', [{ name: '_delivery_slot', value: '2026-11-27T06:30Z/2026-11-27T08:30Zx' }], { kind: 'invalid', value: '2026-11-27T06:30Z/2026-11-27T08:30Zx' }],
    ['an impossible start', [{ name: '_delivery_slot', value: '2026-13-40T06:30Z/2026-11-27T08:30Z' }], { kind: 'invalid', value: '2026-13-40T06:30Z/2026-11-27T08:30Z' }],
    ['an impossible end', [{ name: '_delivery_slot', value: '2026-11-27T06:30Z/2026-13-40T08:30Z' }], { kind: 'invalid', value: '2026-11-27T06:30Z/2026-13-40T08:30Z' }],
    ['empty: end at start', [{ name: '_delivery_slot', value: '2026-11-27T06:30Z/2026-11-27T06:30Z' }], { kind: 'invalid', value: '2026-11-27T06:30Z/2026-11-27T06:30Z' }],
    ['a long value is cut to 80 characters', [{ name: '_delivery_slot', value: 'y'.repeat(200) }], { kind: 'invalid', value: 'y'.repeat(80) }],
    ['a location with spaces around', [{ name: '_delivery_slot', value: 'asap' }, { name: '_delivery_location', value: ' 1 ' }], { kind: 'asap' }],
    ['a location padded with spaces is trimmed', [{ name: '_delivery_slot', value: slotValue(slot) }, { name: '_delivery_location', value: ' 123 ' }], { kind: 'slot', slot, locationId: '123' }],
    ['a location with letters before', [{ name: '_delivery_slot', value: slotValue(slot) }, { name: '_delivery_location', value: 'a123' }], { kind: 'slot', slot, locationId: null }],
    ['a location with letters after', [{ name: '_delivery_slot', value: slotValue(slot) }, { name: '_delivery_location', value: '123a' }], { kind: 'slot', slot, locationId: null }],
    ['a location with no value', [{ name: '_delivery_slot', value: slotValue(slot) }, { name: '_delivery_location', value: null }], { kind: 'slot', slot, locationId: null }],
  ])('%s', (_name, attrs, expected) => expect(choiceFrom(attrs)).toEqual(expected));
});

describe('slots settings', () => {
  it('defaults', () => {
    expect(SettingsSchema.parse({}).slots).toEqual({ enabled: false, slotMinutes: 120, daysAhead: 6, capacity: null, sameDayAsap: true, leadMinutes: 60, invalidSlot: 'attention' });
  });
  it.each<[string, unknown, string]>([
    ['slot length too short', { slotMinutes: 5 }, 'slots.slotMinutes'],
    ['days ahead beyond 14', { daysAhead: 15 }, 'slots.daysAhead'],
    ['capacity 0', { capacity: 0 }, 'slots.capacity'],
    ['capacity fractional', { capacity: 1.5 }, 'slots.capacity'],
    ['unknown policy', { invalidSlot: 'move' }, 'slots.invalidSlot'],
  ])('%s is refused, naming the field', (_name, slots, field) => {
    const r = SettingsSchema.safeParse({ slots });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path.join('.')).toBe(field);
  });
});
