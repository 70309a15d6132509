// The lifecycle of a Delivery (one per Shopify order), as stored in Delivery.status.
//
//   PENDING ──dispatch job──▶ CREATED ──courier events──▶ IN_PROGRESS ──▶ DELIVERED
//      │                         │                             │
//      ├─▶ SKIPPED (rules)       └─▶ CANCEL_REQUESTED_IN_SHOPIFY (order cancelled after booking)
//      ├─▶ NEEDS_ATTENTION (merchant must fix: data, credentials, courier refusal, courier failure)
//      └─▶ FAILED (transient errors outlasted every retry)
//
// SKIPPED, NEEDS_ATTENTION and FAILED are where a merchant acts: dispatch now,
// fix and retry, retry, or re-dispatch (a new generation and Idempotency-Key).
export const DELIVERY_STATUSES = [
  'PENDING',
  'SKIPPED',
  'NEEDS_ATTENTION',
  'FAILED',
  'CREATED',
  'IN_PROGRESS',
  'DELIVERED',
  'CANCEL_REQUESTED_IN_SHOPIFY',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Statuses in which a courier order exists for the current generation. */
export const BOOKED: readonly DeliveryStatus[] = ['CREATED', 'IN_PROGRESS', 'DELIVERED', 'CANCEL_REQUESTED_IN_SHOPIFY'];

/** Statuses a merchant can send (again) from. */
export const ACTIONABLE: readonly DeliveryStatus[] = ['SKIPPED', 'NEEDS_ATTENTION', 'FAILED'];

export type ReasonCode =
  | 'cancelled'
  | 'shop_uninstalled'
  | 'test_order_live'
  | 'test_order'
  | 'nothing_to_ship'
  | 'local_pickup'
  | 'shipping_method'
  | 'country'
  | 'auto_dispatch_off'
  | 'no_shipping_address'
  | 'incomplete_address'
  | 'missing_coordinates'
  | 'invalid_phone'
  | 'missing_phone'
  | 'invalid_amount'
  | 'missing_pickup_store'
  | 'missing_credentials'
  | 'price_above_max'
  | 'courier_rejected'
  | 'courier_credentials'
  | 'courier_scope'
  | 'idempotency_conflict'
  | 'courier_unavailable'
  | 'courier_failed'
  | 'courier_cancelled'
  | 'cancel_with_courier'
  | 'shopify_error'
  | 'invalid_field'
  | 'duplicate_courier_orders';

export interface Problem {
  code: ReasonCode;
  message: string;
}
