import { describe, expect, it } from 'vitest';
import {
  eventRetryDelayMs, idsOfEvent, idsOfTestAnswer, isRequestedTest, learnDelayMs, rememberTest, TEST_WINDOW_MS,
} from '../../web/fulfillment/rematch-policy.ts';
import type { TestWebhookRecord } from '../../web/delivery/types.ts';
import { beforeFinal, decideEvent, planSync, rankOf, type SyncInput } from '../../web/lifecycle/progress.ts';

describe('backoff', () => {
  it.each([
    [1, 30_000], [2, 60_000], [3, 120_000], [7, 1_920_000], [8, 3_600_000], [50, 3_600_000], [0, 30_000],
  ])('an event unmatched %i times waits %i ms', (n, ms) => expect(eventRetryDelayMs(n)).toBe(ms));
  it.each([
    [1, 60_000], [2, 120_000], [6, 1_920_000], [7, 3_600_000], [1000, 3_600_000],
  ])('a courier order read %i times is not read again for %i ms', (n, ms) => expect(learnDelayMs(n)).toBe(ms));
});

describe('ids', () => {
  it('an event names data.delivery_id first, then other id fields of data', () => {
    expect(idsOfEvent(JSON.stringify({ id: 'evt_1', data: { delivery_id: 'd1', order_id: 'o1', orderId: 'o2', id: 'x', status: 'picked_up', note_id: 5 } }), 'd1')).toEqual(['d1', 'o1', 'o2', 'x']);
    expect(idsOfEvent('not json', 'd1')).toEqual(['d1']);
    // Only id, *_id and *Id keys: not keys that merely contain "id".
    expect(idsOfEvent(JSON.stringify({ data: { valid: 'a', identity: 'b', x_idy: 'c', orderIdentifier: 'd', solid: 'f' } }), null)).toEqual([]);
    expect(idsOfEvent(JSON.stringify({ data: null }), 'd1')).toEqual(['d1']);
    expect(idsOfEvent(JSON.stringify({ data: 'text' }), null)).toEqual([]);
    expect(idsOfEvent(JSON.stringify({ data: { order_id: '' } }), null)).toEqual([]);
  });
  it('a test answer names its ids at any depth, not the request id', () => {
    expect(idsOfTestAnswer({ request_id: 'req_1', requestId: 'req_2', event_id: 'evt_1', delivery_id: 'd_t', event: { id: 'evt_2', data: { deliveryId: 'd_u' } }, n: 3 })).toEqual(['evt_1', 'd_t', 'evt_2', 'd_u']);
    expect(idsOfTestAnswer('text')).toEqual([]);
    expect(idsOfTestAnswer({ valid: 'a', identity: 'b', x_idy: 'c', orderIdentifier: 'd', solid: 'f', event_id: '', nested: null, n: { id: 7 } })).toEqual([]);
    expect(idsOfTestAnswer(null)).toEqual([]);
    expect(idsOfTestAnswer({ a: { b: { c: { d: { e: { id: 'deep' } } } } } })).toEqual([]);
    expect(idsOfTestAnswer({ a: { b: { c: { d: { id: 'deep' } } } } })).toEqual(['deep']);
  });
});

