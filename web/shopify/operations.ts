// Every Admin GraphQL operation the app sends, in one place. The shop
// simulator (dev/shop-sim) serves exactly these by operation name and rejects
// anything else, so a new query cannot slip in untested. (It also serves
// shopifyApiReadWebhookSubscriptions, which shopify-app-express sends itself
// during the OAuth callback.)
import { throwOnUserErrors, type AdminApi } from './admin-api.ts';

export const METAFIELD_NAMESPACE = '$app:same_day_dispatch';
export const DISPATCHED_TAG = 'same-day-dispatched';

export const ORDER_FOR_DISPATCH = /* GraphQL */ `
  query OrderForDispatch($id: ID!) {
    order(id: $id) {
      id
      name
      email
      phone
      note
      test
      cancelledAt
      sourceName
      currencyCode
      totalPriceSet { shopMoney { amount currencyCode } }
      totalWeight
      customerLocale
      shippingAddress { name firstName lastName company address1 address2 city province zip country countryCodeV2 phone latitude longitude }
      shippingLines(first: 5) { nodes { title code source } }
      lineItems(first: 100) { nodes { id quantity requiresShipping } }
    }
  }`;

export const ORDER_FULFILLMENT_ORDERS = /* GraphQL */ `
  query OrderFulfillmentOrders($id: ID!) {
    order(id: $id) {
      id
      fulfillmentOrders(first: 5) {
        nodes {
          id
          status
          requestStatus
          deliveryMethod { methodType }
          assignedLocation { location { id } }
          lineItems(first: 100) { nodes { id remainingQuantity requiresShipping } }
        }
      }
      fulfillments(first: 10) { id status trackingInfo(first: 1) { company number url } }
    }
  }`;

export const FULFILLMENT_CREATE = /* GraphQL */ `
  mutation FulfillmentCreate($fulfillment: FulfillmentInput!, $message: String) {
    fulfillmentCreate(fulfillment: $fulfillment, message: $message) {
      fulfillment { id status }
      userErrors { field message }
    }
  }`;

export const FULFILLMENT_EVENT_CREATE = /* GraphQL */ `
  mutation FulfillmentEventCreate($fulfillmentEvent: FulfillmentEventInput!) {
    fulfillmentEventCreate(fulfillmentEvent: $fulfillmentEvent) {
      fulfillmentEvent { id status happenedAt }
      userErrors { field message }
    }
  }`;

// Re-dispatch after a fulfillment exists: the new booking's tracking goes onto it.
export const FULFILLMENT_TRACKING_INFO_UPDATE = /* GraphQL */ `
  mutation FulfillmentTrackingInfoUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
    fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
      fulfillment { id status trackingInfo(first: 5) { company number url } }
      userErrors { field message }
    }
  }`;

// Where the tracking cannot be updated: the old fulfillment is cancelled and a new one created.
export const FULFILLMENT_CANCEL = /* GraphQL */ `
  mutation FulfillmentCancel($id: ID!) {
    fulfillmentCancel(id: $id) {
      fulfillment { id status }
      userErrors { field message }
    }
  }`;

export const METAFIELDS_SET = /* GraphQL */ `
  mutation MetafieldsSet($metafields: [MetafieldsSetInput!]!) {
    metafieldsSet(metafields: $metafields) {
      metafields { key namespace value }
      userErrors { field message code }
    }
  }`;

/**
 * The booking write: the delivery metafields and the tag in ONE request (two mutation fields,
 * 20 points), instead of a call each (docs/shopify-rate-limits.md).
 */
export const BOOKING_WRITE = /* GraphQL */ `
  mutation BookingWrite($metafields: [MetafieldsSetInput!]!, $id: ID!, $tags: [String!]!) {
    metafieldsSet(metafields: $metafields) {
      metafields { key namespace value }
      userErrors { field message code }
    }
    tagsAdd(id: $id, tags: $tags) {
      node { id }
      userErrors { field message }
    }
  }`;

export const SHOP_LOCATIONS = /* GraphQL */ `
  query ShopLocations {
    locations(first: 50) { nodes { id name isActive fulfillsOnlineOrders address { city countryCode } } }
  }`;

export const gid = (type: string, id: string) => (id.startsWith('gid://') ? id : `gid://shopify/${type}/${id}`);
export const numericId = (gidOrId: string) => gidOrId.split('/').pop()!;

export interface DeliveryMetafields {
  status: string;
  jobId?: string | null;
  courierOrderId?: string | null;
  price?: string | null;
  currency?: string | null;
}

