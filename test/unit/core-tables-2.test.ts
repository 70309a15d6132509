// Tables over eligibility, status progress, the stored-body reader, money and
// job policy, written against mutation-testing survivors (npm run test:mutation).
import { describe, expect, it } from 'vitest';
import { decideEligibility } from '../../web/dispatch/eligibility.ts';
import { formatCents, money2, toCents } from '../../web/order/money.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { parseCreateOrderBody, serializeCreateOrder } from '../../web/delivery/serialize.ts';
import { isRetryableStatus, parseRetryAfter, resolveHttpRetryPolicy as resolveRetryPolicy, nextRetry } from '../../web/retry/policy.ts';
import { decideEvent, isSuccess, normaliseStatus, planSync, triggerRank, type SyncInput } from '../../web/lifecycle/progress.ts';
import { assertInterval, assertQueueName, describeError, recordedErrorMessage } from '../../web/jobs/policy.ts';
import { assertMaxAttempts, resolveJobRetryPolicy as resolveJobPolicy } from '../../web/retry/policy.ts';
import { SettingsSchema } from '../../web/settings/schema.ts';
import { paidOrder } from '../support/orders.ts';

describe('eligibility: every refusal with its words', () => {
  const settings = (over: Record<string, unknown> = {}) => SettingsSchema.parse({ autoDispatch: true, ...over });
  const decide = (changes: Record<string, unknown>, over: Record<string, unknown> = {}, manual = false) => decideEligibility(parseOrderSnapshot(paidOrder(changes)), settings(over), { manual });
  it.each([
    ['cancelled', { cancelled_at: '2026-01-01T00:00:00Z' }, {}, { code: 'cancelled', message: 'Order was cancelled in Shopify' }],
    ['test order, live', { test: true }, { activeEnvironment: 'live' }, { code: 'test_order_live', message: 'Test orders are never sent to the live courier' }],
    ['test order, not allowed', { test: true }, { eligibility: { dispatchTestOrders: false } }, { code: 'test_order', message: 'Test orders are not dispatched (see dispatch rules)' }],
    ['nothing to ship', { line_items: [{ id: 1, title: 'e-book', quantity: 1, price: '1', requires_shipping: false }] }, {}, { code: 'nothing_to_ship', message: 'Nothing to ship: no item on the order needs shipping' }],
    // Pickup is the fulfillment order's delivery method, decided at dispatch: a pickup line meets only the method rule here.
    ['pickup by code only', { shipping_lines: [{ code: 'Pickup', title: null }] }, {}, { code: 'shipping_method', message: "Shipping method 'Pickup' is not one of your same-day methods (Same-day delivery)" }],
    ['collect by title only', { shipping_lines: [{ code: null, title: 'Click & Collect' }] }, {}, { code: 'shipping_method' }],
    ['a method not listed', { shipping_lines: [{ code: null, title: 'Standard' }, { code: 'eco', title: null }] }, { eligibility: { shippingLines: ['Same Day', 'Express'] } }, { code: 'shipping_method', message: "Shipping method 'Standard, eco' is not one of your same-day methods (Same Day, Express)" }],
    ['no method at all', { shipping_lines: [] }, { eligibility: { shippingLines: ['Same Day'] } }, { code: 'shipping_method', message: "Shipping method 'none' is not one of your same-day methods (Same Day)" }],
    ['another country', { shipping_address: { country_code: 'na' } }, { eligibility: { countries: ['ZA', 'BW'] } }, { code: 'country', message: 'Ships to NA; your dispatch rules allow ZA, BW' }],
    ['auto-dispatch off', {}, { autoDispatch: false }, { code: 'auto_dispatch_off', message: 'Auto-dispatch is off; use Dispatch now to send this order' }],
  ])('%s', (_n, changes, over, expected) => {
    expect(decide(changes, over)).toMatchObject({ dispatch: false, ...expected });
  });
  it('a listed method matches by code too, case-insensitively; one shippable line is enough; no lines at all ships', () => {
    expect(decide({ shipping_lines: [{ code: 'SAME-DAY', title: 'Fast' }] }, { eligibility: { shippingLines: ['same-day'] } })).toEqual({ dispatch: true });
    expect(decide({ line_items: [{ id: 1, title: 'a', quantity: 1, price: '1', requires_shipping: false }, { id: 2, title: 'b', quantity: 1, price: '1', requires_shipping: true }] })).toEqual({ dispatch: true });
    expect(decide({ line_items: [] })).toEqual({ dispatch: true });
  });
  it('a manual dispatch skips the method, country and auto-dispatch rules; pickup is left to the fulfillment order', () => {
    expect(decide({ shipping_address: { country_code: 'NA' } }, { autoDispatch: false, eligibility: { countries: ['ZA'] } }, true)).toEqual({ dispatch: true });
    expect(decide({ shipping_lines: [{ code: 'pickup', title: 'Pick-up' }] }, {}, true)).toEqual({ dispatch: true });
  });
});

