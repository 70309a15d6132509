// The tracking page's expected delivery window (web/tracking/estimate.ts): table-tested, clock passed in.
import { describe, expect, it } from 'vitest';
import { estimateDelivery, type EstimateInput } from '../../web/tracking/estimate.ts';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const base: EstimateInput = {
  status: 'CREATED', createdAt: at(0), dispatchedAt: at(2), scheduledFor: null, prepMinutes: 0, estimateMinutes: 180, courierEnded: false, now: T0 + 5 * 60_000,
};

describe('estimateDelivery', () => {
  it.each<[string, Partial<EstimateInput>, ReturnType<typeof estimateDelivery>]>([
    ['booked: from the booking, for the usual time', {}, { kind: 'window', from: at(2), to: at(182), basis: 'booking' }],
    ['preparation time counts from payment', { prepMinutes: 30 }, { kind: 'window', from: at(30), to: at(210), basis: 'booking' }],
    ['a booking after the preparation time: from the booking', { prepMinutes: 1 }, { kind: 'window', from: at(2), to: at(182), basis: 'booking' }],
    ['not booked yet: from payment (booked at once)', { status: 'PENDING', dispatchedAt: null }, { kind: 'window', from: at(0), to: at(180), basis: 'booking' }],
    ['scheduled by the store hours: from the planned booking', { status: 'SCHEDULED', dispatchedAt: null, scheduledFor: at(22 * 60), prepMinutes: 30 }, { kind: 'window', from: at(22 * 60), to: at(25 * 60), basis: 'booking' }],
    ['a shorter usual time', { status: 'IN_PROGRESS', estimateMinutes: 60 }, { kind: 'window', from: at(2), to: at(62), basis: 'booking' }],
    ['the chosen slot is the window', { chosenSlot: { from: at(300), to: at(360) } }, { kind: 'window', from: at(300), to: at(360), basis: 'slot' }],
    ['past the window, still under way: late', { now: T0 + 182 * 60_000 }, { kind: 'late', basis: 'booking' }],
    ['past the chosen slot: late', { chosenSlot: { from: at(0), to: at(4) } }, { kind: 'late', basis: 'slot' }],
    ['the courier reported a final status: nothing to expect', { status: 'IN_PROGRESS', courierEnded: true }, null],
    ['delivered', { status: 'DELIVERED' }, null],
    ['cancelled', { status: 'CANCEL_REQUESTED_IN_SHOPIFY' }, null],
    ['waiting on the merchant', { status: 'NEEDS_ATTENTION' }, null],
    ['not sent by same-day delivery', { status: 'SKIPPED' }, null],
    ['failed', { status: 'FAILED' }, null],
  ])('%s', (_name, change, expected) => {
    expect(estimateDelivery({ ...base, ...change })).toEqual(expected);
  });
});