/** One order's booking metafields, and why its price is left out when it is (web/dispatch/writeback.ts). */
export function bookingMetafields(orderGid: string, m: DeliveryMetafields, shopCurrency?: string | null): { metafields: MetafieldInput[]; withPrice: MetafieldInput[]; priceProblem: string | null } {
  const text = (key: string, value: string) => ({ ownerId: orderGid, namespace: METAFIELD_NAMESPACE, key, type: 'single_line_text_field', value });
  const metafields = [text('status', m.status)];
  if (m.jobId) metafields.push(text('job_id', m.jobId));
  if (m.courierOrderId) metafields.push(text('courier_order_id', m.courierOrderId));
  let priceProblem: string | null = null;
  const withPrice = [...metafields];
  if (m.price && m.currency) {
    if (shopCurrency && shopCurrency.toUpperCase() !== m.currency.toUpperCase()) {
      priceProblem = `delivery price ${m.price} ${m.currency} not written: a money metafield must be in the shop's currency (${shopCurrency})`;
    } else {
      withPrice.push({ ownerId: orderGid, namespace: METAFIELD_NAMESPACE, key: 'delivery_price', type: 'money', value: JSON.stringify({ amount: m.price, currency_code: m.currency }) });
    }
  }
  return { metafields, withPrice, priceProblem };
}

export interface MetafieldInput { ownerId: string; namespace: string; key: string; type: string; value: string }

/**
 * The booking write (BOOKING_WRITE): status, job id, courier order id and the
 * delivery price as order metafields in the app's namespace, and the tag, in
 * one request. metafieldsSet is all-or-nothing and a `money` value must be in
 * the shop's currency: the price goes in only when the courier charged in the
 * shop's currency, and if Shopify refuses the set with it, the others go again
 * without it (a second call, only then). Returns why the price was not written, or null.
 */
export async function writeBooking(
  api: AdminApi, shop: string, orderGid: string, m: DeliveryMetafields, opts: { shopCurrency?: string | null } = {},
): Promise<string | null> {
  const { metafields, withPrice, priceProblem } = bookingMetafields(orderGid, m, opts.shopCurrency);
  const data = await api.request(shop, BOOKING_WRITE, { metafields: withPrice, id: orderGid, tags: [DISPATCHED_TAG] }, { priority: 'background' });
  throwOnUserErrors('tagsAdd', data?.tagsAdd);
  const errors = data?.metafieldsSet?.userErrors as Array<{ message: string }> | undefined;
  if (!errors?.length) return priceProblem;
  if (withPrice.length === metafields.length) throwOnUserErrors('metafieldsSet', data.metafieldsSet);
  // Refused with the price: the rest without it.
  const again = await api.request(shop, METAFIELDS_SET, { metafields }, { priority: 'background' });
  throwOnUserErrors('metafieldsSet', again?.metafieldsSet);
  return `delivery price not written: Shopify refused it (${errors.map((e) => e.message).join('; ')})`;
}

/** Shopify's limit on one metafieldsSet call. */
export const METAFIELDS_PER_SET = 25;
/** The most orders one BookingsWrite carries: four metafields each, under METAFIELDS_PER_SET. */
export const BOOKINGS_PER_WRITE = 6;

/**
 * The booking write of `n` orders (2..BOOKINGS_PER_WRITE) in one document: one metafieldsSet for all
 * their metafields and a tagsAdd per order (`t0`, `t1`, …), 10 points a mutation field. So 6 orders
 * cost 70 points, not 6 × 20 (docs/shopify-rate-limits.md).
 */
export function bookingsWriteDocument(n: number): string {
  if (!Number.isInteger(n) || n < 2 || n > BOOKINGS_PER_WRITE) throw new RangeError(`a BookingsWrite carries 2 to ${BOOKINGS_PER_WRITE} orders, not ${n}`);
  const ids = Array.from({ length: n }, (_, i) => i);
  return /* GraphQL */ `
  mutation BookingsWrite${n}($metafields: [MetafieldsSetInput!]!, ${ids.map((i) => `$id${i}: ID!`).join(', ')}, $tags: [String!]!) {
    metafieldsSet(metafields: $metafields) {
      metafields { key namespace value }
      userErrors { field message code }
    }
${ids.map((i) => `    t${i}: tagsAdd(id: $id${i}, tags: $tags) {
      node { id }
      userErrors { field message }
    }`).join('\n')}
  }`;
}

/** bookingsWriteDocument(2 … BOOKINGS_PER_WRITE), built once: index n - 2. */
export const BOOKINGS_WRITES: readonly string[] = Array.from({ length: BOOKINGS_PER_WRITE - 1 }, (_, i) => bookingsWriteDocument(i + 2));

