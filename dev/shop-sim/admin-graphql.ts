// An in-memory stand-in for a Shopify shop's Admin GraphQL API. Every request
// is first validated, query and variables, against Shopify's published Admin
// schema (dev/shop-sim/contract.ts) and refused with Shopify-style GraphQL
// errors when invalid. It then answers exactly the operations in
// web/shopify/operations.ts, by operation name, with Shopify's documented
// response shapes (userErrors included), and rejects any other operation with
// a GraphQL error so a new app query cannot pass unnoticed.
// Used in-process behind undici's MockAgent by tests, and over HTTP by the
// shop simulator (npm run shop-sim).
import { randomInt } from 'node:crypto';
import { adminSchema, validateOperation } from './contract.ts';
import { actualCost, CostBucket, MAX_QUERY_COST, PLANS, requestedCost, type CostExtension } from './cost.ts';
import { CARRIER_SERVICE_HANDLERS } from './carrier-services.ts';
import { FLOW_HANDLERS } from './flow.ts';

export interface SimLineItem {
  id: string; // fulfillment order line item id (numeric)
  lineItemId: string;
  totalQuantity: number;
  remainingQuantity: number;
  requiresShipping: boolean;
}

export interface SimFulfillmentOrder {
  id: string;
  status: 'OPEN' | 'IN_PROGRESS' | 'CLOSED' | 'CANCELLED' | 'ON_HOLD' | 'SCHEDULED' | 'INCOMPLETE';
  locationId: string;
  methodType: 'SHIPPING' | 'LOCAL' | 'PICK_UP' | 'NONE';
  lineItems: SimLineItem[];
  /** FulfillmentHold entries while ON_HOLD. */
  holds?: Array<{ reason: string; reasonNotes: string | null }>;
  /** When a SCHEDULED fulfillment order becomes ready. */
  fulfillAt?: string | null;
}

/** Shopify's FulfillmentHoldReason values and their displayReason. */
export const HOLD_REASONS: Record<string, string> = {
  AWAITING_PAYMENT: 'Awaiting payment', HIGH_RISK_OF_FRAUD: 'High risk of fraud', INCORRECT_ADDRESS: 'Incorrect address',
  INVENTORY_OUT_OF_STOCK: 'Inventory out of stock', UNKNOWN_DELIVERY_DATE: 'Unknown delivery date', OTHER: 'Other',
  AWAITING_RETURN_ITEMS: 'Awaiting return items', ONLINE_STORE_POST_PURCHASE_CROSS_SELL: 'Online store post purchase cross sell',
};

export interface SimFulfillmentEvent {
  id: string;
  status: string;
  happenedAt: string;
  message: string | null;
}

export interface SimFulfillment {
  id: string;
  status: 'SUCCESS' | 'CANCELLED';
  createdAt: string;
  notifyCustomer: boolean;
  trackingInfo: { company: string | null; number: string | null; url: string | null };
  fulfillmentOrderIds: string[];
  events: SimFulfillmentEvent[];
}

export interface SimOrder {
  id: string;
  /** The orders/paid REST payload (what the webhook carries). */
  payload: Record<string, any>;
  fulfillmentOrders: SimFulfillmentOrder[];
  fulfillments: SimFulfillment[];
  metafields: Record<string, { namespace: string; key: string; type: string; value: string }>;
  tags: string[];
}

export interface SimLocation {
  id: string;
  name: string;
  city: string;
  countryCode: string;
}

export interface OperationLogEntry {
  operationName: string;
  variables: Record<string, any>;
  at: string;
  outcome: 'ok' | 'user_errors' | 'throttled' | 'rejected';
  /** Points the answer cost (actualQueryCost); 0 when refused. */
  cost?: number;
}

const nextId = () => String(randomInt(1_000_000_000, 9_999_999_999) * 1000 + randomInt(0, 1000));
const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;
const idOf = (g: unknown) => String(g ?? '').split('/').pop() ?? '';

/** Fields of the REST shipping address (first_name, address1, city, zip, phone, latitude, …) and the order's phone. */
export interface OrderAddressEdit {
  shippingAddress?: Record<string, unknown> | null;
  phone?: string | null;
}

