// Every queue the app uses, with its payload. Payloads carry ids only.
export const JOBS = {
  /** One generation of one delivery → one courier order (web/dispatch/dispatcher.ts). */
  dispatch: 'dispatch',
  /** Order metafields and tag after booking (web/dispatch/dispatcher.ts). */
  writeback: 'shopify-writeback',
  /** One stored courier webhook → the delivery's status (web/fulfillment/events.ts); ordered per delivery (orderingKey). */
  courierEvents: 'courier-events',
  /** The same, as enqueued before ordering keys: drained at concurrency 1 for jobs stored by an earlier version. */
  courierEvent: 'courier-event',
  /** Bring the Shopify fulfillment and its events up to the delivery's status (web/fulfillment/sync.ts). */
  fulfillmentSync: 'fulfillment-sync',
  /** Retry matching UNMATCHED events of one courier environment (web/fulfillment/events.ts). */
  rematch: 'courier-rematch',
  /** Periodic: ask the courier about quiet deliveries (web/fulfillment/reconcile.ts). */
  reconcile: 'reconcile',
  /** fulfillment_orders/order_routing_complete → the order's delivery (web/dispatch/routing.ts). */
  routing: 'order-routing-complete',
  /** Periodic: dispatch SCHEDULED deliveries whose planned time passed long ago, their own job lost (web/dispatch/windows.ts). */
  scheduledDue: 'scheduled-due',
  /** Periodic: erase personal data of final deliveries past the retention period (web/privacy/erase.ts). */
  retention: 'personal-data-retention',
  /** One Shopify Flow trigger from the outbox → flowTriggerReceive (web/flow/triggers.ts). */
  flowTrigger: 'flow-trigger',
  /** One Shopify Flow action run → the merchant action it asks for (web/flow/actions.ts). */
  flowAction: 'flow-action',
  /** Periodic: forget settled Flow triggers and action runs after FLOW_KEEP_DAYS (web/flow/index.ts). */
  flowCleanup: 'flow-cleanup',
} as const;

export interface DispatchJobData {
  deliveryId: string;
  generation: number;
  /** A re-check after Shopify's order routing: books only if no request is stored yet. */
  recheck?: true;
}
export interface RoutingJobData {
  shop: string;
  fulfillmentOrderId: string;
}
export interface DeliveryJobData {
  deliveryId: string;
}
export interface CourierEventJobData {
  eventId: string;
}
export interface RematchJobData {
  environmentId: string;
}
export interface FlowTriggerJobData {
  eventId: string;
}
export interface FlowActionJobData {
  runId: string;
}
