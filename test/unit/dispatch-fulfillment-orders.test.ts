import { describe, expect, it } from 'vitest';
import {
  decideFromFulfillmentOrders, decisionForDispatch, MAX_ROUTING_WAIT_MS, routingComplete,
  type FulfillmentOrderCode, type FulfillmentOrderDecision, type RoutingInput,
} from '../../web/dispatch/fulfillment-orders.ts';
import type { FulfillmentOrderForDispatch } from '../../web/shopify/operations.ts';

const JHB = 'gid://shopify/Location/111';
const CPT = 'gid://shopify/Location/222';
let n = 0;

/** One fulfillment order in the Admin GraphQL shape, open and shipping from Johannesburg unless changed. */
function fo(changes: Partial<FulfillmentOrderForDispatch> & { method?: string | null; location?: string | null } = {}): FulfillmentOrderForDispatch {
  const { method = 'SHIPPING', location = JHB, ...rest } = changes;
  return {
    id: `gid://shopify/FulfillmentOrder/${++n}`,
    status: 'OPEN',
    requestStatus: 'UNSUBMITTED',
    fulfillAt: null,
    fulfillmentHolds: [],
    deliveryMethod: method === null ? null : { methodType: method },
    assignedLocation: { name: location === CPT ? 'Cape Town store' : 'Johannesburg warehouse', location: location ? { id: location } : null },
    lineItems: { nodes: [{ remainingQuantity: 1, requiresShipping: true }] },
    ...rest,
  };
}

const routed: RoutingInput = { webhookSeen: true, orderAgeMs: 0 };

