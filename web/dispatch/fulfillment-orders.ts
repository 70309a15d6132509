// Where and whether to book, read from the order's fulfillment orders (Admin
// GraphQL, ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH in web/shopify/operations.ts)
// instead of the REST location_id (the point-of-sale location, null online)
// and words in shipping-line titles. Pure: fulfillment orders in, decision out.
//
// A fulfillment order's assigned location is only final once Shopify's order
// routing is done (fulfillment_orders/order_routing_complete), and it can still
// move (fulfillmentOrderMove closes it and opens a new one elsewhere) until it
// is fulfilled, so this runs at dispatch time on a fresh read.

export interface FulfillmentOrderForDispatch {
  id: string;
  /** FulfillmentOrderStatus: OPEN, IN_PROGRESS, SCHEDULED, ON_HOLD, INCOMPLETE, CLOSED, CANCELLED. */
  status: string;
  /** FulfillmentOrderRequestStatus: UNSUBMITTED for merchant-managed locations; anything else means a fulfillment service was asked. */
  requestStatus?: string | null;
  /** ISO time a SCHEDULED fulfillment order becomes ready. */
  fulfillAt?: string | null;
  fulfillmentHolds?: Array<{ reason?: string | null; displayReason?: string | null; reasonNotes?: string | null }> | null;
  /** DeliveryMethodType: SHIPPING, LOCAL, PICK_UP, PICKUP_POINT, RETAIL, NONE. */
  deliveryMethod?: { methodType?: string | null } | null;
  assignedLocation?: { name?: string | null; location?: { id: string } | null } | null;
  /** Not read at dispatch (each costs a point, ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH): then the status says whether work is left. */
  lineItems?: { nodes: Array<{ remainingQuantity: number; requiresShipping?: boolean | null }> } | null;
}

/** Skip / attention codes this module adds (web/dispatch/status.ts ReasonCode needs them when wired). */
export type FulfillmentOrderCode =
  | 'routing_incomplete'
  | 'local_pickup'
  | 'pickup_point'
  | 'retail'
  | 'nothing_to_ship'
  | 'fulfillment_on_hold'
  | 'fulfillment_scheduled'
  | 'fulfillment_service'
  | 'already_fulfilled'
  | 'no_assigned_location'
  | 'multiple_locations';

export type DeliveryKind = 'SHIPPING' | 'LOCAL';

export type FulfillmentOrderDecision =
  | {
      kind: 'dispatch';
      /** Numeric Shopify location id (the key of CourierEnvironment.locationStores). */
      locationId: string;
      locationGid: string;
      locationName: string | null;
      deliveryKind: DeliveryKind;
      /** The fulfillment orders the booking covers (what the Shopify fulfillment is later created for). */
      fulfillmentOrderIds: string[];
      /** Set when the location differs from the one chosen before (fulfillment order moved). */
      movedFrom: string | null;
    }
  /** Not yet: ask again later (routing still running). */
  | { kind: 'wait'; code: 'routing_incomplete'; message: string }
  /** Not ours to deliver: record SKIPPED with the reason. */
  | { kind: 'skip'; code: FulfillmentOrderCode; message: string }
  /** Ours, but a person must choose: NEEDS_ATTENTION. */
  | { kind: 'attention'; code: FulfillmentOrderCode; message: string };

const ACTIVE = new Set(['OPEN', 'IN_PROGRESS']);
const DONE = new Set(['CLOSED', 'CANCELLED', 'INCOMPLETE']);
const DELIVERED_BY_US = new Set<string>(['SHIPPING', 'LOCAL']);
const NOT_OURS: Record<string, { code: FulfillmentOrderCode; message: string }> = {
  PICK_UP: { code: 'local_pickup', message: 'Local pickup: the customer collects the order' },
  PICKUP_POINT: { code: 'pickup_point', message: 'Delivered to a pickup point by another carrier' },
  RETAIL: { code: 'retail', message: 'Sold in a store: the customer took the order with them' },
  NONE: { code: 'nothing_to_ship', message: 'Nothing to ship: digital or service items only' },
};

export const numericLocationId = (gid: string) => gid.split('/').pop()!;

/** A method Shopify did not state is treated as shipping (the older default). */
export const methodOf = (fo: FulfillmentOrderForDispatch) => (fo.deliveryMethod?.methodType ?? 'SHIPPING').toUpperCase();

const hasWork = (fo: FulfillmentOrderForDispatch) =>
  !fo.lineItems || fo.lineItems.nodes.some((l) => l.remainingQuantity > 0 && l.requiresShipping !== false);

export interface RoutingInput {
  /** fulfillment_orders/order_routing_complete was received for the order. */
  webhookSeen: boolean;
  /** Time since the order was created; with no webhook, routing counts as done after graceMs. */
  orderAgeMs: number;
  graceMs?: number;
}

/** Shopify routes within seconds; a minute without the webhook is taken as done (the webhook can be lost). */
export const DEFAULT_ROUTING_GRACE_MS = 60_000;

/**
 * Is Shopify's order routing complete? The webhook says so; without it, every
 * fulfillment order must exist with an assigned location and the grace time
 * must have passed (GraphQL has no "routed" field to read).
 */
export function routingComplete(fos: FulfillmentOrderForDispatch[], r: RoutingInput): boolean {
  if (r.webhookSeen) return true;
  if (fos.length === 0) return false;
  if (fos.some((f) => ACTIVE.has(f.status) && !f.assignedLocation?.location?.id)) return false;
  return r.orderAgeMs >= (r.graceMs ?? DEFAULT_ROUTING_GRACE_MS);
}

