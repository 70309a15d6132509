// What the admin API returns for deliveries: plain JSON for people, with the
// attention reason in plain words and the actions the current status allows
// (allowedActions: the lifecycle table web/dispatch/service.ts enforces). Never
// a secret: a delivery holds none (the courier request is the order, not credentials).
import type { ReasonCode } from '../dispatch/status.ts';
import { allowedActions, factsOf, type DeliveryStatus } from '../lifecycle/machine.ts';
import { trackingPageUrl } from '../tracking/token.ts';

/** Status → what it means, for badges and filters. */
export const STATUS_LABELS: Record<DeliveryStatus, string> = {
  PENDING: 'Queued',
  SKIPPED: 'Skipped',
  NEEDS_ATTENTION: 'Needs attention',
  FAILED: 'Failed',
  CREATED: 'Created',
  IN_PROGRESS: 'In progress',
  DELIVERED: 'Delivered',
  CANCEL_REQUESTED_IN_SHOPIFY: 'Cancel with courier',
  SCHEDULED: 'Scheduled',
};

/** Reason code → a plain-words title and what the merchant can do about it. */
export const REASONS: Record<ReasonCode, { title: string; hint: string }> = {
  cancelled: { title: 'Order cancelled', hint: 'The order was cancelled in Shopify, so it will not be sent.' },
  shop_uninstalled: { title: 'App uninstalled', hint: 'The app was uninstalled from the shop before this order was sent.' },
  test_order_live: { title: 'Test order', hint: 'Test orders are never sent to the live courier.' },
  test_order: { title: 'Test order', hint: 'Test orders are not dispatched. Change this under dispatch rules.' },
  nothing_to_ship: { title: 'Nothing to ship', hint: 'No item on the order needs shipping.' },
  local_pickup: { title: 'Local pickup', hint: 'The customer collects this order.' },
  shipping_method: { title: 'Not a same-day shipping method', hint: 'Use Dispatch now to send it anyway, or add the method to your dispatch rules.' },
  country: { title: 'Destination not covered', hint: 'Use Dispatch now to send it anyway, or add the country to your dispatch rules.' },
  auto_dispatch_off: { title: 'Auto-dispatch is off', hint: 'Use Dispatch now, or turn on auto-dispatch in Settings.' },
  no_shipping_address: { title: 'No shipping address', hint: 'Add a shipping address to the order in Shopify, then retry.' },
  incomplete_address: { title: 'Address is incomplete', hint: 'Complete the shipping address in Shopify, then retry.' },
  missing_coordinates: { title: 'Address has no map location', hint: 'Enter the latitude and longitude of the address, then retry.' },
  invalid_phone: { title: 'Phone number is not valid', hint: 'Enter the customer’s phone number, then retry.' },
  missing_phone: { title: 'No phone number', hint: 'Enter the customer’s phone number, then retry.' },
  invalid_amount: { title: 'Order total is not valid', hint: 'The order total could not be read.' },
  missing_pickup_store: { title: 'No pickup store', hint: 'Choose a pickup store in Settings, then retry.' },
  missing_credentials: { title: 'Courier credentials missing', hint: 'Enter the courier credentials in Settings, then retry.' },
  price_above_max: { title: 'Price above your maximum', hint: 'Dispatch it anyway with Retry after raising the maximum price, or leave it.' },
  courier_rejected: { title: 'The courier refused the order', hint: 'Check the courier’s message, fix the order or settings, then retry.' },
  courier_credentials: { title: 'The courier refused the credentials', hint: 'Check the client id and secret in Settings and test the connection.' },
  courier_scope: { title: 'Courier access is missing a permission', hint: 'Ask the courier to grant the permission named below.' },
  idempotency_conflict: { title: 'The courier already holds a different request', hint: 'Re-dispatch to book a new delivery.' },
  courier_unavailable: { title: 'The courier could not be reached', hint: 'Retry; the same request is sent again, so nothing is booked twice.' },
  courier_failed: { title: 'The courier could not deliver', hint: 'Re-dispatch to book a new delivery.' },
  courier_cancelled: { title: 'The courier cancelled the delivery', hint: 'Re-dispatch to book a new delivery.' },
  cancel_with_courier: { title: 'Cancel with the courier', hint: 'The order was cancelled after it was booked: cancel the courier job in the courier portal.' },
  shopify_error: { title: 'Shopify refused an update', hint: 'See the timeline for Shopify’s message.' },
  invalid_field: { title: 'A field is too long or not valid', hint: 'Correct the field named below with Fix, then retry.' },
  duplicate_courier_orders: {
    title: 'The courier booked this order more than once',
    hint: 'Cancel the extra courier orders listed below in the courier portal, then mark this resolved. Updates keep coming from the order this app tracks.',
  },
  address_changed: {
    title: 'The courier has the old address',
    hint: 'The shipping address or phone changed in Shopify after booking. Give the courier the new details (courier portal or phone), then mark this resolved.',
  },
  geocode_low_confidence: { title: 'Check the map location', hint: 'The geocoder is not sure where this address is. Use the location it found, or enter the coordinates with Fix.' },
  geocode_no_result: { title: 'Address not found on the map', hint: 'The geocoder found no place for this address. Search for it or enter the latitude and longitude with Fix.' },
  routing_incomplete: { title: 'No location assigned yet', hint: 'Shopify has not assigned the order to a location. Check its fulfillment orders in Shopify, then retry.' },
  pickup_point: { title: 'Pickup point delivery', hint: 'Another carrier delivers this order to a pickup point.' },
  retail: { title: 'Sold in store', hint: 'The customer took the order with them.' },
  fulfillment_on_hold: { title: 'Fulfillment on hold', hint: 'Release the hold in Shopify, then use Dispatch now.' },
  fulfillment_scheduled: { title: 'Fulfillment scheduled', hint: 'Use Dispatch now when the scheduled date comes.' },
  fulfillment_service: { title: 'Fulfilled by a fulfillment service', hint: 'A fulfillment service was asked to fulfil this order.' },
  already_fulfilled: { title: 'Already fulfilled', hint: 'Every item is already fulfilled or cancelled in Shopify.' },
  no_assigned_location: { title: 'No location assigned', hint: 'Assign the fulfillment order to a location in Shopify, then retry.' },
  multiple_locations: { title: 'Ships from more than one location', hint: 'Move the items to one location in Shopify, then retry.' },
  outside_window: { title: 'Scheduled for the next opening', hint: 'Paid outside the pickup location’s delivery window. It goes out automatically at the time shown, or use Dispatch now.' },
};