export interface BookingToWrite { orderGid: string; metafields: DeliveryMetafields; shopCurrency?: string | null }

/**
 * Several orders' booking writes in one request. true: every metafield and tag was written
 * (each order's price problem is its own, from bookingMetafields). false: Shopify refused
 * something (metafieldsSet is all or nothing); nothing is known to be written, and each order
 * is written again alone (writeBooking), which knows how to retry without a refused price.
 */
export async function writeBookings(api: AdminApi, shop: string, items: BookingToWrite[]): Promise<boolean> {
  const built = items.map((b) => bookingMetafields(b.orderGid, b.metafields, b.shopCurrency));
  const variables: Record<string, unknown> = { metafields: built.flatMap((b) => b.withPrice), tags: [DISPATCHED_TAG] };
  if ((variables.metafields as unknown[]).length > METAFIELDS_PER_SET) throw new RangeError(`more than ${METAFIELDS_PER_SET} metafields in one metafieldsSet`);
  items.forEach((b, i) => (variables[`id${i}`] = b.orderGid));
  const data = await api.request(shop, BOOKINGS_WRITES[items.length - 2]!, variables, { priority: 'background' });
  const refused = (field: { userErrors?: unknown[] } | null | undefined) => !field || (field.userErrors?.length ?? 0) > 0;
  return !refused(data?.metafieldsSet) && items.every((_, i) => !refused(data?.[`t${i}`]));
}

export interface FulfillmentOrderNode {
  id: string;
  status: string;
  requestStatus?: string;
  deliveryMethod?: { methodType?: string } | null;
  assignedLocation?: { location?: { id: string } | null } | null;
  lineItems: { nodes: Array<{ id: string; remainingQuantity: number; requiresShipping?: boolean }> };
}

export interface FulfillmentNode {
  id: string;
  status: string;
  trackingInfo: Array<{ company: string | null; number: string | null; url: string | null }>;
}

export async function fetchFulfillmentState(api: AdminApi, shop: string, orderGid: string): Promise<{ fulfillmentOrders: FulfillmentOrderNode[]; fulfillments: FulfillmentNode[] } | null> {
  const data = await api.request(shop, ORDER_FULFILLMENT_ORDERS, { id: orderGid });
  if (!data?.order) return null;
  return { fulfillmentOrders: data.order.fulfillmentOrders?.nodes ?? [], fulfillments: data.order.fulfillments ?? [] };
}

export async function fetchFulfillmentOrders(api: AdminApi, shop: string, orderGid: string): Promise<FulfillmentOrderNode[]> {
  return (await fetchFulfillmentState(api, shop, orderGid))?.fulfillmentOrders ?? [];
}

/** An order read over GraphQL, in the orders/paid (REST) shape our snapshot parser reads. */
export async function fetchOrderAsPayload(api: AdminApi, shop: string, orderId: string): Promise<Record<string, unknown> | null> {
  const data = await api.request(shop, ORDER_FOR_DISPATCH, { id: gid('Order', orderId) });
  const o = data?.order;
  if (!o) return null;
  const a = o.shippingAddress;
  return {
    id: numericId(o.id),
    admin_graphql_api_id: o.id,
    name: o.name,
    email: o.email,
    phone: o.phone,
    note: o.note,
    test: o.test,
    cancelled_at: o.cancelledAt,
    source_name: o.sourceName,
    currency: o.totalPriceSet?.shopMoney?.currencyCode ?? o.currencyCode,
    total_price: o.totalPriceSet?.shopMoney?.amount,
    total_weight: o.totalWeight === null || o.totalWeight === undefined ? null : Number(o.totalWeight),
    customer_locale: o.customerLocale,
    shipping_address: a
      ? {
          name: a.name, first_name: a.firstName, last_name: a.lastName, company: a.company, address1: a.address1, address2: a.address2,
          city: a.city, province: a.province, zip: a.zip, country: a.country, country_code: a.countryCodeV2, phone: a.phone,
          latitude: a.latitude, longitude: a.longitude,
        }
      : null,
    shipping_lines: (o.shippingLines?.nodes ?? []).map((l: any) => ({ title: l.title, code: l.code, source: l.source })),
    line_items: (o.lineItems?.nodes ?? []).map((l: any) => ({ id: numericId(l.id), quantity: l.quantity, requires_shipping: l.requiresShipping })),
  };
}

/** One fulfillment order as ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH reads it. */
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