describe('decideFromFulfillmentOrders', () => {
  const ship = (locationId: string) => ({ kind: 'dispatch', locationId, deliveryKind: 'SHIPPING' }) as const;
  const skip = (code: FulfillmentOrderCode) => ({ kind: 'skip', code }) as const;
  const attention = (code: FulfillmentOrderCode) => ({ kind: 'attention', code }) as const;
  it.each<[string, FulfillmentOrderForDispatch[], Partial<FulfillmentOrderDecision>]>([
    // [name, fulfillment orders, decision]
    ['one shipping fulfillment order', [fo()], ship('111')],
    ['local delivery', [fo({ method: 'LOCAL' })], { kind: 'dispatch', locationId: '111', deliveryKind: 'LOCAL' }],
    ['no delivery method stated (treated as shipping)', [fo({ method: null })], ship('111')],
    ['no request status stated (merchant-managed)', [fo({ requestStatus: null })], ship('111')],
    ['an order routed to the second store', [fo({ location: CPT })], ship('222')],
    ['in progress (partly fulfilled elsewhere)', [fo({ status: 'IN_PROGRESS' })], ship('111')],
    ['one item still to ship, another already sent', [fo({ lineItems: { nodes: [{ remainingQuantity: 0, requiresShipping: true }, { remainingQuantity: 1, requiresShipping: true }] } })], ship('111')],
    ['local pickup', [fo({ method: 'PICK_UP' })], skip('local_pickup')],
    ['a pickup point', [fo({ method: 'PICKUP_POINT' })], skip('pickup_point')],
    ['a retail sale', [fo({ method: 'RETAIL' })], skip('retail')],
    ['digital items (method NONE)', [fo({ method: 'NONE' })], skip('nothing_to_ship')],
    ['a delivery method Shopify adds later', [fo({ method: 'DRONE' })], { kind: 'skip', code: 'nothing_to_ship', message: 'Delivery method DRONE is not a delivery' }],
    ['pickup and shipping: the shipping part is ours', [fo({ method: 'PICK_UP', location: CPT }), fo()], ship('111')],
    ['on hold', [fo({ status: 'ON_HOLD', fulfillmentHolds: [{ reason: 'INCORRECT_ADDRESS', displayReason: 'Incorrect address' }] })], skip('fulfillment_on_hold')],
    ['scheduled', [fo({ status: 'SCHEDULED', fulfillAt: '2026-12-01T08:00:00Z' })], skip('fulfillment_scheduled')],
    ['on hold wins over pickup', [fo({ method: 'PICK_UP' }), fo({ status: 'ON_HOLD' })], skip('fulfillment_on_hold')],
    ['sent to a fulfillment service', [fo({ requestStatus: 'SUBMITTED' })], skip('fulfillment_service')],
    ['every fulfillment order closed', [fo({ status: 'CLOSED' })], skip('already_fulfilled')],
    ['part fulfilled, the rest cancelled', [fo({ status: 'CANCELLED' }), fo({ status: 'CLOSED' })], skip('already_fulfilled')],
    ['no fulfillment orders at all', [], skip('nothing_to_ship')],
    ['nothing remaining', [fo({ lineItems: { nodes: [{ remainingQuantity: 0, requiresShipping: true }] } })], skip('nothing_to_ship')],
    ['only items that need no shipping', [fo({ lineItems: { nodes: [{ remainingQuantity: 2, requiresShipping: false }] } })], skip('nothing_to_ship')],
    ['cancelled and incomplete only', [fo({ status: 'CANCELLED' }), fo({ status: 'INCOMPLETE' })], skip('nothing_to_ship')],
    ['a closed one and an open one', [fo({ status: 'CLOSED', location: CPT }), fo()], ship('111')],
    ['two stores', [fo(), fo({ location: CPT })], attention('multiple_locations')],
    ['two fulfillment orders, one store', [fo(), fo({ method: 'LOCAL' })], { kind: 'dispatch', locationId: '111', deliveryKind: 'LOCAL' }],
    ['a deleted location', [fo({ location: null })], attention('no_assigned_location')],
    ['no assigned location at all', [fo({ assignedLocation: null })], attention('no_assigned_location')],
  ])('%s', (_name, fos, expected) => {
    const d = decideFromFulfillmentOrders(fos, routed);
    expect(d).toMatchObject(expected);
    // Whatever is not booked carries a reason for the merchant.
    if (d.kind !== 'dispatch') expect(d.message).toMatch(/\w/);
  });

  it('names what it books: location, kind and the fulfillment orders covered', () => {
    const a = fo();
    const b = fo({ method: 'LOCAL' });
    expect(decideFromFulfillmentOrders([a, b, fo({ method: 'PICK_UP', location: CPT })], routed)).toEqual({
      kind: 'dispatch', locationId: '111', locationGid: JHB, locationName: 'Johannesburg warehouse', deliveryKind: 'LOCAL',
      fulfillmentOrderIds: [a.id, b.id], movedFrom: null,
    });
  });

  it('notices a fulfillment order moved to another store since the last look', () => {
    expect(decideFromFulfillmentOrders([fo({ location: CPT })], routed, { previousLocationId: '111' })).toMatchObject({ locationId: '222', movedFrom: '111' });
    expect(decideFromFulfillmentOrders([fo()], routed, { previousLocationId: JHB })).toMatchObject({ locationId: '111', movedFrom: null });
  });

  it.each<[string, FulfillmentOrderForDispatch, string]>([
    // [name, fulfillment order, message]
    ['a hold with its reason', fo({ status: 'ON_HOLD', fulfillmentHolds: [{ reason: 'AWAITING_PAYMENT', displayReason: 'Awaiting payment' }] }), 'Fulfillment is on hold in Shopify: Awaiting payment'],
    ['two holds', fo({ status: 'ON_HOLD', fulfillmentHolds: [{ displayReason: 'Awaiting payment' }, { reason: 'INCORRECT_ADDRESS' }] }), 'Fulfillment is on hold in Shopify: Awaiting payment; INCORRECT_ADDRESS'],
    ['a hold without a stated reason', fo({ status: 'ON_HOLD', fulfillmentHolds: [{ reason: null, displayReason: null }] }), 'Fulfillment is on hold in Shopify'],
    ['a hold whose holds were not read', fo({ status: 'ON_HOLD', fulfillmentHolds: null }), 'Fulfillment is on hold in Shopify'],
    ['a schedule', fo({ status: 'SCHEDULED', fulfillAt: '2026-12-01T08:00:00Z' }), 'Fulfillment is scheduled for 2026-12-01T08:00:00Z; dispatch it when it is due'],
    ['a schedule without a time', fo({ status: 'SCHEDULED', fulfillAt: null }), 'Fulfillment is scheduled; dispatch it when it is due'],
  ])('gives %s in the reason', (_name, f, message) => {
    expect(decideFromFulfillmentOrders([f], routed)).toMatchObject({ kind: 'skip', message });
  });

  it.each<[string, FulfillmentOrderForDispatch[], string]>([
    // [name, fulfillment orders, what the message says before its advice]
    ['named stores', [fo(), fo({ location: CPT })], 'The order ships from 2 locations (Johannesburg warehouse, Cape Town store)'],
    ['a store without a name, by its id', [fo(), fo({ location: CPT, assignedLocation: { name: null, location: { id: CPT } } })], 'The order ships from 2 locations (Johannesburg warehouse, 222)'],
  ])('asks the merchant to choose between stores, naming them (%s)', (_name, fos, named) => {
    const d = decideFromFulfillmentOrders(fos, routed);
    expect(d).toMatchObject({ kind: 'attention', code: 'multiple_locations' });
    expect(d.kind === 'attention' && d.message.split(';')[0]).toBe(named);
  });

  it('waits while routing is incomplete', () => {
    expect(decideFromFulfillmentOrders([fo()], { webhookSeen: false, orderAgeMs: 5_000 })).toEqual({ kind: 'wait', code: 'routing_incomplete', message: "Waiting for Shopify's order routing to assign a location" });
  });
});