describe('isRequestedTest', () => {
  const asked: TestWebhookRecord = { requestedAt: 1_000, answeredAt: 1_500, ids: ['evt_t', 'delivery_test_1'] };
  const pending: TestWebhookRecord = { requestedAt: 10_000, answeredAt: null, ids: [] };
  it.each([
    ['its event id was named', { eventId: 'evt_t', ids: ['x'], receivedAt: 99_999_999 }, [asked], true],
    ['its delivery id was named', { eventId: 'evt_z', ids: ['delivery_test_1'], receivedAt: 99_999_999 }, [asked], true],
    ['named ids do not include it, even just after asking', { eventId: 'evt_z', ids: ['d'], receivedAt: 1_200 }, [asked], false],
    ['no ids named: inside the window', { eventId: 'evt_z', ids: ['d'], receivedAt: 10_000 + TEST_WINDOW_MS }, [pending], true],
    ['no ids named: just after asking', { eventId: 'evt_z', ids: ['d'], receivedAt: 10_000 }, [pending], true],
    ['no ids named: before asking', { eventId: 'evt_z', ids: ['d'], receivedAt: 9_999 }, [pending], false],
    ['no ids named: after the window', { eventId: 'evt_z', ids: ['d'], receivedAt: 10_001 + TEST_WINDOW_MS }, [pending], false],
    ['no test asked for', { eventId: 'evt_t', ids: ['d'], receivedAt: 1_200 }, [], false],
  ] as const)('%s', (_n, ev, tests, yes) => expect(isRequestedTest({ ...ev, ids: [...ev.ids] }, [...tests])).toBe(yes));

  it('every named id must be known only for one of them', () => {
    expect(isRequestedTest({ eventId: 'evt_z', ids: ['unknown', 'delivery_test_1'], receivedAt: 99_999_999 }, [asked])).toBe(true);
    expect(isRequestedTest({ eventId: 'evt_z', ids: ['delivery_test_1', 'unknown'], receivedAt: 99_999_999 }, [asked])).toBe(true);
  });

  it('keeps the last five requests, a repeated one replaced', () => {
    let list: TestWebhookRecord[] = [];
    for (let i = 1; i <= 7; i++) list = rememberTest(list, { requestedAt: i, answeredAt: null, ids: [] });
    expect(list.map((t) => t.requestedAt)).toEqual([3, 4, 5, 6, 7]);
    list = rememberTest(list, { requestedAt: 5, answeredAt: 9, ids: ['e'] });
    expect(list.map((t) => t.requestedAt)).toEqual([3, 4, 6, 7, 5]);
    expect(list.at(-1)!.ids).toEqual(['e']);
  });
});

describe('pending is known, and does not start the delivery', () => {
  it('pending ranks below every progress status', () => {
    expect(rankOf('pending')).toBe(1);
    expect(decideEvent({ status: 'CREATED', courierStatus: null, courierStatusRank: 0 }, 'pending')).toEqual({ apply: true, courierStatus: 'pending', rank: 1, status: 'CREATED', attention: null });
    expect(decideEvent({ status: 'CREATED', courierStatus: null, courierStatusRank: 0 }, 'validated')).toMatchObject({ apply: true, status: 'CREATED' });
    expect(decideEvent({ status: 'CREATED', courierStatus: 'pending', courierStatusRank: 1 }, 'accepted')).toMatchObject({ apply: true, status: 'IN_PROGRESS' });
    expect(decideEvent({ status: 'CREATED', courierStatus: 'pending', courierStatusRank: 1 }, 'pending')).toEqual({ apply: false, why: 'duplicate' });
  });
});

describe('final means final', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s));
  const h = (status: string, s: number) => ({ status, rank: rankOf(status)!, occurredAt: t(s) });
  it('a lower status dated after the final one is kept off Shopify; one dated before it is written before it', () => {
    const history = [h('picked_up', 1), h('delivered', 5), h('driver_assigned', 9), h('out_for_delivery', 4), h('attempted', 7)];
    expect(beforeFinal(history).map((x) => x.status)).toEqual(['picked_up', 'delivered', 'out_for_delivery']);
    const input: SyncInput = { booked: true, courierStatus: 'delivered', courierStatusRank: 100, fulfillmentId: null, shopifyRank: 0, history, trigger: 'delivered', mapping: {} };
    // The visible events only (picked up is coalesced); the attempt dated after DELIVERED never reaches Shopify.
    expect(planSync(input).events.map((e) => e.event)).toEqual(['OUT_FOR_DELIVERY', 'DELIVERED']);
  });
  it('the earliest final is the boundary; at the same instant a lower status still counts', () => {
    expect(beforeFinal([h('failed', 8), h('delivered', 6), h('in_transit', 6), h('out_for_delivery', 7)]).map((x) => x.status)).toEqual(['failed', 'delivered', 'in_transit']);
  });
  it('without a final status everything stays', () => {
    const history = [h('picked_up', 3), h('driver_assigned', 9)];
    expect(beforeFinal(history)).toEqual(history);
  });
  it('after DELIVERED is in Shopify nothing lower is written', () => {
    const input: SyncInput = { booked: true, courierStatus: 'delivered', courierStatusRank: 100, fulfillmentId: 'f1', shopifyRank: 100, history: [h('delivered', 5), h('driver_assigned', 4)], trigger: 'driver_assigned', mapping: {} };
    expect(planSync(input).events).toEqual([]);
  });
});
