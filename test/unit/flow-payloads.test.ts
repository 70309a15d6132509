// Which transitions send which Flow trigger, the payloads, and when one is not
// sent: pure tables (web/lifecycle/machine.ts flowTriggersOf, web/flow/payloads.ts).
import { describe, expect, it } from 'vitest';
import { flowTriggersOf, type DeliveryStatus, type Facts, type LifecycleEvent } from '../../web/lifecycle/machine.ts';
import { actionWords, buildTriggerPayload, FLOW_TEXT_MAX, minutesBetween, orderIdNumber, skipReason } from '../../web/flow/payloads.ts';
import type { FlowSnapshot } from '../../web/transitions/flow-outbox.ts';
import { triggerOfDefinition } from '../../web/flow/catalogue.ts';
import { flowExtensions, triggerPayloadProblems } from '../../dev/shop-sim/flow.ts';

const f = (status: Facts['status'], extra: Partial<Facts> = {}): Facts => ({ status, reasonCode: null, courierOrder: false, sent: false, ...extra });

describe('flowTriggersOf', () => {
  it.each<[string, Facts, LifecycleEvent, DeliveryStatus, string[]]>([
    ['the first booking', f('PENDING'), 'booked', 'CREATED', ['delivery-booked']],
    ['a booking after the courier already reported movement', f('IN_PROGRESS'), 'booked', 'IN_PROGRESS', ['delivery-booked']],
    ['the same booking recorded again', f('CREATED', { courierOrder: true }), 'booked', 'CREATED', []],
    ['a booking of an order cancelled meanwhile', f('SKIPPED', { reasonCode: 'cancelled' }), 'booked', 'CANCEL_REQUESTED_IN_SHOPIFY', []],
    ['the dispatch job stopping', f('PENDING'), 'needs_attention', 'NEEDS_ATTENTION', ['delivery-needs-attention']],
    ['a courier failure', f('IN_PROGRESS', { courierOrder: true }), 'courier_failed', 'NEEDS_ATTENTION', ['delivery-needs-attention', 'delivery-courier-failed']],
    ['a courier failure while already needing attention', f('NEEDS_ATTENTION', { courierOrder: true }), 'courier_failed', 'NEEDS_ATTENTION', ['delivery-courier-failed']],
    ['a courier failure of a delivery flagged cancelled', f('CANCEL_REQUESTED_IN_SHOPIFY', { courierOrder: true }), 'courier_failed', 'CANCEL_REQUESTED_IN_SHOPIFY', []],
    ['a refused Shopify write', f('CREATED', { courierOrder: true }), 'shopify_refused', 'NEEDS_ATTENTION', ['delivery-needs-attention']],
    ['another refused write', f('NEEDS_ATTENTION', { courierOrder: true }), 'shopify_refused', 'NEEDS_ATTENTION', []],
    ['delivered', f('IN_PROGRESS', { courierOrder: true }), 'courier_delivered', 'DELIVERED', ['delivery-delivered']],
    ['delivered again', f('DELIVERED', { courierOrder: true }), 'courier_delivered', 'DELIVERED', []],
    ['moving', f('CREATED', { courierOrder: true }), 'courier_moving', 'IN_PROGRESS', []],
    ['booking failed', f('PENDING'), 'booking_failed', 'FAILED', []],
    ['a merchant retry', f('NEEDS_ATTENTION'), 'retry', 'PENDING', []],
  ])('%s', (_what, before, event, to, expected) => {
    expect(flowTriggersOf(before, event, to)).toEqual(expected);
  });
});

const snap = (over: Partial<FlowSnapshot> = {}): FlowSnapshot => ({
  shopifyOrderId: '5911000000001', status: 'CREATED', reasonCode: null, reason: null, courierStatus: 'accepted', courierStatusAt: '2026-11-25T10:47:00.000Z',
  deliveryPrice: '79.50', currency: 'ZAR', dispatchJobId: 'job_1', locationId: '71000000001', environment: 'live', paidAt: '2026-11-25T10:00:00.000Z',
  courierOrder: true, tries: 1, ...over,
});