export class SimShop {
  readonly domain: string;
  accessToken: string;
  /** The shop's currency: money metafields must be in it. */
  currency = 'ZAR';
  /** Shop.ianaTimezone (the home dashboard's days, the tracking page's clock). */
  ianaTimezone = 'Africa/Johannesburg';
  /** The store as customers see it (ShopProfile): name, public contact, storefront language. */
  profile: { name: string; contactEmail: string; phone: string | null; countryCode: string; primaryLocale: string };
  readonly orders = new Map<string, SimOrder>();
  readonly locations: SimLocation[];
  readonly log: OperationLogEntry[] = [];
  /** Answer the next N requests with THROTTLED. */
  throttleNext = 0;
  /** When set, only these operations are throttled (and counted against throttleNext). */
  throttleOnly: string[] | null = null;
  /** operation name → userErrors message for its next call. */
  readonly failNext = new Map<string, string>();
  /**
   * A fault switch for tests: when it returns a promise for a call, that call's answer is sent once
   * the promise settles. The call is applied already, as when Shopify's answer is slow in coming.
   */
  answerAfter: ((call: OperationLogEntry) => Promise<unknown> | undefined) | null = null;
  /** fulfillment id → the fulfillment order line items and quantities it took (given back when cancelled). */
  readonly fulfilledItems = new Map<string, Array<{ fo: SimFulfillmentOrder; li: SimLineItem; qty: number }>>();

  /** The app's Admin API bucket on this shop (Shopify's calculated query cost; dev/shop-sim/cost.ts). Standard plan until set. */
  readonly bucket: CostBucket;

