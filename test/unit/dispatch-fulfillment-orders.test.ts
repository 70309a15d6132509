import { describe, expect, it } from 'vitest';
import {
  decideFromFulfillmentOrders, decisionForDispatch, MAX_ROUTING_WAIT_MS, routingComplete,
  type FulfillmentOrderDecision, type FulfillmentOrderForDispatch, type RoutingInput,
} from '../../web/dispatch/fulfillment-orders.ts';

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
  it.each<[string, FulfillmentOrderForDispatch[], string, string | null]>([
    // [name, fulfillment orders, kind, code or location id]
    ['one shipping fulfillment order', [fo()], 'dispatch', '111'],
    ['local delivery', [fo({ method: 'LOCAL' })], 'dispatch', '111'],
    ['no delivery method stated (treated as shipping)', [fo({ method: null })], 'dispatch', '111'],
    ['an order routed to the second store', [fo({ location: CPT })], 'dispatch', '222'],
    ['in progress (partly fulfilled elsewhere)', [fo({ status: 'IN_PROGRESS' })], 'dispatch', '111'],
    ['local pickup', [fo({ method: 'PICK_UP' })], 'skip', 'local_pickup'],
    ['a pickup point', [fo({ method: 'PICKUP_POINT' })], 'skip', 'pickup_point'],
    ['a retail sale', [fo({ method: 'RETAIL' })], 'skip', 'retail'],
    ['digital items (method NONE)', [fo({ method: 'NONE' })], 'skip', 'nothing_to_ship'],
    ['pickup and shipping: the shipping part is ours', [fo({ method: 'PICK_UP', location: CPT }), fo()], 'dispatch', '111'],
    ['on hold', [fo({ status: 'ON_HOLD', fulfillmentHolds: [{ reason: 'INCORRECT_ADDRESS', displayReason: 'Incorrect address' }] })], 'skip', 'fulfillment_on_hold'],
    ['scheduled', [fo({ status: 'SCHEDULED', fulfillAt: '2026-12-01T08:00:00Z' })], 'skip', 'fulfillment_scheduled'],
    ['on hold wins over pickup', [fo({ method: 'PICK_UP' }), fo({ status: 'ON_HOLD' })], 'skip', 'fulfillment_on_hold'],
    ['sent to a fulfillment service', [fo({ requestStatus: 'SUBMITTED' })], 'skip', 'fulfillment_service'],
    ['every fulfillment order closed', [fo({ status: 'CLOSED' })], 'skip', 'already_fulfilled'],
    ['nothing remaining', [fo({ lineItems: { nodes: [{ remainingQuantity: 0, requiresShipping: true }] } })], 'skip', 'nothing_to_ship'],
    ['only items that need no shipping', [fo({ lineItems: { nodes: [{ remainingQuantity: 2, requiresShipping: false }] } })], 'skip', 'nothing_to_ship'],
    ['cancelled and incomplete only', [fo({ status: 'CANCELLED' }), fo({ status: 'INCOMPLETE' })], 'skip', 'nothing_to_ship'],
    ['a closed one and an open one', [fo({ status: 'CLOSED', location: CPT }), fo()], 'dispatch', '111'],
    ['two stores', [fo(), fo({ location: CPT })], 'attention', 'multiple_locations'],
    ['two fulfillment orders, one store', [fo(), fo({ method: 'LOCAL' })], 'dispatch', '111'],
    ['a deleted location', [fo({ location: null })], 'attention', 'no_assigned_location'],
  ])('%s', (_name, fos, kind, expected) => {
    const d = decideFromFulfillmentOrders(fos, routed);
    expect(d.kind).toBe(kind);
    if (d.kind === 'dispatch') expect(d.locationId).toBe(expected);
    else expect(d).toMatchObject({ code: expected, message: expect.any(String) });
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

  it('gives the hold and the schedule in the reason', () => {
    const held = decideFromFulfillmentOrders([fo({ status: 'ON_HOLD', fulfillmentHolds: [{ reason: 'AWAITING_PAYMENT', displayReason: 'Awaiting payment' }] })], routed);
    expect(held).toMatchObject({ message: 'Fulfillment is on hold in Shopify: Awaiting payment' });
    const later = decideFromFulfillmentOrders([fo({ status: 'SCHEDULED', fulfillAt: '2026-12-01T08:00:00Z' })], routed);
    expect(later).toMatchObject({ message: expect.stringContaining('2026-12-01T08:00:00Z') });
  });

  it('waits while routing is incomplete', () => {
    expect(decideFromFulfillmentOrders([fo()], { webhookSeen: false, orderAgeMs: 5_000 })).toMatchObject({ kind: 'wait', code: 'routing_incomplete' });
  });
});

describe('routingComplete', () => {
  it.each<[string, FulfillmentOrderForDispatch[], RoutingInput, boolean]>([
    ['the webhook came', [], { webhookSeen: true, orderAgeMs: 0 }, true],
    ['no webhook, seconds after the order', [fo()], { webhookSeen: false, orderAgeMs: 5_000 }, false],
    ['no webhook, past the grace time, every location assigned', [fo()], { webhookSeen: false, orderAgeMs: 60_000 }, true],
    ['no webhook, no fulfillment orders yet', [], { webhookSeen: false, orderAgeMs: 600_000 }, false],
    ['no webhook, an open fulfillment order without a location', [fo({ location: null })], { webhookSeen: false, orderAgeMs: 600_000 }, false],
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
      { kind: 'dispatch', locationId: '222', locationGid: 'gid://shopify/Location/222', fulfillmentOrderIds: rebooking.fulfillmentOrderIds, movedFrom: null }],
    ['a first booking of a fulfilled order is skipped', fulfilled, { orderAgeMs: 0, rebooking: null }, fulfilled],
    ['a re-booking of a pickup order is still skipped', pickup, { orderAgeMs: 0, rebooking }, pickup],
    ['waiting within the limit', waiting, { orderAgeMs: MAX_ROUTING_WAIT_MS - 1 }, waiting],
    ['waiting past the limit needs attention', waiting, { orderAgeMs: MAX_ROUTING_WAIT_MS }, { kind: 'attention', code: 'routing_incomplete', message: "Shopify has not assigned the order to a location after 10 minutes" }],
  ])('%s', (_name, decision, o, expected) => {
    expect(decisionForDispatch(decision, o)).toEqual(expect.objectContaining(expected));
  });
});