/**
 * @param previousLocationId the location chosen at an earlier look (numeric id), to notice a move.
 */
export function decideFromFulfillmentOrders(
  fos: FulfillmentOrderForDispatch[],
  routing: RoutingInput,
  opts: { previousLocationId?: string | null } = {},
): FulfillmentOrderDecision {
  if (!routingComplete(fos, routing)) {
    return { kind: 'wait', code: 'routing_incomplete', message: "Waiting for Shopify's order routing to assign a location" };
  }
  const open = fos.filter((f) => !DONE.has(f.status) && hasWork(f));
  if (open.length === 0) {
    return fos.length > 0 && fos.some((f) => f.status === 'CLOSED')
      ? { kind: 'skip', code: 'already_fulfilled', message: 'Every item is already fulfilled or cancelled in Shopify' }
      : { kind: 'skip', code: 'nothing_to_ship', message: 'Nothing to ship: no open fulfillment order has items to deliver' };
  }

  const ours = open.filter((f) => DELIVERED_BY_US.has(methodOf(f)));
  const bookable = ours.filter((f) => ACTIVE.has(f.status) && (f.requestStatus ?? 'UNSUBMITTED') === 'UNSUBMITTED');
  if (bookable.length === 0) return whyNot(open, ours);

  const byLocation = new Map<string, FulfillmentOrderForDispatch[]>();
  for (const f of bookable) {
    const loc = f.assignedLocation?.location?.id;
    if (!loc) return { kind: 'attention', code: 'no_assigned_location', message: 'A fulfillment order has no assigned location (was it deleted?); assign one in Shopify' };
    byLocation.set(loc, [...(byLocation.get(loc) ?? []), f]);
  }
  if (byLocation.size > 1) {
    const names = [...byLocation.values()].map((g) => g[0]!.assignedLocation?.name ?? numericLocationId(g[0]!.assignedLocation!.location!.id));
    return { kind: 'attention', code: 'multiple_locations', message: `The order ships from ${byLocation.size} locations (${names.join(', ')}); one courier booking has one pickup store. Move the items to one location in Shopify` };
  }
  const [[locationGid, group]] = [...byLocation.entries()] as [[string, FulfillmentOrderForDispatch[]]];
  const locationId = numericLocationId(locationGid);
  const prev = opts.previousLocationId ? numericLocationId(opts.previousLocationId) : null;
  return {
    kind: 'dispatch',
    locationId,
    locationGid,
    locationName: group[0]!.assignedLocation?.name ?? null,
    // Local delivery wins: one LOCAL fulfillment order makes it a local delivery.
    deliveryKind: group.some((f) => methodOf(f) === 'LOCAL') ? 'LOCAL' : 'SHIPPING',
    fulfillmentOrderIds: group.map((f) => f.id),
    movedFrom: prev && prev !== locationId ? prev : null,
  };
}

/** No fulfillment order we can book: the most telling reason. */
function whyNot(open: FulfillmentOrderForDispatch[], ours: FulfillmentOrderForDispatch[]): FulfillmentOrderDecision {
  const held = ours.find((f) => f.status === 'ON_HOLD');
  if (held) {
    const reasons = (held.fulfillmentHolds ?? []).map((h) => h.displayReason || h.reason).filter(Boolean);
    return { kind: 'skip', code: 'fulfillment_on_hold', message: `Fulfillment is on hold in Shopify${reasons.length ? `: ${reasons.join('; ')}` : ''}` };
  }
  const scheduled = ours.find((f) => f.status === 'SCHEDULED');
  if (scheduled) {
    return { kind: 'skip', code: 'fulfillment_scheduled', message: `Fulfillment is scheduled${scheduled.fulfillAt ? ` for ${scheduled.fulfillAt}` : ''}; dispatch it when it is due` };
  }
  if (ours.length > 0) {
    return { kind: 'skip', code: 'fulfillment_service', message: 'A fulfillment service was asked to fulfil this order' };
  }
  const other = NOT_OURS[methodOf(open[0]!)];
  return other ? { kind: 'skip', ...other } : { kind: 'skip', code: 'nothing_to_ship', message: `Delivery method ${methodOf(open[0]!)} is not a delivery` };
}

/** After this long without a routed order, dispatch stops waiting and asks the merchant. */
export const MAX_ROUTING_WAIT_MS = 10 * DEFAULT_ROUTING_GRACE_MS;

/**
 * The dispatch job's last word on a decision: a delivery re-booked after its own
 * earlier booking fulfilled the items books again from the same location (the
 * closed fulfillment orders are its own), and waiting for routing has a limit.
 */
export function decisionForDispatch(
  decision: FulfillmentOrderDecision,
  o: { orderAgeMs: number; rebooking?: { locationId: string; fulfillmentOrderIds: string[] } | null },
): FulfillmentOrderDecision {
  if (decision.kind === 'skip' && decision.code === 'already_fulfilled' && o.rebooking) {
    const { locationId, fulfillmentOrderIds } = o.rebooking;
    return { kind: 'dispatch', locationId, locationGid: `gid://shopify/Location/${locationId}`, locationName: null, deliveryKind: 'SHIPPING', fulfillmentOrderIds, movedFrom: null };
  }
  if (decision.kind === 'wait' && o.orderAgeMs >= MAX_ROUTING_WAIT_MS) {
    return { kind: 'attention', code: 'routing_incomplete', message: `Shopify has not assigned the order to a location after ${Math.round(o.orderAgeMs / 60_000)} minutes` };
  }
  return decision;
}