  constructor(domain: string, accessToken: string, locations?: SimLocation[], now: () => number = Date.now) {
    this.domain = domain;
    this.bucket = new CostBucket(PLANS.standard, now);
    this.accessToken = accessToken;
    const handle = domain.replace(/\.myshopify\.com$/, '');
    this.profile = {
      name: handle.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' '),
      contactEmail: `hello@${handle}.example`,
      phone: '+27 10 500 1234',
      countryCode: 'ZA',
      primaryLocale: 'en',
    };
    this.locations = locations ?? [
      { id: '71000000001', name: 'Rosebank warehouse', city: 'Johannesburg', countryCode: 'ZA' },
      { id: '71000000002', name: 'Cape Town store', city: 'Cape Town', countryCode: 'ZA' },
    ];
  }

  /**
   * Adds an order as Shopify would hold it after payment: one open fulfillment order for the shippable lines.
   * Order routing assigns it to `locationId`, else to a location in the shipping address's city
   * (Shopify's "closest location" rule, by city), else to the first location. The REST location_id plays no part.
   */
  addOrder(payload: Record<string, any>, opts: { locationId?: string } = {}): SimOrder {
    const id = idOf(payload.admin_graphql_api_id) || String(payload.id);
    const shipping = (payload.line_items ?? []).filter((l: any) => l.requires_shipping !== false);
    // Shopify sets the delivery method from the checkout choice; the fixtures say it in the shipping line.
    const lineText = (payload.shipping_lines ?? []).map((l: any) => `${l.code ?? ''} ${l.title ?? ''}`).join(' ');
    const method = /pick[\s-]?up/i.test(lineText) ? 'PICK_UP' : /local[\s-]?delivery/i.test(lineText) ? 'LOCAL' : 'SHIPPING';
    const order: SimOrder = {
      id,
      payload,
      fulfillmentOrders: shipping.length
        ? [{
            id: nextId(),
            status: 'OPEN',
            locationId: opts.locationId ?? this.#routedLocation(payload).id,
            methodType: method,
            lineItems: shipping.map((l: any) => ({
              id: nextId(),
              lineItemId: String(l.id),
              totalQuantity: l.quantity ?? 1,
              remainingQuantity: l.quantity ?? 1,
              requiresShipping: true,
            })),
          }]
        : [],
      fulfillments: [],
      metafields: {},
      tags: [],
    };
    this.orders.set(id, order);
    return order;
  }

  #routedLocation(payload: Record<string, any>): SimLocation {
    const city = String(payload.shipping_address?.city ?? '').toLowerCase();
    return this.locations.find((l) => city && l.city.toLowerCase() === city) ?? this.locations[0]!;
  }

  order(id: string): SimOrder | undefined {
    return this.orders.get(idOf(id));
  }

  /**
   * A staff edit of the shipping address and/or phone, as Shopify applies it:
   * the given fields replace the old ones; a moved address without new
   * coordinates has none (latitude/longitude are null until Shopify geocodes
   * it); name follows first/last name; updated_at moves. The caller sends orders/updated.
   */
  editOrderAddress(id: string, edit: OrderAddressEdit): SimOrder {
    const o = this.order(id);
    if (!o) throw new Error(`no order ${id} in ${this.domain}`);
    const p = o.payload;
    if (edit.phone !== undefined) p.phone = edit.phone;
    if (edit.shippingAddress === null) p.shipping_address = null;
    else if (edit.shippingAddress) {
      const before = p.shipping_address ?? {};
      const a = { ...before, ...edit.shippingAddress };
      const moved = ['address1', 'address2', 'city', 'province', 'zip', 'country_code', 'country'].some((k) => k in edit.shippingAddress! && edit.shippingAddress![k] !== before[k]);
      if (moved && !('latitude' in edit.shippingAddress)) a.latitude = null;
      if (moved && !('longitude' in edit.shippingAddress)) a.longitude = null;
      if ('first_name' in edit.shippingAddress || 'last_name' in edit.shippingAddress) a.name = [a.first_name, a.last_name].filter(Boolean).join(' ');
      p.shipping_address = a;
    }
    p.updated_at = new Date(Math.max(Date.now(), Date.parse(p.updated_at ?? '') + 1 || 0)).toISOString();
    return o;
  }

  /**
   * fulfillmentOrderMove as Shopify does it: the open fulfillment order closes and a new one,
   * with the same remaining items, opens at the new location. Returns the new one.
   */
  moveFulfillmentOrder(fulfillmentOrderId: string, locationId: string): SimFulfillmentOrder {
    const { fo, order } = this.#openFo(fulfillmentOrderId);
    const loc = idOf(locationId);
    if (!this.locations.some((l) => l.id === loc)) throw new Error(`location ${locationId} is not a location of ${this.domain}`);
    if (fo.locationId === loc) throw new Error(`fulfillment order ${fo.id} is already at location ${loc}`);
    const moved: SimFulfillmentOrder = { ...fo, id: nextId(), locationId: loc, lineItems: fo.lineItems.map((li) => ({ ...li, id: nextId() })) };
    fo.status = 'CLOSED';
    for (const li of fo.lineItems) li.remainingQuantity = 0;
    order.fulfillmentOrders.push(moved);
    return moved;
  }

  /** fulfillmentOrderHold: the fulfillment order goes ON_HOLD with the reason. */
  holdFulfillmentOrder(fulfillmentOrderId: string, reason = 'OTHER', reasonNotes: string | null = null): SimFulfillmentOrder {
    if (!(reason in HOLD_REASONS)) throw new Error(`reason must be one of ${Object.keys(HOLD_REASONS).join(', ')}`);
    const { fo } = this.#openFo(fulfillmentOrderId);
    fo.status = 'ON_HOLD';
    fo.holds = [...(fo.holds ?? []), { reason, reasonNotes }];
    return fo;
  }

  #openFo(fulfillmentOrderId: string) {
    const id = idOf(fulfillmentOrderId);
    for (const order of this.orders.values()) {
      const fo = order.fulfillmentOrders.find((f) => f.id === id);
      if (!fo) continue;
      if (fo.status !== 'OPEN' && fo.status !== 'SCHEDULED') throw new Error(`fulfillment order ${id} is ${fo.status}; only an open or scheduled one can be changed`);
      return { fo, order };
    }
    throw new Error(`no fulfillment order ${id} in ${this.domain}`);
  }

  findFulfillment(fulfillmentGid: string): { order: SimOrder; fulfillment: SimFulfillment } | null {
    const id = idOf(fulfillmentGid);
    for (const order of this.orders.values()) {
      const f = order.fulfillments.find((x) => x.id === id);
      if (f) return { order, fulfillment: f };
    }
    return null;
  }

  /**
   * Cancels a fulfillment as Shopify does (fulfillmentCancel, or the merchant in the admin):
   * its quantities go back to the fulfillment orders, which open again. Returns a userError message, or null.
   */
  cancelFulfillment(fulfillmentGid: string): string | null {
    const found = this.findFulfillment(fulfillmentGid);
    if (!found) return 'Fulfillment does not exist.';
    const f = found.fulfillment;
    if (f.status === 'CANCELLED') return 'Fulfillment cannot be cancelled.';
    f.status = 'CANCELLED';
    for (const { fo, li, qty } of this.fulfilledItems.get(f.id) ?? []) {
      li.remainingQuantity += qty;
      if (fo.status === 'CLOSED' || fo.status === 'IN_PROGRESS') fo.status = fo.lineItems.every((x) => x.remainingQuantity === x.totalQuantity) ? 'OPEN' : 'IN_PROGRESS';
    }
    this.fulfilledItems.delete(f.id);
    return null;
  }

  /** What a test or the demo inspects: an order's Shopify-side state. */
  snapshot(id: string) {
    const o = this.order(id);
    if (!o) return null;
    return {
      id: o.id,
      name: o.payload.name,
      fulfillmentOrders: o.fulfillmentOrders.map((f) => ({ id: f.id, status: f.status, locationId: f.locationId })),
      fulfillments: o.fulfillments,
      metafields: o.metafields,
      tags: o.tags,
    };
  }
}

