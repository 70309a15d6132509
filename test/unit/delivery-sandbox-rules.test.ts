// The sandbox courier's pure rules: status walk, pricing, validation, "same payload".
import { describe, expect, it } from 'vitest';
import { nextStatus, scriptFor, stepsTo } from '../../dev/sandbox/statuses.ts';
import { canonicalJson, formatCents, gramsOf, parseWithNumberText, priceCents, validateCreateOrder } from '../../dev/sandbox/validate.ts';

const on = { acceptedStep: true };
const off = { acceptedStep: false };

describe('status walk', () => {
  it.each([
    ['pending', 'delivered', on, ['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered']],
    ['pending', 'delivered', off, ['driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered']],
    ['pending', 'cancelled', on, ['accepted', 'driver_assigned', 'cancelled']],
    ['driver_assigned', 'cancelled', on, ['cancelled']],
    ['out_for_delivery', 'failed', on, ['delivery_attempted', 'failed']],
    ['in_transit', 'returned', on, ['out_for_delivery', 'delivery_attempted', 'failed', 'returned']],
    ['failed', 'returned', on, ['returned']],
    ['pending', 'driver_assigned', on, ['accepted', 'driver_assigned']],
    ['picked_up', 'cancelled', on, null],
    ['delivered', 'returned', on, null],
    ['delivered', 'delivered', on, null],
    ['pending', 'teleported', on, null],
  ] as const)('%s -> %s (%j)', (from, to, opts, expected) => {
    expect(stepsTo(from, to, opts)).toEqual(expected);
  });

  it('steps toward an outcome and stops there', () => {
    expect(nextStatus('pending', 'delivered', on)).toBe('accepted');
    expect(nextStatus('out_for_delivery', 'failed', on)).toBe('delivery_attempted');
    expect(nextStatus('failed', 'failed', on)).toBeNull();
    expect(nextStatus('failed', 'returned', on)).toBe('returned');
    expect(nextStatus('delivered', 'delivered', on)).toBeNull();
    expect(scriptFor('cancelled', off)).toEqual(['driver_assigned', 'cancelled']);
  });
});

describe('pricing', () => {
  it.each([
    ['SAME_DAY', 'SMALL', '1.5', 7500],
    ['SAME_DAY', 'SMALL', '2', 7500],
    ['SAME_DAY', 'SMALL', '2.001', 7950],
    ['SAME_DAY', 'MEDIUM', '3.5', 7500 + 1500 + 900],
    ['EXPRESS', 'LARGE', '10', 9900 + 3500 + 8 * 450],
    ['NEXT_DAY', 'XLARGE', '0.2', 5500 + 6000],
    ['something_else', 'ODD', '1', 7500 + 1500],
  ])('%s %s %s kg -> %i cents', (serviceType, size, kg, cents) => {
    expect(priceCents({ serviceType, size, weightGrams: gramsOf(kg) })).toBe(cents);
  });

  it.each([
    [7500, '75.00'], [5, '0.05'], [12345, '123.45'], [0, '0.00'],
  ])('formatCents(%i) = %s', (c, s) => expect(formatCents(c)).toBe(s));

  it.each([
    ['1.5', 1500], ['0.0001', 1], ['2', 2000], ['1.2345', 1235],
  ])('gramsOf(%s) = %i', (kg, g) => expect(gramsOf(kg)).toBe(g));
});

describe('sandbox validation', () => {
  const valid = {
    reference: 'R-1', channel: 'web', serviceType: 'SAME_DAY', pickup: { storeId: 'store_sandbox_001' },
    dropoff: { name: 'A', phone: '+27821234567', addressLine1: '1 Main', city: 'Jhb', country: 'ZA', latitude: -26.2, longitude: 28.0 },
    package: { size: 'SMALL', weightKg: 1.5 }, amount: 250.0, currency: 'ZAR',
  };
  const check = (o: unknown) => validateCreateOrder(parseWithNumberText(JSON.stringify(o)));

  it('accepts the short sample', () => {
    expect(check(valid)).toMatchObject({ ok: true, order: { reference: 'R-1', storeId: 'store_sandbox_001', weightGrams: 1500 } });
  });

  it.each([
    ['missing latitude', (o: any) => delete o.dropoff.latitude, 'dropoff.latitude', /required \(coordinates/],
    ['missing longitude', (o: any) => delete o.dropoff.longitude, 'dropoff.longitude', /required/],
    ['latitude as a string', (o: any) => (o.dropoff.latitude = '-26.2'), 'dropoff.latitude', /must be a number/],
    ['missing dropoff', (o: any) => delete o.dropoff, 'dropoff', /required/],
    ['pickup not an object', (o: any) => (o.pickup = 'x'), 'pickup', /object/],
    ['missing reference', (o: any) => delete o.reference, 'reference', /required/],
    ['local phone', (o: any) => (o.dropoff.phone = '0821234567'), 'dropoff.phone', /international/],
    ['heavy parcel', (o: any) => (o.package.weightKg = 1500), 'package.weightKg', /at most 1000/],
    ['negative amount', (o: any) => (o.amount = -1), 'amount', /negative/],
    ['metadata with a number', (o: any) => (o.metadata = { a: 1 }), 'metadata', /string/],
  ])('%s', (_name, mutate, field, message) => {
    const o = structuredClone(valid);
    mutate(o);
    const r = check(o);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems[0]!.field).toBe(field);
      expect(r.problems[0]!.message).toMatch(message);
    }
  });

  it('"same payload" ignores key order and whitespace but not number text', () => {
    const a = canonicalJson(parseWithNumberText('{"a":1.50,"b":{"y":2,"x":"s"}}'));
    expect(canonicalJson(parseWithNumberText('{ "b": {"x":"s","y":2}, "a": 1.50 }'))).toBe(a);
    expect(canonicalJson(parseWithNumberText('{"a":1.5,"b":{"y":2,"x":"s"}}'))).not.toBe(a);
  });
});
