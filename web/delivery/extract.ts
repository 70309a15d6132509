// Pure mapping from courier response bodies to our types. The create response is exact per
// the spec; the order read, the reference search and the quote have shapes the spec does not
// show, so they are read from the likely field names (first match wins, in the listed order).
import { CreateOrderResponseSchema, type CourierOrderView, type CreateOrderResult, type QuoteResult } from './types.ts';
import { decimalTextOf, NumberText, parseJsonExact, pick, pickString } from './json.ts';

/** Exact tree -> ordinary JSON value (numbers as JS numbers) for `raw` and zod. */
export function plainOf(v: unknown): unknown {
  if (v instanceof NumberText) return Number(v.text);
  if (Array.isArray(v)) return v.map(plainOf);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainOf(x)]));
  return v;
}

export function parseBoth(text: string): { ok: true; exact: unknown; plain: unknown } | { ok: false } {
  try {
    const exact = parseJsonExact(text);
    return { ok: true, exact, plain: plainOf(exact) };
  } catch {
    return { ok: false };
  }
}

const DELIVERY_ID_PATHS = ['delivery.id', 'order.delivery.id', 'order.deliveryId', 'order.delivery_id', 'deliveryId', 'delivery_id', 'dispatch.deliveryId', 'dispatch.delivery_id'];

/** What a 201 body tells us; the transport details (status, text, attempts) are added by the client. */
export type CreateOrderFields = Pick<CreateOrderResult, 'requestId' | 'orderId' | 'orderStatus' | 'reference' | 'deliveryPrice' | 'currency' | 'dispatchId' | 'deliveryId'>;

/** The 201 body -> result fields, or the reason it cannot be used. */
export function mapCreateOrderResponse(
  text: string,
  ctx: { requestReference: string; headers?: Record<string, string | string[] | undefined> },
): { ok: true; value: CreateOrderFields } | { ok: false; problem: string } {
  const p = parseBoth(text);
  if (!p.ok) return { ok: false, problem: 'the response is not JSON' };
  const parsed = CreateOrderResponseSchema.safeParse(p.plain);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return { ok: false, problem: `the response has no usable ${i?.path.join('.') || 'body'}` };
  }
  const price = decimalTextOf(pick(p.exact, 'order.deliveryPrice'));
  if (price === null) return { ok: false, problem: 'order.deliveryPrice is not a decimal number' };
  const d = parsed.data;
  const header = (n: string) => {
    const v = ctx.headers?.[n];
    return Array.isArray(v) ? v[0] : v;
  };
  const value: CreateOrderFields = {
    // request_id is in the spec's 201 body; a request-id header is the fallback if it is missing.
    requestId: d.request_id || header('x-request-id') || header('request-id') || '',
    orderId: d.order.id,
    orderStatus: d.order.status,
    reference: d.order.reference ?? ctx.requestReference,
    deliveryPrice: price,
    currency: d.order.currency,
    dispatchId: d.dispatch.id,
  };
  const deliveryId = pickString(p.exact, DELIVERY_ID_PATHS);
  if (deliveryId) value.deliveryId = deliveryId;
  return { ok: true, value };
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * One order from an order read. Accepts the envelope {order, dispatch, delivery} (the
 * create-response shape, which the sandbox also uses) or a bare order object.
 */