export interface GraphqlRequest {
  query?: string;
  variables?: Record<string, any>;
  operationName?: string;
}

export interface GraphqlResponse {
  status: number;
  body: unknown;
  /** Send the answer when this settles (SimShop.answerAfter). */
  wait?: Promise<unknown>;
}

const costOf = (shop: SimShop, requested: number, actual: number | null): { cost: CostExtension } => ({
  cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: shop.bucket.status() },
});

const throttledBody = (shop: SimShop, requested: number) => ({
  errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
  extensions: costOf(shop, requested, null),
});

/** The fields both fulfillment-order queries select. */
const fulfillmentOrderNode = (f: SimFulfillmentOrder) => ({
  id: gid('FulfillmentOrder', f.id),
  status: f.status,
  requestStatus: 'UNSUBMITTED',
  deliveryMethod: { methodType: f.methodType },
  lineItems: { nodes: f.lineItems.map((li) => ({ id: gid('FulfillmentOrderLineItem', li.id), remainingQuantity: li.remainingQuantity, requiresShipping: li.requiresShipping })) },
});

type Handler = (shop: SimShop, v: Record<string, any>) => { data: unknown; userErrors?: boolean; errors?: unknown[] };

function userErrors(shop: SimShop, op: string, field: string[]): Array<{ field: string[]; message: string }> {
  const message = shop.failNext.get(op);
  if (message === undefined) return [];
  shop.failNext.delete(op);
  return [{ field, message }];
}