describe('status progress details', () => {
  it.each([
    ['Out For-Delivery', 'out_for_delivery'], ['  PICKED  UP ', 'picked_up'], ['in-transit', 'in_transit'],
  ])('normalises %s', (raw, s) => expect(normaliseStatus(raw)).toBe(s));
  it('cancelled and canceled are a courier cancellation; failed and returned a failure with the status named', () => {
    const at = { status: 'IN_PROGRESS' as const, courierStatus: 'picked_up', courierStatusRank: 30 };
    expect(decideEvent(at, 'canceled')).toMatchObject({ attention: { code: 'courier_cancelled', message: 'The courier cancelled the delivery; re-dispatch to book a new one' } });
    expect(decideEvent(at, 'returned')).toMatchObject({ attention: { code: 'courier_failed', message: 'The courier reports the delivery returned; re-dispatch to book a new one' } });
    expect(decideEvent({ ...at, status: 'CANCEL_REQUESTED_IN_SHOPIFY' }, 'failed')).toMatchObject({ apply: true, status: 'CANCEL_REQUESTED_IN_SHOPIFY', attention: null });
  });
  it('after a final status: the same one is a duplicate, another is after_terminal', () => {
    const done = { status: 'DELIVERED' as const, courierStatus: 'delivered', courierStatusRank: 100 };
    expect(decideEvent(done, 'delivered')).toEqual({ apply: false, why: 'duplicate' });
    expect(decideEvent(done, 'completed')).toEqual({ apply: false, why: 'after_terminal' });
  });
  it('PENDING moves to IN_PROGRESS too; NEEDS_ATTENTION stays', () => {
    expect(decideEvent({ status: 'PENDING', courierStatus: null, courierStatusRank: 0 }, 'picked_up')).toMatchObject({ status: 'IN_PROGRESS' });
    expect(decideEvent({ status: 'NEEDS_ATTENTION', courierStatus: null, courierStatusRank: 0 }, 'picked_up')).toMatchObject({ status: 'NEEDS_ATTENTION' });
  });
  it('success and trigger ranks', () => {
    expect(isSuccess(null)).toBe(false);
    expect(isSuccess('')).toBe(false);
    expect(isSuccess('Completed')).toBe(true);
    expect([triggerRank('accepted'), triggerRank('driver_assigned'), triggerRank('delivered')]).toEqual([10, 20, 100]);
  });
  it('events are written in rank order, the earliest report of a rank wins', () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const input: SyncInput = {
      booked: true, courierStatus: 'attempted', courierStatusRank: 60, fulfillmentId: 'f', shopifyRank: 0, trigger: 'driver_assigned', mapping: {},
      history: [{ status: 'attempted', rank: 60, occurredAt: t(9) }, { status: 'arriving', rank: 50, occurredAt: t(5) }, { status: 'out_for_delivery', rank: 50, occurredAt: t(3) }, { status: 'driver_assigned', rank: 20, occurredAt: t(1) }],
    };
    // The visible events (driver_assigned's CONFIRMED is coalesced).
    expect(planSync(input).events.map((e) => [e.courierStatus, e.event, e.happenedAt.getUTCSeconds()])).toEqual([
      ['out_for_delivery', 'OUT_FOR_DELIVERY', 3], ['attempted', 'ATTEMPTED_DELIVERY', 9],
    ]);
    expect(planSync({ ...input, trigger: 'delivered', fulfillmentId: null })).toEqual({ createFulfillment: false, updateTracking: false, events: [] });
    // Rank order, not time order: a later step reported with an earlier time still comes after.
    const skewed = planSync({ ...input, history: [{ status: 'attempted', rank: 60, occurredAt: t(1) }, { status: 'out_for_delivery', rank: 50, occurredAt: t(2) }] });
    expect(skewed.events.map((e) => e.event)).toEqual(['OUT_FOR_DELIVERY', 'ATTEMPTED_DELIVERY']);
    expect(planSync({ ...input, trigger: 'driver_assigned', fulfillmentId: null, courierStatusRank: 19 }).createFulfillment).toBe(false);
    expect(planSync({ ...input, trigger: 'driver_assigned', fulfillmentId: null, courierStatusRank: 20 }).createFulfillment).toBe(true);
    expect(planSync({ ...input, trigger: 'accepted', fulfillmentId: null }).createFulfillment).toBe(true);
  });
});

