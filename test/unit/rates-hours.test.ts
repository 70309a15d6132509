// Checkout's "out of hours" is the delivery windows' answer (web/rates/hours.ts).
import { describe, expect, it } from 'vitest';
import { windowsOpen } from '../../web/rates/hours.ts';
import { applySettingsPatch, DEFAULT_SETTINGS } from '../../web/settings/schema.ts';

// Monday 2026-11-23 12:00 UTC.
const NOON_MON = new Date('2026-11-23T12:00:00Z');
const weekdays = (open: string, close: string) => Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, { open, close }]));
const settings = applySettingsPatch(DEFAULT_SETTINGS, {
  windows: {
    default: { timeZone: 'UTC', hours: weekdays('08:00', '17:00') },
    locations: { '11': { timeZone: 'UTC', hours: weekdays('13:00', '17:00') }, '12': { timeZone: 'Asia/Tokyo', hours: weekdays('08:00', '17:00') } },
  },
});
const q = (locationIds: string[], now = NOON_MON, s = settings) => windowsOpen({ shop: 's', storeId: 'st', now, settings: s, locationIds });

describe('windowsOpen', () => {
  it.each([
    ['the default store uses the default window (open at noon)', [], NOON_MON, true],
    ['the default window is closed on Sunday', [], new Date('2026-11-22T12:00:00Z'), false],
    ['a location opening at 13:00 is closed at noon', ['11'], NOON_MON, false],
    ['a location without its own window uses the default', ['99'], NOON_MON, true],
    ['21:00 in Tokyo is after closing', ['12'], NOON_MON, false],
    ['any open location serving the store makes it open', ['11', '99'], NOON_MON, true],
  ] as const)('%s', (_name, ids, now, open) => {
    expect(q([...ids], now)).toBe(open);
  });

  it('no window configured: open', () => {
    expect(q([], NOON_MON, DEFAULT_SETTINGS)).toBe(true);
    expect(windowsOpen({ shop: 's', storeId: 'st', now: NOON_MON })).toBe(true);
  });
});