const HANDLERS: Record<string, Handler> = {
  OrderForDispatch(shop, v) {
    const o = shop.order(v.id);
    if (!o) return { data: { order: null } };
    const p = o.payload;
    const a = p.shipping_address;
    return {
      data: {
        order: {
          id: gid('Order', o.id), name: p.name, email: p.email ?? null, phone: p.phone ?? null, note: p.note ?? null, test: !!p.test,
          cancelledAt: p.cancelled_at ?? null, sourceName: p.source_name ?? 'web', currencyCode: p.currency,
          totalPriceSet: { shopMoney: { amount: String(p.total_price), currencyCode: p.currency } },
          totalWeight: p.total_weight === undefined || p.total_weight === null ? null : String(p.total_weight),
          customerLocale: p.customer_locale ?? null,
          shippingAddress: a
            ? {
                name: a.name ?? null, firstName: a.first_name ?? null, lastName: a.last_name ?? null, company: a.company ?? null,
                address1: a.address1 ?? null, address2: a.address2 ?? null, city: a.city ?? null, province: a.province ?? null, zip: a.zip ?? null,
                country: a.country ?? null, countryCodeV2: a.country_code ?? null, phone: a.phone ?? null, latitude: a.latitude ?? null, longitude: a.longitude ?? null,
              }
            : null,
          shippingLines: { nodes: (p.shipping_lines ?? []).map((l: any) => ({ title: l.title ?? null, code: l.code ?? null, source: l.source ?? null })) },
          lineItems: { nodes: (p.line_items ?? []).map((l: any) => ({ id: gid('LineItem', String(l.id)), quantity: l.quantity ?? 1, requiresShipping: l.requires_shipping !== false })) },
        },
      },
    };
  },

  OrderFulfillmentOrders(shop, v) {
    const o = shop.order(v.id);
    if (!o) return { data: { order: null } };
    return {
      data: {
        order: {
          id: gid('Order', o.id),
          fulfillmentOrders: {
            nodes: o.fulfillmentOrders.map((f) => ({ ...fulfillmentOrderNode(f), assignedLocation: { location: { id: gid('Location', f.locationId) } } })),
          },
          fulfillments: o.fulfillments.map((f) => ({ id: gid('Fulfillment', f.id), status: f.status, trackingInfo: f.trackingInfo.number || f.trackingInfo.company ? [f.trackingInfo] : [] })),
        },
      },
    };
  },

  OrderFulfillmentOrdersForDispatch(shop, v) {
    const o = shop.order(v.id);
    if (!o) return { data: { order: null } };
    return {
      data: {
        order: {
          id: gid('Order', o.id),
          createdAt: o.payload.created_at ? new Date(o.payload.created_at).toISOString() : new Date().toISOString(),
          fulfillmentOrders: {
            // No line items: the dispatch read does not select them (web/shopify/operations.ts).
            nodes: o.fulfillmentOrders.map((f) => ({
              id: gid('FulfillmentOrder', f.id),
              status: f.status,
              requestStatus: 'UNSUBMITTED',
              deliveryMethod: { methodType: f.methodType },
              fulfillAt: f.fulfillAt ?? null,
              fulfillmentHolds: (f.holds ?? []).map((h) => ({ reason: h.reason, displayReason: HOLD_REASONS[h.reason] ?? h.reason, reasonNotes: h.reasonNotes })),
              assignedLocation: { name: shop.locations.find((l) => l.id === f.locationId)?.name ?? f.locationId, location: { id: gid('Location', f.locationId) } },
            })),
          },
        },
      },
    };
  },

  FulfillmentOrderOrder(shop, v) {
    const id = idOf(v.id);
    const o = [...shop.orders.values()].find((x) => x.fulfillmentOrders.some((f) => f.id === id));
    const f = o?.fulfillmentOrders.find((x) => x.id === id);
    return { data: { fulfillmentOrder: o && f ? { id: gid('FulfillmentOrder', f.id), orderId: gid('Order', o.id), status: f.status } : null } };
  },

  FulfillmentCreate(shop, v) {
    const input = v.fulfillment ?? {};
    const injected = userErrors(shop, 'FulfillmentCreate', ['fulfillment']);
    if (injected.length) return { data: { fulfillmentCreate: { fulfillment: null, userErrors: injected } }, userErrors: true };
    const groups: Array<{ fulfillmentOrderId: string; fulfillmentOrderLineItems?: Array<{ id: string; quantity: number }> }> = input.lineItemsByFulfillmentOrder ?? [];
    const errors: Array<{ field: string[]; message: string }> = [];
    let order: SimOrder | undefined;
    const touched: Array<{ fo: SimFulfillmentOrder; items: Array<{ li: SimLineItem; qty: number }> }> = [];
    groups.forEach((g, i) => {
      const foId = idOf(g.fulfillmentOrderId);
      const owner = [...shop.orders.values()].find((o) => o.fulfillmentOrders.some((f) => f.id === foId));
      const fo = owner?.fulfillmentOrders.find((f) => f.id === foId);
      if (!owner || !fo) return errors.push({ field: ['fulfillment', 'lineItemsByFulfillmentOrder', String(i)], message: 'Fulfillment order does not exist.' });
      if (order && order !== owner) return errors.push({ field: ['fulfillment'], message: 'All fulfillment orders must belong to the same order.' });
      order = owner;
      if (fo.status !== 'OPEN' && fo.status !== 'IN_PROGRESS') {
        return errors.push({ field: ['fulfillment'], message: `Fulfillment order ${foId} has an unfulfillable status= ${fo.status.toLowerCase()}.` });
      }
      const items = (g.fulfillmentOrderLineItems?.length ? g.fulfillmentOrderLineItems : fo.lineItems.map((li) => ({ id: li.id, quantity: li.remainingQuantity })))
        .map((x) => ({ li: fo.lineItems.find((li) => li.id === idOf(x.id)), qty: x.quantity }));
      if (items.some((x) => !x.li || x.qty > x.li.remainingQuantity || x.qty < 1)) {
        return errors.push({ field: ['fulfillment'], message: 'Invalid fulfillment order line item quantity requested.' });
      }
      touched.push({ fo, items: items as Array<{ li: SimLineItem; qty: number }> });
    });
    if (!groups.length) errors.push({ field: ['fulfillment', 'lineItemsByFulfillmentOrder'], message: 'Line items by fulfillment order must not be empty.' });
    if (errors.length || !order) return { data: { fulfillmentCreate: { fulfillment: null, userErrors: errors } }, userErrors: true };
    for (const t of touched) {
      for (const { li, qty } of t.items) li.remainingQuantity -= qty;
      t.fo.status = t.fo.lineItems.every((li) => li.remainingQuantity === 0) ? 'CLOSED' : 'IN_PROGRESS';
    }
    const f: SimFulfillment = {
      id: nextId(),
      status: 'SUCCESS',
      createdAt: new Date().toISOString(),
      notifyCustomer: !!input.notifyCustomer,
      trackingInfo: { company: input.trackingInfo?.company ?? null, number: input.trackingInfo?.number ?? null, url: input.trackingInfo?.url ?? null },
      fulfillmentOrderIds: touched.map((t) => t.fo.id),
      events: [],
    };
    order.fulfillments.push(f);
    shop.fulfilledItems.set(f.id, touched.flatMap((t) => t.items.map(({ li, qty }) => ({ fo: t.fo, li, qty }))));
    return { data: { fulfillmentCreate: { fulfillment: { id: gid('Fulfillment', f.id), status: f.status }, userErrors: [] } } };
  },

  FulfillmentEventCreate(shop, v) {
    const input = v.fulfillmentEvent ?? {};
    const injected = userErrors(shop, 'FulfillmentEventCreate', ['fulfillmentEvent']);
    if (injected.length) return { data: { fulfillmentEventCreate: { fulfillmentEvent: null, userErrors: injected } }, userErrors: true };
    const found = shop.findFulfillment(input.fulfillmentId);
    if (!found) {
      return { data: { fulfillmentEventCreate: { fulfillmentEvent: null, userErrors: [{ field: ['fulfillmentEvent', 'fulfillmentId'], message: 'Fulfillment does not exist.' }] } }, userErrors: true };
    }
    const e: SimFulfillmentEvent = { id: nextId(), status: input.status, happenedAt: input.happenedAt ?? new Date().toISOString(), message: input.message ?? null };
    found.fulfillment.events.push(e);
    return { data: { fulfillmentEventCreate: { fulfillmentEvent: { id: gid('FulfillmentEvent', e.id), status: e.status, happenedAt: e.happenedAt }, userErrors: [] } } };
  },

  FulfillmentTrackingInfoUpdate(shop, v) {
    const refuse = (field: string[], message: string) =>
      ({ data: { fulfillmentTrackingInfoUpdate: { fulfillment: null, userErrors: [{ field, message }] } }, userErrors: true });
    const injected = userErrors(shop, 'FulfillmentTrackingInfoUpdate', ['trackingInfoInput']);
    if (injected.length) return refuse(injected[0]!.field, injected[0]!.message);
    const found = shop.findFulfillment(v.fulfillmentId);
    if (!found) return refuse(['fulfillmentId'], 'Fulfillment does not exist.');
    const f = found.fulfillment;
    // Shopify changes the tracking of a live fulfillment only.
    if (f.status === 'CANCELLED') return refuse(['fulfillmentId'], 'Cannot update tracking information for a cancelled fulfillment.');
    const t = v.trackingInfoInput ?? {};
    f.trackingInfo = { company: t.company ?? null, number: t.number ?? t.numbers?.[0] ?? null, url: t.url ?? t.urls?.[0] ?? null };
    if (v.notifyCustomer !== undefined && v.notifyCustomer !== null) f.notifyCustomer = !!v.notifyCustomer;
    return {
      data: {
        fulfillmentTrackingInfoUpdate: {
          fulfillment: { id: gid('Fulfillment', f.id), status: f.status, trackingInfo: f.trackingInfo.number || f.trackingInfo.company ? [f.trackingInfo] : [] },
          userErrors: [],
        },
      },
    };
  },

  FulfillmentCancel(shop, v) {
    const injected = userErrors(shop, 'FulfillmentCancel', ['id']);
    const message = injected[0]?.message ?? shop.cancelFulfillment(v.id);
    if (message) return { data: { fulfillmentCancel: { fulfillment: null, userErrors: [{ field: ['id'], message }] } }, userErrors: true };
    const f = shop.findFulfillment(v.id)!.fulfillment;
    return { data: { fulfillmentCancel: { fulfillment: { id: gid('Fulfillment', f.id), status: f.status }, userErrors: [] } } };
  },

  MetafieldsSet(shop, v) {
    const injected = userErrors(shop, 'MetafieldsSet', ['metafields']);
    if (injected.length) return { data: { metafieldsSet: { metafields: null, userErrors: injected.map((e) => ({ ...e, code: 'INVALID' })) } }, userErrors: true };
    // All or nothing, as Shopify's metafieldsSet: one invalid entry and none is written.
    const refuse = (i: number, field: string, message: string, code: string) =>
      ({ data: { metafieldsSet: { metafields: null, userErrors: [{ field: ['metafields', String(i), field], message, code }] } }, userErrors: true });
    const entries: Array<{ o: SimOrder; m: any }> = [];
    for (const [i, m] of (v.metafields ?? []).entries()) {
      const o = shop.order(m.ownerId);
      if (!o) return refuse(i, 'ownerId', 'Owner does not exist.', 'INVALID');
      if (m.type === 'money') {
        let money: any;
        try {
          money = JSON.parse(m.value);
        } catch {
          return refuse(i, 'value', 'Value is invalid JSON.', 'INVALID_VALUE');
        }
        if (money?.currency_code !== shop.currency) return refuse(i, 'value', `Value currency code must be the shop currency (${shop.currency}).`, 'INVALID_VALUE');
      }
      entries.push({ o, m });
    }
    const out = [];
    for (const { o, m } of entries) {
      o.metafields[`${m.namespace}.${m.key}`] = { namespace: m.namespace, key: m.key, type: m.type, value: m.value };
      out.push({ key: m.key, namespace: m.namespace, value: m.value });
    }
    return { data: { metafieldsSet: { metafields: out, userErrors: [] } } };
  },

  TagsAdd(shop, v) {
    const injected = userErrors(shop, 'TagsAdd', ['tags']);
    if (injected.length) return { data: { tagsAdd: { node: null, userErrors: injected } }, userErrors: true };
    const o = shop.order(v.id);
    if (!o) return { data: { tagsAdd: { node: null, userErrors: [{ field: ['id'], message: 'Order does not exist' }] } }, userErrors: true };
    for (const t of v.tags ?? []) if (!o.tags.includes(t)) o.tags.push(t);
    return { data: { tagsAdd: { node: { id: gid('Order', o.id) }, userErrors: [] } } };
  },

  // The app's booking write: both mutation fields of one document, run in order as Shopify runs them.
  BookingWrite(shop, v) {
    const set = HANDLERS.MetafieldsSet!(shop, { metafields: v.metafields });
    const tag = HANDLERS.TagsAdd!(shop, { id: v.id, tags: v.tags });
    return { data: { ...(set.data as object), ...(tag.data as object) }, userErrors: !!(set.userErrors || tag.userErrors) };
  },

  // Several orders' booking writes (BookingsWrite2 … 6): one metafieldsSet, then a tagsAdd per order under its alias t0, t1, ….
  ...Object.fromEntries(Array.from({ length: 5 }, (_, k) => [`BookingsWrite${k + 2}`, (shop: SimShop, v: Record<string, any>) => {
    const set = HANDLERS.MetafieldsSet!(shop, { metafields: v.metafields });
    const tags = Array.from({ length: k + 2 }, (_, i) => HANDLERS.TagsAdd!(shop, { id: v[`id${i}`], tags: v.tags }));
    const data: Record<string, unknown> = { ...(set.data as object) };
    tags.forEach((t, i) => (data[`t${i}`] = (t.data as { tagsAdd: unknown }).tagsAdd));
    return { data, userErrors: !!(set.userErrors || tags.some((t) => t.userErrors)) };
  }])),

  // Sent by shopify-app-express's validateAuthenticatedSession() on every /api request to check the offline token.
  shopifyAppShopName(shop) {
    return { data: { shop: { name: shop.domain.replace(/\.myshopify\.com$/, '') } } };
  },

  ShopLocations(shop) {
    return {
      data: {
        locations: {
          nodes: shop.locations.map((l) => ({ id: gid('Location', l.id), name: l.name, isActive: true, fulfillsOnlineOrders: true, address: { city: l.city, countryCode: l.countryCode } })),
        },
      },
    };
  },

  ShopProfile(shop) {
    const p = shop.profile;
    return {
      data: {
        shop: {
          name: p.name, contactEmail: p.contactEmail, ianaTimezone: shop.ianaTimezone,
          shopAddress: { phone: p.phone, countryCodeV2: p.countryCode },
          primaryDomain: { localization: { defaultLocale: p.primaryLocale } },
        },
      },
    };
  },

  // Not ours: shopify-app-express's OAuth callback (registerWebhooks) lists the
  // shop's API-created subscriptions to reconcile them. Our subscriptions live in
  // shopify.app.toml (app-specific), which this query does not return, so the
  // answer is an empty page and the library registers and deletes nothing.
  shopifyApiReadWebhookSubscriptions() {
    return { data: { webhookSubscriptions: { edges: [], pageInfo: { endCursor: null, hasNextPage: false } } } };
  },

  ...CARRIER_SERVICE_HANDLERS,
  ...FLOW_HANDLERS,
};