describe('parseCreateOrderBody refusals', () => {
  const good = serializeCreateOrder({
    reference: 'R', channel: 'web', serviceType: 'SAME_DAY', pickup: { storeId: 's' },
    dropoff: { name: 'A', phone: '+27821234567', addressLine1: '1 Rd', city: 'C', country: 'ZA', latitude: -26, longitude: 28 },
    package: { size: 'SMALL', weightKg: '1.5' }, amount: '10.00', currency: 'ZAR', metadata: { b: '2', a: '1' },
  });
  it.each([
    ['not JSON', '{', { field: '', message: 'body is not valid JSON' }],
    ['a list', '[]', { field: '', message: 'body is not a JSON object' }],
    ['null', 'null', { field: '', message: 'body is not a JSON object' }],
    ['amount as text', good.replace('"amount":10.00', '"amount":"10.00"'), { field: 'amount', message: 'amount: must be a JSON number' }],
    ['weight as text', good.replace('"weightKg":1.5', '"weightKg":"1.5"'), { field: 'package.weightKg', message: 'package.weightKg: must be a JSON number' }],
    ['an unknown field', good.replace('{"reference"', '{"colour":"red","reference"'), { field: 'colour', message: 'unknown field colour' }],
    ['a missing city', good.replace('"city":"C",', ''), { field: 'dropoff.city' }],
  ])('%s', (_n, body, expected) => expect(parseCreateOrderBody(body)).toMatchObject({ ok: false, ...expected }));
  it('reads back what serialize wrote, metadata sorted, numbers in lists kept as numbers', () => {
    expect(good).toContain('"metadata":{"a":"1","b":"2"}');
    const r = parseCreateOrderBody(good);
    expect(r).toMatchObject({ ok: true, request: { amount: '10.00', package: { weightKg: '1.5' }, dropoff: { latitude: -26 } } });
    expect(parseCreateOrderBody(good.replace('"package":{', '"package":{"category":"x",'))).toMatchObject({ ok: true });
    expect(parseCreateOrderBody(good.replace('"reference":"R"', '"reference":["R",1]'))).toMatchObject({ ok: false, field: 'reference' });
  });
});

describe('money edges', () => {
  it.each([
    [null, null], [undefined, null], [' 12.345 ', 1235n], ['12.344', 1234n], ['12.3', 1230n], ['-0.5', -50n], ['1e3', null], [7, 700n],
  ])('toCents(%s) = %s', (v, c) => expect(toCents(v as string)).toBe(c));
  it('formats negatives and zero', () => {
    expect(formatCents(-5n)).toBe('-0.05');
    expect(formatCents(0n)).toBe('0.00');
    expect(money2('3')).toBe('3.00');
  });
});

