// Why a delivery is where it is (Delivery.reasonCode). The statuses themselves,
// and every way between them, are the lifecycle table: web/lifecycle/machine.ts.
import type { FulfillmentOrderCode } from './fulfillment-orders.ts';

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
  // Every booking attempt failed on our side (not the courier's): the error is on the timeline.
  | 'booking_failed'
  | 'courier_failed'
  | 'courier_cancelled'
  | 'cancel_with_courier'
  | 'shopify_error'
  | 'invalid_field'
  | 'duplicate_courier_orders'
  | 'address_changed'
  | 'geocode_low_confidence'
  | 'geocode_no_result'
  // Paid outside the pickup location's delivery window (web/windows/): SCHEDULED.
  | 'outside_window'
  // The customer chose a delivery slot (web/slots/): SCHEDULED for it; or the slot is no longer valid.
  | 'delivery_slot'
  | 'slot_unavailable'
  // From the order's fulfillment orders at dispatch time.
  | FulfillmentOrderCode;

export interface Problem {
  code: ReasonCode;
  message: string;
}