describe('routingComplete', () => {
  it.each<[string, FulfillmentOrderForDispatch[], RoutingInput, boolean]>([
    ['the webhook came', [], { webhookSeen: true, orderAgeMs: 0 }, true],
    ['no webhook, seconds after the order', [fo()], { webhookSeen: false, orderAgeMs: 5_000 }, false],
    ['no webhook, past the grace time, every location assigned', [fo()], { webhookSeen: false, orderAgeMs: 60_000 }, true],
    ['no webhook, no fulfillment orders yet', [], { webhookSeen: false, orderAgeMs: 600_000 }, false],
    ['no webhook, an open fulfillment order without a location', [fo({ location: null })], { webhookSeen: false, orderAgeMs: 600_000 }, false],
    ['no webhook, one of two open fulfillment orders without a location', [fo(), fo({ location: null })], { webhookSeen: false, orderAgeMs: 600_000 }, false],
    ['no webhook, an open fulfillment order with no assigned location at all', [fo({ assignedLocation: null })], { webhookSeen: false, orderAgeMs: 600_000 }, false],
    ['no webhook, a closed one without a location does not matter', [fo(), fo({ status: 'CLOSED', location: null })], { webhookSeen: false, orderAgeMs: 600_000 }, true],
    ['a grace time of its own', [fo()], { webhookSeen: false, orderAgeMs: 10_000, graceMs: 10_000 }, true],
  ])('%s', (_name, fos, r, expected) => {
    expect(routingComplete(fos, r)).toBe(expected);
  });
});

describe('decisionForDispatch', () => {
  const rebooking = { locationId: '222', fulfillmentOrderIds: ['gid://shopify/FulfillmentOrder/9'] };
  const fulfilled: FulfillmentOrderDecision = { kind: 'skip', code: 'already_fulfilled', message: 'done' };
  const waiting: FulfillmentOrderDecision = { kind: 'wait', code: 'routing_incomplete', message: 'wait' };
  const pickup: FulfillmentOrderDecision = { kind: 'skip', code: 'local_pickup', message: 'pickup' };
  it.each<[string, FulfillmentOrderDecision, { orderAgeMs: number; rebooking?: typeof rebooking | null }, Partial<FulfillmentOrderDecision> & { kind: string }]>([
    ['a re-booking whose own fulfillment closed the items books from the same location', fulfilled, { orderAgeMs: 0, rebooking },
      { kind: 'dispatch', locationId: '222', locationGid: 'gid://shopify/Location/222', locationName: null, deliveryKind: 'SHIPPING', fulfillmentOrderIds: rebooking.fulfillmentOrderIds, movedFrom: null }],
    ['a first booking of a fulfilled order is skipped', fulfilled, { orderAgeMs: 0, rebooking: null }, fulfilled],
    ['a re-booking of a pickup order is still skipped', pickup, { orderAgeMs: 0, rebooking }, pickup],
    ['a skip for an old order is not a routing problem', pickup, { orderAgeMs: MAX_ROUTING_WAIT_MS * 6 }, pickup],
    ['waiting within the limit', waiting, { orderAgeMs: MAX_ROUTING_WAIT_MS - 1 }, waiting],
    ['waiting past the limit needs attention', waiting, { orderAgeMs: MAX_ROUTING_WAIT_MS }, { kind: 'attention', code: 'routing_incomplete', message: "Shopify has not assigned the order to a location after 10 minutes" }],
  ])('%s', (_name, decision, o, expected) => {
    expect(decisionForDispatch(decision, o)).toEqual(expect.objectContaining(expected));
  });
});