describe('retry and job policy bounds', () => {
  it('retryable statuses', () => {
    expect([500, 502, 503, 504, 599, 501, 505, 600, 429, 408, 425, 400].map(isRetryableStatus)).toEqual([true, true, true, true, true, false, false, false, true, true, true, false]);
  });
  it('Retry-After forms', () => {
    expect(parseRetryAfter('1.5', 0)).toBe(1500);
    expect(parseRetryAfter('', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter('1.5s', 0)).toBeUndefined();
    expect(parseRetryAfter('x1', 0)).toBeUndefined();
  });
  it('a client policy never goes negative', () => {
    expect(resolveRetryPolicy({ maxDelayMs: -5, deadlineMs: -5 })).toMatchObject({ maxDelayMs: 0, deadlineMs: 1 });
  });
  it('the deadline is exclusive', () => {
    const policy = resolveRetryPolicy({ maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 100, deadlineMs: 1_000 });
    expect(nextRetry({ attempt: 1, elapsedMs: 900, policy, random: () => 1 })).toEqual({ retry: false, reason: 'deadline_exhausted' });
    expect(nextRetry({ attempt: 1, elapsedMs: 0, retryAfterMs: 999, policy, random: () => 1 })).toMatchObject({ retry: true });
  });
  it('job policy limits', () => {
    expect(() => assertQueueName('bad name')).toThrow('job queue name "bad name" must be');
    expect(() => assertQueueName(5 as unknown as string)).toThrow(TypeError);
    expect(() => assertMaxAttempts(1)).not.toThrow();
    expect(() => assertMaxAttempts(1000)).not.toThrow();
    expect(() => assertMaxAttempts(0)).toThrow(RangeError);
    expect(() => assertMaxAttempts(1001)).toThrow(RangeError);
    expect(() => assertInterval(10)).not.toThrow();
    expect(() => assertInterval(9)).toThrow(RangeError);
    expect(resolveJobPolicy({ maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 }, { baseDelayMs: 0, maxDelayMs: 0 })).toEqual({ maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 });
    expect(() => resolveJobPolicy({ maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 }, { maxDelayMs: 9 })).toThrow(RangeError);
  });
  it('errors recorded in one bounded line', () => {
    expect(describeError('a\n  b')).toBe('a b');
    expect(describeError('   ')).toBe('unknown error');
    expect(describeError('abcdef', 6)).toBe('abcdef');
    expect(describeError('abcdefg', 6)).toBe('abcde…');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeError(cyclic)).toBe('[object Object]');
    expect(recordedErrorMessage(42)).toBe('42');
    expect(recordedErrorMessage({ value: { message: 'expired' } })).toBe('expired');
    expect(recordedErrorMessage({ value: { other: 1 } })).toBe('{"value":{"other":1}}');
    expect(recordedErrorMessage({ value: null })).toBe('{"value":null}');
  });
});

describe('serialize: messages and determinism', () => {
  const base = {
    reference: 'R', channel: 'web', serviceType: 'SAME_DAY', pickup: { storeId: 's' },
    dropoff: { name: 'A', phone: '+27821234567', addressLine1: '1 Rd', city: 'C', country: 'ZA', latitude: -26, longitude: 28 },
    package: { size: 'SMALL', weightKg: '1.5' }, amount: '10.00', currency: 'ZAR',
  };
  const refusal = (req: unknown) => {
    try {
      serializeCreateOrder(req as Parameters<typeof serializeCreateOrder>[0]);
    } catch (e) {
      return { message: (e as Error).message, field: (e as { field?: string }).field };
    }
    return null;
  };
  it.each([
    ['a missing field', { ...base, dropoff: { ...base.dropoff, city: undefined } }, { message: 'Delivery request is invalid: dropoff.city is required', field: 'dropoff.city' }],
    ['an unknown field', { ...base, colour: 'red' }, { message: 'Delivery request is invalid: unknown field colour', field: 'colour' }],
    ['a bad value', { ...base, currency: 'rand' }, { message: 'Delivery request is invalid: currency: must be a three-letter upper-case currency code', field: 'currency' }],
    ['not an object', 'text', { message: expect.stringMatching(/^Delivery request is invalid: body: /), field: undefined }],
  ])('%s', (_n, req, expected) => expect(refusal(req)).toEqual(expected));
  it('metadata keys are sorted whatever order they come in; equal output for equal input', () => {
    const a = serializeCreateOrder({ ...base, metadata: { zeta: '1', alpha: '2', mid: '3', Beta: '4' } });
    const b = serializeCreateOrder({ ...base, metadata: { mid: '3', Beta: '4', zeta: '1', alpha: '2' } });
    expect(a).toBe(b);
    expect(a).toContain('"metadata":{"Beta":"4","alpha":"2","mid":"3","zeta":"1"}');
    expect(serializeCreateOrder(base)).not.toContain('metadata');
  });
  it('a stored body with a list keeps its numbers as numbers, and refuses a package that is not an object', () => {
    const good = serializeCreateOrder({ ...base, metadata: { a: '1' } });
    expect(parseCreateOrderBody(good.replace('"metadata":{"a":"1"}', '"metadata":{"a":"1"},"tags":[1.50,"x"]'))).toMatchObject({ ok: false, field: 'tags' });
    expect(parseCreateOrderBody(good.replace(/"package":\{[^}]*\}/, '"package":"SMALL"'))).toMatchObject({ ok: false, field: 'package' });
    expect(parseCreateOrderBody(good.replace(/"package":\{[^}]*\}/, '"package":null'))).toMatchObject({ ok: false, field: 'package' });
  });
});