describe('buildTriggerPayload', () => {
  it.each<[FlowSnapshot, Parameters<typeof buildTriggerPayload>[0], Record<string, unknown>]>([
    [snap(), 'delivery-booked', { order_id: 5911000000001, 'Delivery price': '79.50', Currency: 'ZAR', 'Job id': 'job_1', 'Pickup location id': 'gid://shopify/Location/71000000001' }],
    [snap({ locationId: null, deliveryPrice: null }), 'delivery-booked', { order_id: 5911000000001, 'Delivery price': '', Currency: 'ZAR', 'Job id': 'job_1', 'Pickup location id': '' }],
    [snap({ status: 'NEEDS_ATTENTION', reasonCode: 'missing_phone', reason: 'No phone', courierOrder: false, tries: 0 }), 'delivery-needs-attention',
      { order_id: 5911000000001, 'Reason code': 'missing_phone', Reason: 'No phone', 'What you can do': 'Retry, Fix and retry, Re-dispatch' }],
    [snap({ status: 'NEEDS_ATTENTION', reasonCode: 'shopify_error', reason: 'Refused' }), 'delivery-needs-attention',
      { order_id: 5911000000001, 'Reason code': 'shopify_error', Reason: 'Refused', 'What you can do': 'Retry, Fix and retry, Re-dispatch' }],
    [snap({ courierStatus: 'failed' }), 'delivery-courier-failed', { order_id: 5911000000001, 'Courier status': 'failed', 'Job id': 'job_1' }],
    [snap({ status: 'DELIVERED' }), 'delivery-delivered', { order_id: 5911000000001, 'Delivered at': '2026-11-25T10:47:00.000Z', 'Minutes from paid to delivered': 47, 'Job id': 'job_1' }],
    [snap({ status: 'DELIVERED', courierStatusAt: null }), 'delivery-delivered', { order_id: 5911000000001, 'Delivered at': '', 'Job id': 'job_1' }],
  ])('%#: %s', (s, trigger, expected) => {
    expect(buildTriggerPayload(trigger, s)).toEqual(expected);
  });

  it('caps long text, and refuses an order id JSON cannot carry exactly', () => {
    const p = buildTriggerPayload('delivery-needs-attention', snap({ status: 'NEEDS_ATTENTION', reason: 'x'.repeat(5_000) }));
    expect(String(p.Reason)).toHaveLength(FLOW_TEXT_MAX);
    expect(() => orderIdNumber('820982911946154508')).toThrow(/numeric Shopify id/);
    expect(() => orderIdNumber('12a')).toThrow();
    expect(orderIdNumber('9007199254740991')).toBe(9007199254740991);
  });

  it('every payload the app builds is valid for its extension, as the simulator checks it', () => {
    const ext = flowExtensions();
    const statuses = { 'delivery-booked': 'CREATED', 'delivery-needs-attention': 'NEEDS_ATTENTION', 'delivery-courier-failed': 'NEEDS_ATTENTION', 'delivery-delivered': 'DELIVERED' } as const;
    for (const [trigger, status] of Object.entries(statuses) as Array<[keyof typeof statuses, string]>) {
      expect(triggerPayloadProblems(ext.get(trigger), buildTriggerPayload(trigger, snap({ status, reasonCode: 'courier_failed', reason: 'x' }))), trigger).toEqual([]);
    }
    // And the check can fail: a wrong type, a missing field, a field the trigger does not have.
    expect(triggerPayloadProblems(ext.get('delivery-delivered'), { order_id: '1', 'Delivered at': 'x', 'Minutes from paid to delivered': '5', 'Job id': 'j', extra: 1 })).toEqual([
      'order_id: not a valid order_reference ("1")', 'Minutes from paid to delivered: not a valid number_decimal ("5")', 'extra: not a field of the trigger',
    ]);
    expect(triggerPayloadProblems(ext.get('delivery-booked'), { order_id: 1 })).toEqual(['Delivery price: missing', 'Currency: missing', 'Job id: missing', 'Pickup location id: missing']);
    expect(triggerPayloadProblems(ext.get('nope'), {})).toEqual(['handle: no Flow trigger with this handle']);
  });
});

describe('when a trigger is not sent', () => {
  const ok = { installed: true, used: true, testDelivery: false, sendTestDeliveries: false };
  it.each<[Partial<typeof ok>, string | null]>([
    [{}, null],
    [{ testDelivery: true, sendTestDeliveries: true }, null],
    [{ testDelivery: true }, 'a test delivery, and the shop does not send triggers for test deliveries'],
    [{ used: false }, 'no enabled workflow uses this trigger'],
    [{ installed: false }, 'the app is not installed on the shop'],
  ])('%j → %s', (over, expected) => {
    expect(skipReason({ ...ok, ...over })).toBe(expected);
  });
});

describe('small rules', () => {
  it.each<[string, string | null, number | null]>([
    ['2026-11-25T10:00:00Z', '2026-11-25T10:47:29Z', 47],
    ['2026-11-25T10:00:00Z', '2026-11-25T10:47:31Z', 48],
    ['2026-11-25T10:00:00Z', '2026-11-25T09:00:00Z', 0],
    ['2026-11-25T10:00:00Z', null, null],
    ['2026-11-25T10:00:00Z', 'not a time', null],
  ])('minutes from %s to %s', (a, b, expected) => {
    expect(minutesBetween(a, b)).toBe(expected);
  });

  it('words for what the merchant can do, and a fallback when nothing is offered', () => {
    expect(actionWords({ status: 'SKIPPED', reasonCode: null, courierOrder: false, tries: 0 })).toBe('Dispatch now, Fix and retry, Re-dispatch');
    expect(actionWords({ status: 'DELIVERED', reasonCode: null, courierOrder: true, tries: 1 })).toBe('Open the order in Same-Day Dispatch');
  });

  it.each([
    ['delivery-booked', 'delivery-booked'], ['Same-day delivery booked', 'delivery-booked'], ['  SAME-DAY ORDER DELIVERED ', 'delivery-delivered'], ['Add row to spreadsheet', null],
  ])('the lifecycle callback id %j names %s', (id, expected) => {
    expect(triggerOfDefinition(id)).toBe(expected);
  });
});
