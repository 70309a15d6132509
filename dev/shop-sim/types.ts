// The shop simulator's public types: options, settings, and the control API's views and requests.
import type { Logger } from '../../web/ops/logger.ts';
import type { SimFulfillment, SimOrder, SimShop } from './admin-graphql.ts';

export const WEBHOOK_TOPICS = ['orders/paid', 'orders/cancelled', 'orders/updated', 'app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact', 'fulfillment_orders/order_routing_complete'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export interface ShopSimulatorOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 127.0.0.1. The control API answers loopback clients only, whatever the host. */
  host?: string;
  /** The app's client id and secret: OAuth checks them; webhooks are signed with the secret. */
  apiKey: string;
  apiSecret: string;
  /** Where webhooks go: `${appUrl}/api/webhooks`. */
  appUrl: string;
  log?: Logger;
  /** Where `fixture` names resolve (default dev/shop-sim/orders). */
  fixturesDir?: string;
  /** Waits between webhook attempts after a non-2xx or network error (default 1s, 5s, 15s). */
  webhookRetryDelaysMs?: number[];
  /** Shopify gives a webhook receiver 5 seconds. */
  webhookTimeoutMs?: number;
}

export interface RunningShopSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Live state by shop domain (tests may read it directly). */
  shops: Map<string, SimShop>;
}

export interface SimSettings {
  appUrl: string;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
}

export interface WebhookAttempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  ms: number;
}

export interface WebhookDeliveryView {
  seq: number;
  webhookId: string;
  eventId: string;
  topic: WebhookTopic;
  shop: string;
  orderId: string | null;
  url: string;
  triggeredAt: string;
  /** pending: first attempt under way; retrying: failed, another attempt is scheduled. */
  state: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
  /** Set on a redelivery (same webhook id and body): the seq it repeats. */
  redeliveryOf: number | null;
  /** Only on GET /_sim/webhooks/:seq. */
  payload?: unknown;
}

export interface ShopView {
  shop: string;
  shopId: number;
  installed: boolean;
  scope: string | null;
  accessTokenExpiresAt: string | null;
  locations: SimShop['locations'];
  orders: number;
  throttleNext: number;
  failNext: Record<string, string>;
}

export interface SimOrderView {
  id: string;
  gid: string;
  name: string;
  test: boolean;
  financialStatus: string | null;
  cancelledAt: string | null;
  cancelReason: string | null;
  shippingLines: Array<{ title: string | null; code: string | null }>;
  /** Derived from the fulfillment orders, as Shopify's displayFulfillmentStatus. */
  fulfillmentStatus: 'UNFULFILLED' | 'PARTIALLY_FULFILLED' | 'FULFILLED';
  fulfillmentOrders: Array<{
    id: string; gid: string; status: string; locationId: string; methodType: string;
    lineItems: Array<{ id: string; lineItemId: string; totalQuantity: number; remainingQuantity: number }>;
  }>;
  fulfillments: Array<SimFulfillment & { gid: string }>;
  /** Keyed "<namespace>.<key>". */
  metafields: SimOrder['metafields'];
  tags: string[];
  webhooks: Array<{ seq: number; topic: string; webhookId: string; state: WebhookDeliveryView['state'] }>;
}

export interface PlaceOrderRequest {
  /** A file name in the fixtures directory, without .json. */
  fixture?: string;
  /** A full orders/paid REST payload. */
  payload?: Record<string, unknown>;
  /** Shallow-merged into the payload (e.g. {"test": true}). */
  overrides?: Record<string, unknown>;
  /** 'fresh' mints new order / line item ids and the next order name, to place a fixture again. */
  ids?: 'fixture' | 'fresh';
  /** The fulfillment order's assigned location (default the shop's first). */
  locationId?: string;
  /** Send orders/paid (default true). */
  send?: boolean;
  /** Then send fulfillment_orders/order_routing_complete for each fulfillment order, as Shopify does once routing is done (default false). */
  routing?: boolean;
  /** Wait for the first delivery attempt before answering (default true). */
  wait?: boolean;
}

export interface PlaceOrderResult {
  order: SimOrderView;
  webhook: WebhookDeliveryView | null;
}

export interface SendWebhookRequest {
  topic: WebhookTopic;
  /** orders/*: the order; customers/*: whose customer (and orders) the request is about. */
  orderId?: string;
  customerId?: string;
  orderIds?: string[];
  /** Sent as is instead of the built payload. */
  payload?: unknown;
  wait?: boolean;
}