export const SUPPORTED_OPERATIONS = Object.keys(HANDLERS);

/** Mutations whose next call can be answered with an injected userError (shop.failNext). */
export const USER_ERROR_OPERATIONS = ['FulfillmentCreate', 'FulfillmentEventCreate', 'MetafieldsSet', 'TagsAdd', 'FulfillmentTrackingInfoUpdate', 'FulfillmentCancel'];

/** One Admin GraphQL request against a simulated shop. */
export function handleAdminGraphql(shop: SimShop, accessToken: string | null | undefined, req: GraphqlRequest): GraphqlResponse {
  const logged = shop.log.length;
  const r = answerAdminGraphql(shop, accessToken, req);
  const wait = shop.log.length > logged ? shop.answerAfter?.(shop.log.at(-1)!) : undefined;
  return wait ? { ...r, wait } : r;
}

function answerAdminGraphql(shop: SimShop, accessToken: string | null | undefined, req: GraphqlRequest): GraphqlResponse {
  if (accessToken !== shop.accessToken) {
    return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
  }
  const operationName = req.operationName ?? /\b(?:query|mutation)\s+(\w+)/.exec(req.query ?? '')?.[1] ?? '(anonymous)';
  const variables = req.variables ?? {};
  const entry: OperationLogEntry = { operationName, variables, at: new Date(shop.bucket.now()).toISOString(), outcome: 'ok' };
  shop.log.push(entry);
  const invalid = validateOperation(req.query ?? '', variables, req.operationName);
  if (invalid.length) {
    entry.outcome = 'rejected';
    return { status: 200, body: { errors: invalid } };
  }
  const handler = HANDLERS[operationName];
  if (!handler) {
    entry.outcome = 'rejected';
    return {
      status: 200,
      body: { errors: [{ message: `The shop simulator does not serve operation '${operationName}'. Add it to dev/shop-sim/admin-graphql.ts with its documented shape.`, extensions: { code: 'UNSUPPORTED_OPERATION' } }] },
    };
  }
  const schema = adminSchema();
  const requested = requestedCost(schema, req.query!, variables, req.operationName);
  if (requested > MAX_QUERY_COST) {
    entry.outcome = 'rejected';
    return {
      status: 200,
      body: {
        errors: [{
          message: `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).\n\nSee https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\ncost of a query is calculated.\n\nTo query larger amounts of data with fewer limits, bulk operations should be used instead.\nSee https://shopify.dev/tutorials/perform-bulk-operations-with-admin-api for usage details.\n`,
          extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: MAX_QUERY_COST },
        }],
        extensions: costOf(shop, requested, null),
      },
    };
  }
  // The fault switch (throttleNext): the bucket drops to just below this call's cost (as when Shopify
  // lowers a limit for a while), so the THROTTLED answer's throttleStatus stays true.
  if (shop.throttleNext > 0 && (!shop.throttleOnly || shop.throttleOnly.includes(operationName))) {
    shop.throttleNext -= 1;
    shop.bucket.refill();
    shop.bucket.available = Math.min(shop.bucket.available, Math.max(0, requested - 1));
    shop.bucket.throttled += 1;
    entry.outcome = 'throttled';
    return { status: 200, body: throttledBody(shop, requested) };
  }
  if (!shop.bucket.take(requested)) {
    entry.outcome = 'throttled';
    return { status: 200, body: throttledBody(shop, requested) };
  }
  const r = handler(shop, variables);
  if (r.userErrors) entry.outcome = 'user_errors';
  const actual = actualCost(schema, req.query!, r.data, variables, req.operationName);
  shop.bucket.refund(requested, actual);
  entry.cost = actual;
  return { status: 200, body: { data: r.data, ...(r.errors ? { errors: r.errors } : {}), extensions: costOf(shop, requested, actual) } };
}