/**
 * What dispatch decides the pickup location and delivery kind from (web/dispatch/fulfillment-orders.ts):
 * the fulfillment orders' assigned location, delivery method, holds and schedule.
 *
 * No line items: they cost a point each (9 + lines per order). An OPEN or IN_PROGRESS
 * fulfillment order has items left to fulfil (Shopify closes it when none are), and items
 * that need no shipping get no shipping fulfillment order, so the status and the delivery
 * method already say whether there is work.
 */
export const ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH = /* GraphQL */ `
  query OrderFulfillmentOrdersForDispatch($id: ID!) {
    order(id: $id) {
      id
      createdAt
      fulfillmentOrders(first: 5) {
        nodes {
          id
          status
          requestStatus
          fulfillAt
          fulfillmentHolds { reason displayReason reasonNotes }
          deliveryMethod { methodType }
          assignedLocation { name location { id } }
        }
      }
    }
  }`;

/** fulfillment_orders/order_routing_complete names only the fulfillment order: this finds its order. */
export const FULFILLMENT_ORDER_ORDER = /* GraphQL */ `
  query FulfillmentOrderOrder($id: ID!) {
    fulfillmentOrder(id: $id) { id orderId status }
  }`;

/** The order's fulfillment orders as web/dispatch/fulfillment-orders.ts reads them, with when the order was created; null when the order is gone. */
export async function fetchFulfillmentOrdersForDispatch(api: AdminApi, shop: string, orderGid: string): Promise<{ createdAt: string; fulfillmentOrders: FulfillmentOrderForDispatch[] } | null> {
  const data = await api.request(shop, ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH, { id: orderGid });
  if (!data?.order) return null;
  return { createdAt: data.order.createdAt, fulfillmentOrders: data.order.fulfillmentOrders?.nodes ?? [] };
}

/** The order GID of a fulfillment order (from a fulfillment_orders/* webhook), or null. */
export async function fetchOrderOfFulfillmentOrder(api: AdminApi, shop: string, fulfillmentOrderGid: string): Promise<string | null> {
  const data = await api.request(shop, FULFILLMENT_ORDER_ORDER, { id: fulfillmentOrderGid });
  return data?.fulfillmentOrder?.orderId ?? null;
}

// Same-day rates at checkout (web/rates/carrier-service.ts): what the settings page checks
// (granted scopes, the plan) and the shop's carrier services, then create or update ours.
export const RATES_SETUP = /* GraphQL */ `
  query RatesSetup {
    shop { plan { publicDisplayName partnerDevelopment shopifyPlus } }
    currentAppInstallation { accessScopes { handle } }
    carrierServices(first: 50) { nodes { id name callbackUrl active } }
  }`;

export const CARRIER_SERVICE_CREATE = /* GraphQL */ `
  mutation CarrierServiceCreate($input: DeliveryCarrierServiceCreateInput!) {
    carrierServiceCreate(input: $input) {
      carrierService { id name callbackUrl active }
      userErrors { field message }
    }
  }`;

export const CARRIER_SERVICE_UPDATE = /* GraphQL */ `
  mutation CarrierServiceUpdate($input: DeliveryCarrierServiceUpdateInput!) {
    carrierServiceUpdate(input: $input) {
      carrierService { id name callbackUrl active }
      userErrors { field message }
    }
  }`;

/**
 * Who the shop is to its customers and where its clock is (web/shopify/shop-profile.ts): the tracking
 * page's store name, contact and language, and the home dashboard's days. No access scope needed.
 */
export const SHOP_PROFILE = /* GraphQL */ `
  query ShopProfile {
    shop {
      name
      contactEmail
      ianaTimezone
      shopAddress { phone countryCodeV2 }
      primaryDomain { localization { defaultLocale } }
    }
  }`;

// Shopify Flow: starts the shop's workflows that begin with one of our triggers (web/flow/triggers.ts).
// `handle` + `payload` (the `body` argument is deprecated); payload under 1 MB.
export const FLOW_TRIGGER_RECEIVE = /* GraphQL */ `
  mutation FlowTriggerReceive($handle: String, $payload: JSON) {
    flowTriggerReceive(handle: $handle, payload: $payload) {
      userErrors { field message }
    }
  }`;

export async function sendFlowTrigger(api: AdminApi, shop: string, handle: string, payload: Record<string, unknown>): Promise<void> {
  const data = await api.request<{ flowTriggerReceive: { userErrors: Array<{ field: string[] | null; message: string }> } | null }>(shop, FLOW_TRIGGER_RECEIVE, { handle, payload }, { priority: 'background' });
  throwOnUserErrors('flowTriggerReceive', data.flowTriggerReceive);
}
