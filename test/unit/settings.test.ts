import { describe, expect, it } from 'vitest';
import { applySettingsPatch, DEFAULT_SETTINGS, parseStoredSettings, SettingsValidationError } from '../../web/settings/schema.ts';

function fields(patch: unknown): Record<string, string> {
  try {
    applySettingsPatch(DEFAULT_SETTINGS, patch);
  } catch (e) {
    expect(e).toBeInstanceOf(SettingsValidationError);
    return (e as SettingsValidationError).fields;
  }
  throw new Error('expected a validation error');
}

describe('settings', () => {
  it('defaults are safe: test environment, auto-dispatch off, driver_assigned trigger', () => {
    expect(DEFAULT_SETTINGS).toMatchObject({
      activeEnvironment: 'test',
      autoDispatch: false,
      serviceType: 'SAME_DAY',
      maxDeliveryPrice: null,
      fulfillment: { trigger: 'driver_assigned', notifyCustomer: true },
      eligibility: { countries: ['ZA'], dispatchTestOrders: true },
    });
  });

  it('deep-merges a patch and keeps the rest', () => {
    const s = applySettingsPatch(DEFAULT_SETTINGS, { autoDispatch: true, package: { category: 'fragile' }, eligibility: { countries: ['za', 'NA'] } });
    expect(s.autoDispatch).toBe(true);
    expect(s.package.category).toBe('fragile');
    expect(s.package.sizes).toEqual(DEFAULT_SETTINGS.package.sizes);
    expect(s.eligibility.countries).toEqual(['ZA', 'NA']);
    expect(s.eligibility.shippingLines).toEqual(['Same-day delivery']);
  });

  it.each([
    [{ activeEnvironment: 'prod' }, 'activeEnvironment'],
    [{ maxDeliveryPrice: '12.345' }, 'maxDeliveryPrice'],
    [{ maxDeliveryPrice: 150 }, 'maxDeliveryPrice'],
    [{ eligibility: { countries: ['South Africa'] } }, 'eligibility.countries.0'],
    [{ package: { defaultWeightKg: '-1' } }, 'package.defaultWeightKg'],
    [{ package: { sizes: [{ maxKg: '10', size: 'M' }, { maxKg: '5', size: 'S' }] } }, 'package.sizes.1.maxKg'],
    [{ fulfillment: { trigger: 'picked_up' } }, 'fulfillment.trigger'],
    [{ fulfillment: { trackingUrlTemplate: 'http://insecure/{jobId}' } }, 'fulfillment.trackingUrlTemplate'],
    [{ fulfillment: { eventMapping: { collected: 'TELEPORTED' } } }, 'fulfillment.eventMapping.collected'],
    [{ serviceType: '' }, 'serviceType'],
    [{ tracking: { estimateMinutes: 10 } }, 'tracking.estimateMinutes'],
    [{ tracking: { estimateMinutes: 90.5 } }, 'tracking.estimateMinutes'],
  ])('names the field: %j', (patch, field) => {
    expect(Object.keys(fields(patch))).toContain(field);
  });

  it('falls back to defaults for a corrupt stored document', () => {
    expect(parseStoredSettings('{not json')).toEqual(DEFAULT_SETTINGS);
    expect(parseStoredSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(parseStoredSettings('{"autoDispatch":true}').autoDispatch).toBe(true);
  });

  it('parses each stored text on its own: a changed document is never answered from an earlier one', () => {
    const on = '{"autoDispatch":true,"package":{"category":"fragile"}}';
    const off = '{"autoDispatch":false}';
    expect(parseStoredSettings(on)).toMatchObject({ autoDispatch: true, package: { category: 'fragile' } });
    expect(parseStoredSettings(off)).toMatchObject({ autoDispatch: false, package: { category: 'standard' } });
    expect(parseStoredSettings(on).autoDispatch).toBe(true);
    expect(parseStoredSettings(` ${off}`).autoDispatch).toBe(false);
  });

  it('hands out settings no caller can change for the next one', () => {
    const text = '{"eligibility":{"countries":["NA"]}}';
    const first = parseStoredSettings(text);
    expect(() => { (first as any).autoDispatch = true; }).toThrow(TypeError);
    expect(() => { first.eligibility.countries.push('ZA'); }).toThrow(TypeError);
    expect(parseStoredSettings(text)).toMatchObject({ autoDispatch: false, eligibility: { countries: ['NA'] } });
  });
});
