// Delivery-window settings (web/windows/settings.ts through Settings): bad input names the field.
import { describe, expect, it } from 'vitest';
import { applySettingsPatch, DEFAULT_SETTINGS, SettingsValidationError } from '../../web/settings/schema.ts';
import { windowFor } from '../../web/windows/settings.ts';

const good = { timeZone: 'Europe/London', hours: { mon: { open: '08:00', close: '18:00' } }, cutoff: '16:00', closures: ['2026-12-25'], prepMinutes: 30 };

function fieldsOf(patch: unknown): Record<string, string> {
  try {
    applySettingsPatch(DEFAULT_SETTINGS, patch);
  } catch (e) {
    if (e instanceof SettingsValidationError) return e.fields;
    throw e;
  }
  return {};
}

describe('windows settings', () => {
  it('are off by default: no window anywhere', () => {
    expect(DEFAULT_SETTINGS.windows).toEqual({ default: null, locations: {} });
    expect(windowFor(DEFAULT_SETTINGS.windows, '123')).toBeNull();
  });

  it('a location uses its own config, else the default; null falls back to the default', () => {
    const s = applySettingsPatch(DEFAULT_SETTINGS, { windows: { default: good, locations: { '7': { ...good, timeZone: 'Africa/Johannesburg' }, '8': null } } });
    expect(windowFor(s.windows, '7')?.timeZone).toBe('Africa/Johannesburg');
    expect(windowFor(s.windows, '8')?.timeZone).toBe('Europe/London');
    expect(windowFor(s.windows, null)?.timeZone).toBe('Europe/London');
    expect(windowFor(s.windows, '8')?.hours.tue).toBeNull();
  });

  it.each<[string, unknown, string, RegExp]>([
    ['unknown zone', { default: { ...good, timeZone: 'Mars/Olympus' } }, 'windows.default.timeZone', /IANA time zone/],
    ['bad time', { default: { ...good, hours: { mon: { open: '8am', close: '18:00' } } } }, 'windows.default.hours.mon.open', /24-hour time/],
    ['close before open', { default: { ...good, hours: { mon: { open: '18:00', close: '08:00' } } } }, 'windows.default.hours.mon.close', /after the opening/],
    ['cut-off before opening', { default: { ...good, cutoff: '07:00' } }, 'windows.default.cutoff', /after every opening/],
    ['no open day', { default: { ...good, hours: {} } }, 'windows.default.hours', /at least one day/],
    ['not a date', { default: { ...good, closures: ['2026-02-30'] } }, 'windows.default.closures.0', /calendar date/],
    ['fractional prep', { default: { ...good, prepMinutes: 1.5 } }, 'windows.default.prepMinutes', /whole minutes/],
    ['location id', { locations: { 'gid://shopify/Location/1': good } }, 'windows.locations.gid://shopify/Location/1', /numeric Shopify location id/],
    ['location field', { locations: { '42': { ...good, prepMinutes: -1 } } }, 'windows.locations.42.prepMinutes', /\S/],
  ])('%s → %s', (_name, windows, field, message) => {
    const fields = fieldsOf({ windows });
    expect(Object.keys(fields)).toContain(field);
    expect(fields[field]).toMatch(message);
  });
});
