import { describe, expect, it } from 'vitest';
import { decideEligibility } from '../../web/dispatch/eligibility.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { SettingsSchema, type SettingsInput } from '../../web/settings/schema.ts';
import { paidOrder } from '../support/orders.ts';

const on: SettingsInput = { autoDispatch: true };

describe('decideEligibility', () => {
  it.each<[string, Record<string, unknown>, SettingsInput, { manual?: boolean }, string | null]>([
    ['a same-day order to ZA', {}, on, {}, null],
    ['shipping line matched by code, any case', { shipping_lines: [{ title: 'Express', code: 'SAME-DAY' }] }, { ...on, eligibility: { shippingLines: ['same-day'] } }, {}, null],
    ['a cancelled order', { cancelled_at: '2026-11-22T10:00:00Z' }, on, {}, 'cancelled'],
    ['a cancelled order, even manually', { cancelled_at: '2026-11-22T10:00:00Z' }, on, { manual: true }, 'cancelled'],
    ['a test order while live', { test: true }, { ...on, activeEnvironment: 'live' }, {}, 'test_order_live'],
    ['a test order while live, even manually', { test: true }, { ...on, activeEnvironment: 'live' }, { manual: true }, 'test_order_live'],
    ['a test order when test orders are off', { test: true }, { ...on, eligibility: { dispatchTestOrders: false } }, {}, 'test_order'],
    ['a test order in the test environment', { test: true }, on, {}, null],
    ['digital items only', { line_items: [{ id: 1, grams: 0, quantity: 1, requires_shipping: false }] }, on, {}, 'nothing_to_ship'],
    // Pickup is the fulfillment order's delivery method, decided at dispatch (dispatch-fulfillment-orders.test.ts); titles only meet the shipping-method rule.
    ['a pickup title is only a shipping method', { shipping_address: null, shipping_lines: [{ title: 'Local Pickup', code: 'Pickup' }] }, on, {}, 'shipping_method'],
    ['"collect" in a same-day title does not skip it', { shipping_lines: [{ title: 'Same-day delivery (we collect from our store)', code: 'Same-day delivery' }] }, on, {}, null],
    ['a pickup title with no shipping-method rule goes on to dispatch', { shipping_lines: [{ title: 'Local Pickup', code: 'Pickup' }] }, { ...on, eligibility: { shippingLines: [] } }, {}, null],
    ['standard shipping', { shipping_lines: [{ title: 'Standard', code: 'standard' }] }, on, {}, 'shipping_method'],
    ['standard shipping, dispatched manually', { shipping_lines: [{ title: 'Standard', code: 'standard' }] }, on, { manual: true }, null],
    ['any shipping line when the list is empty', { shipping_lines: [{ title: 'Standard' }] }, { ...on, eligibility: { shippingLines: [] } }, {}, null],
    ['another country', { shipping_address: { country_code: 'NA' } }, on, {}, 'country'],
    ['any country when the list is empty', { shipping_address: { country_code: 'NA' } }, { ...on, eligibility: { countries: [] } }, {}, null],
    ['auto-dispatch off', {}, {}, {}, 'auto_dispatch_off'],
    ['auto-dispatch off, dispatched manually', {}, {}, { manual: true }, null],
  ])('%s', (_name, changes, settings, opts, expected) => {
    const decision = decideEligibility(parseOrderSnapshot(paidOrder(changes)), SettingsSchema.parse(settings), opts);
    if (expected === null) expect(decision).toEqual({ dispatch: true });
    else expect(decision).toMatchObject({ dispatch: false, code: expected, message: expect.any(String) });
  });

  it('names the shipping method and the accepted ones', () => {
    const d = decideEligibility(parseOrderSnapshot(paidOrder({ shipping_lines: [{ title: 'Standard' }] })), SettingsSchema.parse(on));
    expect(d).toMatchObject({ message: "Shipping method 'Standard' is not one of your same-day methods (Same-day delivery)" });
  });
});
