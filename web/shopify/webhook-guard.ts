// The signed body decides, not the headers. A validly signed body of one topic
// or shop, replayed under another topic or shop header, must do nothing: these
// checks compare what the body says about itself with the headers. Pure;
// table-tested in test/unit/webhook-guard.test.ts.

/** Topics keyed by the library's storage form (X-Shopify-Topic orders/paid → ORDERS_PAID). */
const COMPLIANCE = new Set(['CUSTOMERS_DATA_REQUEST', 'CUSTOMERS_REDACT', 'SHOP_REDACT']);
const ORDER_TOPICS = new Set(['ORDERS_PAID', 'ORDERS_CANCELLED', 'ORDERS_UPDATED']);
const FULFILLMENT_ORDER_TOPICS = new Set(['FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hostOf = (url: unknown): string | null => {
  if (typeof url !== 'string') return null;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
};

/** Why a payload does not belong to its topic and shop headers, or null when it does. */
export function payloadMismatch(topic: string, shop: string, payload: unknown): string | null {
  if (!isObject(payload)) return 'body is not a JSON object';
  const domain = shop.toLowerCase();
  if (COMPLIANCE.has(topic)) {
    if (typeof payload.shop_domain !== 'string') return 'shop_domain is missing from the body';
    if (payload.shop_domain.toLowerCase() !== domain) return `shop_domain ${payload.shop_domain} does not match the shop header ${shop}`;
    if (topic !== 'SHOP_REDACT' && !isObject(payload.customer)) return 'customer is missing from the body';
    if (topic === 'SHOP_REDACT' && ('customer' in payload || 'admin_graphql_api_id' in payload)) return 'the body is not a shop/redact payload';
    return null;
  }
  if (topic === 'APP_UNINSTALLED') {
    // The shop resource. Shopify's own sample has myshopify_domain null, so only a different domain counts.
    if (typeof payload.myshopify_domain === 'string' && payload.myshopify_domain.toLowerCase() !== domain) {
      return `myshopify_domain ${payload.myshopify_domain} does not match the shop header ${shop}`;
    }
    if ('shop_domain' in payload || 'line_items' in payload || 'customer' in payload) return 'the body is not a shop resource';
    return null;
  }
  if (FULFILLMENT_ORDER_TOPICS.has(topic)) {
    // { fulfillment_order: { id: "gid://shopify/FulfillmentOrder/…", status } }
    const fo = payload.fulfillment_order;
    if (!isObject(fo) || typeof fo.id !== 'string' || !fo.id.startsWith('gid://shopify/FulfillmentOrder/')) return 'the body is not a fulfillment order event (no fulfillment_order.id)';
    if ('shop_domain' in payload || 'line_items' in payload) return 'the body is not a fulfillment order event';
    return null;
  }
  if (ORDER_TOPICS.has(topic)) {
    const gid = payload.admin_graphql_api_id;
    if (gid !== undefined && !(typeof gid === 'string' && gid.startsWith('gid://shopify/Order/'))) return `admin_graphql_api_id ${String(gid)} is not an order`;
    if (gid === undefined && payload.id === undefined) return 'the body is not an order (no id)';
    if ('shop_domain' in payload || 'orders_to_redact' in payload) return 'the body is not an order';
    // The order status page lives on the shop's myshopify domain (or its own custom domain).
    const host = hostOf(payload.order_status_url);
    if (host?.endsWith('.myshopify.com') && host !== domain) return `order_status_url belongs to ${host}, not the shop header ${shop}`;
    if (topic === 'ORDERS_CANCELLED' && !payload.cancelled_at) return 'orders/cancelled without cancelled_at';
    return null;
  }
  return null;
}