export function toOrderView(node: unknown): CourierOrderView | null {
  if (!isObj(node)) return null;
  const o = isObj(node.order) ? node.order : node;
  const id = pickString(o, ['id', 'orderId', 'order_id']) ?? pickString(node, ['orderId', 'order_id']);
  if (!id) return null;
  const view: CourierOrderView = { id, raw: plainOf(node) };
  const reference = pickString(o, ['reference', 'merchantReference']) ?? pickString(node, ['reference']);
  if (reference) view.reference = reference;
  const status = pickString(o, ['status', 'orderStatus', 'order_status']);
  if (status) view.status = status;
  // Delivery status: an explicit delivery element first; a lower-case order status
  // (e.g. "driver_assigned") is taken as a delivery status, since order statuses are upper-case.
  const deliveryStatus =
    pickString(node, ['delivery.status', 'deliveryStatus', 'delivery_status', 'tracking.status']) ??
    pickString(o, ['delivery.status', 'deliveryStatus', 'delivery_status', 'tracking.status']) ??
    (status && /^[a-z][a-z_]*$/.test(status) ? status : undefined);
  if (deliveryStatus) view.deliveryStatus = deliveryStatus;
  const deliveryId = pickString(node, DELIVERY_ID_PATHS) ?? pickString(o, ['delivery.id', 'deliveryId', 'delivery_id']);
  if (deliveryId) view.deliveryId = deliveryId;
  const dispatchId = pickString(node, ['dispatch.id', 'dispatchId', 'dispatch_id']) ?? pickString(o, ['dispatch.id', 'dispatchId', 'dispatch_id', 'jobId', 'job_id']);
  if (dispatchId) view.dispatchId = dispatchId;
  for (const path of ['deliveryPrice', 'delivery_price', 'price']) {
    const price = decimalTextOf(o[path]);
    if (price !== null) {
      view.deliveryPrice = price;
      break;
    }
  }
  const currency = pickString(o, ['currency', 'currencyCode', 'currency_code']);
  if (currency) view.currency = currency;
  return view;
}

/** Orders from a reference search: a list, a wrapped list, or a single order are all accepted. */
export function toOrderList(root: unknown): CourierOrderView[] | null {
  let items: unknown[] | undefined;
  if (Array.isArray(root)) items = root;
  else if (isObj(root)) {
    for (const k of ['orders', 'data', 'items', 'results', 'content']) {
      const v = root[k];
      if (Array.isArray(v)) {
        items = v;
        break;
      }
      if (isObj(v) && Array.isArray(v.orders)) {
        items = v.orders;
        break;
      }
    }
    if (!items) {
      const single = toOrderView(isObj(root.data) ? root.data : root);
      return single ? [single] : null;
    }
  }
  if (!items) return null;
  return items.map(toOrderView).filter((v): v is CourierOrderView => v !== null);
}

const QUOTE_CONTAINERS = ['quote', 'data.quote', 'data', 'pricing', 'result', 'quotes.0', 'data.0', 'order', ''];
// Most specific first; `amount` last because a response may echo the order amount.
const PRICE_FIELDS = [
  'deliveryPrice', 'delivery_price', 'price', 'quotedPrice', 'quoted_price', 'totalPrice', 'total_price', 'total',
  'deliveryFee', 'delivery_fee', 'fee', 'cost', 'amount',
];
const CURRENCY_FIELDS = ['currency', 'currencyCode', 'currency_code'];

/** Price (exact decimal text) and currency from a quote response of unknown shape. */
export function extractQuote(exactRoot: unknown): { price: string; currency: string | null } | null {
  for (const c of QUOTE_CONTAINERS) {
    const box = c === '' ? exactRoot : pick(exactRoot, c);
    if (!isObj(box)) continue;
    for (const f of PRICE_FIELDS) {
      const v = box[f];
      let price = decimalTextOf(v);
      let currency: string | undefined;
      if (price === null && isObj(v)) {
        // money object: { amount: 75.00, currency: "ZAR" }
        price = decimalTextOf(v.amount) ?? decimalTextOf(v.value);
        currency = pickString(v, CURRENCY_FIELDS);
      }
      if (price === null) continue;
      currency ??= pickString(box, CURRENCY_FIELDS) ?? pickString(exactRoot, CURRENCY_FIELDS);
      return { price, currency: currency ?? null };
    }
  }
  return null;
}

export function mapQuoteResponse(text: string): { ok: true; value: QuoteResult } | { ok: false; problem: string } {
  const p = parseBoth(text);
  if (!p.ok) return { ok: false, problem: 'the quote response is not JSON' };
  const q = extractQuote(p.exact);
  if (!q) return { ok: false, problem: 'the quote response has no recognisable price field' };
  return { ok: true, value: { ...q, raw: p.plain } };
}