export interface DeliveryRowLike {
  id: string;
  shopifyOrderId: string;
  orderName: string | null;
  environment: string | null;
  status: string;
  reasonCode: string | null;
  reason: string | null;
  deliveryPrice: string | null;
  currency: string | null;
  dispatchJobId: string | null;
  courierOrderId: string | null;
  courierDeliveryId: string | null;
  courierStatus: string | null;
  courierOrderStatus: string | null;
  lastError: string | null;
  fulfillmentId: string | null;
  generation: number;
  tries: number;
  dispatchedAt: Date | null;
  lastEventAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  trackingToken?: string | null;
  /** SCHEDULED: when it goes out (web/windows/). */
  scheduledFor?: Date | null;
}

export interface EventRowLike {
  id: string;
  kind: string;
  status: string | null;
  message: string | null;
  source: string;
  applied: boolean;
  occurredAt: Date;
  receivedAt: Date;
}

export function eventView(e: EventRowLike) {
  return { id: e.id, kind: e.kind, status: e.status, message: e.message, source: e.source, applied: e.applied, occurredAt: e.occurredAt, receivedAt: e.receivedAt };
}

function attentionOf(d: DeliveryRowLike) {
  if (!d.reasonCode && !d.reason) return null;
  const known = d.reasonCode ? REASONS[d.reasonCode as ReasonCode] : undefined;
  return { code: d.reasonCode, title: known?.title ?? 'Needs a look', hint: known?.hint ?? null, detail: d.reason };
}

export function trackingUrl(template: string | null, d: DeliveryRowLike): string | null {
  if (!template || !d.dispatchJobId) return null;
  const values: Record<string, string> = {
    jobId: d.dispatchJobId,
    orderId: d.courierOrderId ?? '',
    deliveryId: d.courierDeliveryId ?? '',
    reference: d.shopifyOrderId,
  };
  return template.replace(/\{(jobId|orderId|deliveryId|reference)\}/g, (_m, k: string) => encodeURIComponent(values[k] ?? ''));
}

/** One row of the deliveries list (and the order block). */
export function deliverySummary(d: DeliveryRowLike, lastEvent: EventRowLike | null, opts: { trackingUrlTemplate?: string | null; appUrl?: string } = {}) {
  return {
    id: d.id,
    orderName: d.orderName,
    shopifyOrderId: d.shopifyOrderId,
    environment: d.environment,
    status: d.status,
    statusLabel: STATUS_LABELS[d.status as DeliveryStatus] ?? d.status,
    attention: attentionOf(d),
    price: d.deliveryPrice,
    currency: d.currency,
    dispatchJobId: d.dispatchJobId,
    courierOrderId: d.courierOrderId,
    courierStatus: d.courierStatus ?? null,
    // The merchant's template, else the customer tracking page the fulfillment links to (web/tracking/).
    trackingUrl: trackingUrl(opts.trackingUrlTemplate ?? null, d) ?? (d.trackingToken && opts.appUrl ? trackingPageUrl(opts.appUrl, d.trackingToken) : null),
    lastEvent: lastEvent ? eventView(lastEvent) : null,
    actions: allowedActions(factsOf(d)),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    scheduledFor: d.status === 'SCHEDULED' ? d.scheduledFor ?? null : null,
  };
}

export type DeliverySummary = ReturnType<typeof deliverySummary>;
