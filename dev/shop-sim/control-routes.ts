// The /_sim control API's routes: method, path pattern, handler, one-line summary. Handlers
// take the parsed request and call the state (state.ts); webhooks go out through `deliver`.
import type { OperationLogEntry, SimFulfillmentOrder, SimShop } from './admin-graphql.ts';
import { HttpError } from './errors.ts';
import { declaredScopes } from './fixtures.ts';
import type { Delivery } from './sender.ts';
import { openApp } from './shopify-api.ts';
import { carrierState, checkoutRates } from './carrier-services.ts';
import { FLOW_CONTROL_SUMMARY, flowControlRoutes } from './flow.ts';
import { deliveryView, idOf, type SimState } from './state.ts';
import { WEBHOOK_TOPICS, type PlaceOrderRequest, type SendWebhookRequest, type WebhookDeliveryView, type WebhookTopic } from './types.ts';

export interface ControlReply {
  status: number;
  body: unknown;
}

export type Ctx = { params: string[]; body: any; url: URL };
export type ControlRoute = [method: string, pattern: RegExp, handler: (c: Ctx) => Promise<ControlReply | unknown> | ControlReply | unknown, summary: string];

/** Records a webhook and sends it; waits for the first attempt unless wait is false. */
export type Deliver = (shop: string, topic: WebhookTopic, payload: unknown, o?: { orderId?: string | null; wait?: boolean | undefined; redeliver?: Delivery }) => Promise<WebhookDeliveryView>;

// Handlers return plain data (200) or a branded reply with its own status.
const REPLY = Symbol('reply');
const created = (body: unknown): ControlReply => ({ [REPLY]: true, status: 201, body }) as ControlReply;
export const isReply = (v: unknown): v is ControlReply => typeof v === 'object' && v !== null && REPLY in v;

const optionalBool = (v: unknown, name: string): boolean | undefined => {
  if (v === undefined || typeof v === 'boolean') return v;
  throw new HttpError(400, `${name} must be true or false`);
};

/** fulfillment_orders/order_routing_complete: Shopify's documented shape (the fulfillment order, lower-case status). */
const routingPayload = (fo: SimFulfillmentOrder) => ({ fulfillment_order: { id: `gid://shopify/FulfillmentOrder/${fo.id}`, status: fo.status.toLowerCase() } });

/** A refused simulated mutation (unknown id, wrong status) answers 409 with Shopify's reason. */
function simChange<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new HttpError(409, (e as Error).message);
  }
}

export function controlRoutes(state: SimState, deliver: Deliver, o: { selfUrl: () => string; cancelRetries: () => void }): ControlRoute[] {
  const shopParam = (c: Ctx, create = false) => state.getShop(decodeURIComponent(c.params[0]!), create);
  const { log } = state;
  const userIdOf = (c: Ctx) => (typeof c.body.userId === 'string' ? c.body.userId : '1');
  return [
    ['GET', /^\/health$/, () => ({ ok: true, url: o.selfUrl() }), 'liveness'],
    ['GET', /^\/state$/, () => state.view(), 'settings, shops, fixtures, supported operations'],
    ['POST', /^\/reset$/, () => (o.cancelRetries(), state.reset(), { ok: true }), 'forget shops, orders, tokens, deliveries; settings back to start'],
    ['GET', /^\/settings$/, () => state.settings, 'appUrl, webhookRetryDelaysMs, webhookTimeoutMs'],
    ['PATCH', /^\/settings$/, ({ body }) => state.patchSettings(body), 'change appUrl / retry delays / timeout'],
    ['GET', /^\/fixtures$/, () => state.fixtures.names(), 'fixture names'],
    ['GET', /^\/shops$/, () => [...state.shops.values()].map((s) => state.shopView(s)), 'all shops'],
    ['POST', /^\/shops$/, ({ body }) => {
      if (typeof body.shop !== 'string') throw new HttpError(400, 'shop is required: "<name>" or "<name>.myshopify.com"');
      const s = state.getShop(body.shop);
      if (body.accessToken !== undefined) {
        if (typeof body.accessToken !== 'string' || body.accessToken.length < 8) throw new HttpError(400, 'accessToken must be a string of at least 8 characters');
        state.installWithToken(s, body.accessToken, typeof body.scope === 'string' ? body.scope : null);
      }
      return created(state.shopView(s));
    }, 'create a shop {shop, accessToken?, scope?}'],
    ['GET', /^\/shops\/([^/]+)$/, (c) => state.shopView(shopParam(c)), 'one shop'],
    ['POST', /^\/shops\/([^/]+)\/orders$/, async (c) => {
      const s = shopParam(c, true);
      const r = c.body as PlaceOrderRequest;
      const order = state.placeOrder(s, r);
      const webhook = r.send === false ? null : await deliver(s.domain, 'orders/paid', order.payload, { orderId: order.id, wait: r.wait });
      // Then Shopify's order routing finishes: one fulfillment_orders/order_routing_complete per fulfillment order.
      if (r.send !== false && r.routing === true) for (const fo of order.fulfillmentOrders) await deliver(s.domain, 'fulfillment_orders/order_routing_complete', routingPayload(fo), { orderId: order.id, wait: r.wait });
      return created({ order: state.orderView(s, order), webhook });
    }, 'place an order {fixture|payload, overrides?, ids?, locationId?, send?, routing?, wait?} → orders/paid (and fulfillment_orders/order_routing_complete with routing: true)'],
    ['POST', /^\/shops\/([^/]+)\/fulfillment-orders\/([^/]+)\/move$/, (c) => {
      const s = shopParam(c);
      if (typeof c.body.locationId !== 'string' && typeof c.body.locationId !== 'number') throw new HttpError(400, 'locationId is required: a location of the shop');
      const fo = simChange(() => s.moveFulfillmentOrder(decodeURIComponent(c.params[1]!), String(c.body.locationId)));
      return { fulfillmentOrder: { id: fo.id, status: fo.status, locationId: fo.locationId } };
    }, 'fulfillmentOrderMove {locationId}: closes the fulfillment order and opens a new one at the location'],
    ['POST', /^\/shops\/([^/]+)\/fulfillment-orders\/([^/]+)\/hold$/, (c) => {
      const s = shopParam(c);
      if (c.body.reason !== undefined && typeof c.body.reason !== 'string') throw new HttpError(400, 'reason must be a FulfillmentHoldReason');
      const fo = simChange(() => s.holdFulfillmentOrder(decodeURIComponent(c.params[1]!), c.body.reason ?? 'OTHER', typeof c.body.reasonNotes === 'string' ? c.body.reasonNotes : null));
      return { fulfillmentOrder: { id: fo.id, status: fo.status, holds: fo.holds } };
    }, 'fulfillmentOrderHold {reason?, reasonNotes?}: puts the fulfillment order ON_HOLD'],
    ['GET', /^\/shops\/([^/]+)\/orders$/, (c) => {
      const s = shopParam(c);
      return [...s.orders.values()].map((o) => state.orderView(s, o));
    }, 'every order with fulfillment state'],
    ['GET', /^\/shops\/([^/]+)\/orders\/([^/]+)$/, (c) => {
      const s = shopParam(c);
      return state.orderView(s, state.orderOf(s, decodeURIComponent(c.params[1]!)));
    }, 'one order: fulfillment orders, fulfillments (tracking, notifyCustomer, events), metafields, tags, webhooks'],
    ['POST', /^\/shops\/([^/]+)\/orders\/([^/]+)\/cancel$/, async (c) => {
      optionalBool(c.body.force, 'force');
      const s = shopParam(c);
      const o = state.cancelOrder(s, decodeURIComponent(c.params[1]!), c.body);
      const webhook = c.body.send === false ? null : await deliver(s.domain, 'orders/cancelled', o.payload, { orderId: o.id, wait: c.body.wait });
      return { order: state.orderView(s, o), webhook };
    }, 'cancel {reason?, force?, send?, wait?} → orders/cancelled'],
    ['POST', /^\/shops\/([^/]+)\/orders\/([^/]+)\/address$/, async (c) => {
      const s = shopParam(c);
      const o = state.editOrderAddress(s, decodeURIComponent(c.params[1]!), c.body);
      const webhook = c.body.send === false ? null : await deliver(s.domain, 'orders/updated', o.payload, { orderId: o.id, wait: optionalBool(c.body.wait, 'wait') });
      return { order: state.orderView(s, o), webhook };
    }, 'edit the shipping address / phone {shippingAddress?, phone?, send?, wait?} → orders/updated'],
    ['POST', /^\/shops\/([^/]+)\/orders\/([^/]+)\/fulfillments\/([^/]+)\/cancel$/, (c) => {
      const s = shopParam(c);
      const o = state.orderOf(s, decodeURIComponent(c.params[1]!));
      const id = decodeURIComponent(c.params[2]!);
      if (!o.fulfillments.some((f) => f.id === id.split('/').pop())) throw new HttpError(404, `no fulfillment ${id} on order ${o.id}`);
      const refused = s.cancelFulfillment(id);
      if (refused) throw new HttpError(409, refused);
      return { order: state.orderView(s, o) };
    }, 'cancel a fulfillment as the merchant does in the admin: its items open again'],
    ['POST', /^\/shops\/([^/]+)\/webhooks$/, async (c) => {
      const s = shopParam(c);
      const r = c.body as SendWebhookRequest;
      if (!WEBHOOK_TOPICS.includes(r.topic)) throw new HttpError(400, `topic must be one of ${WEBHOOK_TOPICS.join(', ')}`);
      let payload: unknown = r.payload;
      let orderId: string | null = null;
      if (r.topic === 'fulfillment_orders/order_routing_complete' && payload === undefined) {
        if (!r.orderId) throw new HttpError(400, `${r.topic} needs orderId (an order in the shop) or a payload`);
        const o = state.orderOf(s, r.orderId);
        if (!o.fulfillmentOrders[0]) throw new HttpError(409, `order ${o.id} has no fulfillment order`);
        payload = routingPayload(o.fulfillmentOrders.at(-1)!);
        orderId = o.id;
      } else if (r.topic === 'orders/paid' || r.topic === 'orders/cancelled' || r.topic === 'orders/updated') {
        if (payload === undefined) {
          if (!r.orderId) throw new HttpError(400, `${r.topic} needs orderId (an order in the shop) or a payload`);
          const o = state.orderOf(s, r.orderId);
          payload = o.payload;
          orderId = o.id;
        } else orderId = idOf((payload as any)?.admin_graphql_api_id) || (String((payload as any)?.id ?? '') || null);
      } else if (r.topic === 'app/uninstalled') payload ??= state.shopPayload(s);
      else payload ??= state.compliancePayload(s, r.topic, r);
      return created(await deliver(s.domain, r.topic, payload, { orderId, wait: optionalBool(r.wait, 'wait') }));
    }, 'send a webhook {topic, orderId?, customerId?, orderIds?, payload?, wait?} (new webhook id)'],
    ['POST', /^\/shops\/([^/]+)\/install$/, (c) => {
      // Shopify-managed installation: installed with the scopes of shopify.app.toml; no token until the app exchanges one.
      const s = shopParam(c, true);
      if (c.body.scope !== undefined && typeof c.body.scope !== 'string') throw new HttpError(400, 'scope must be a comma-separated string');
      state.managedInstall(s, c.body.scope ?? (declaredScopes() || null));
      return created(state.shopView(s));
    }, 'managed install {scope?}: installed with the shopify.app.toml scopes, no token issued yet'],
    ['POST', /^\/shops\/([^/]+)\/open$/, (c) => {
      const s = shopParam(c);
      if (!state.metaOf(s).installed) throw new HttpError(409, `the app is not installed on ${s.domain}: POST /_sim/shops/${s.domain}/install first`);
      if (c.body.path !== undefined && (typeof c.body.path !== 'string' || !c.body.path.startsWith('/'))) throw new HttpError(400, 'path must start with /');
      return openApp(state, s, c.body.path ?? '/', userIdOf(c));
    }, 'open the app in the admin {path?, userId?} → {url (embedded, signed, with id_token), sessionToken}'],
    ['POST', /^\/shops\/([^/]+)\/session-token$/, (c) => openApp(state, shopParam(c), '/', userIdOf(c)), 'a fresh App Bridge session token for the shop (as shopify.idToken() returns)'],
    ['POST', /^\/shops\/([^/]+)\/uninstall$/, async (c) => {
      const s = shopParam(c);
      state.revokeTokens(s);
      log?.info({ shop: s.domain }, 'app uninstalled: tokens revoked');
      return created(await deliver(s.domain, 'app/uninstalled', state.shopPayload(s), { wait: optionalBool(c.body.wait, 'wait') }));
    }, 'uninstall: revoke tokens, send app/uninstalled'],
    ['POST', /^\/shops\/([^/]+)\/throttle$/, (c) => ({ throttleNext: state.throttle(shopParam(c), c.body.count, c.body.operations) }), 'answer the next {count} GraphQL calls (of {operations}, if given) with THROTTLED'],
    ['POST', /^\/shops\/([^/]+)\/api-limits$/, (c) => state.setApiLimits(shopParam(c), c.body), "the app's Admin API bucket on the shop {plan: standard|advanced|plus|enterprise} or {maximumAvailable, restoreRate}; → its state"],
    ['GET', /^\/shops\/([^/]+)\/api-limits$/, (c) => state.apiLimitsView(shopParam(c)), "the app's Admin API bucket: limits, available now, points spent, THROTTLED answers, deepest overdraw asked for"],
    ['POST', /^\/shops\/([^/]+)\/user-errors$/, (c) => {
      const s: SimShop = shopParam(c);
      state.failNext(s, c.body.operation, c.body.message);
      return { failNext: Object.fromEntries(s.failNext) };
    }, 'answer the next call of {operation} with a userError {message}'],
    ['POST', /^\/shops\/([^/]+)\/token\/expire$/, (c) => {
      const s = shopParam(c);
      state.expireToken(s);
      return state.shopView(s);
    }, 'expire the access token now (GraphQL answers 401 until refreshed)'],
    ['GET', /^\/shops\/([^/]+)\/operations$/, (c) => {
      const name = c.url.searchParams.get('name');
      const entries: OperationLogEntry[] = shopParam(c).log;
      return name ? entries.filter((e) => e.operationName === name) : entries;
    }, 'GraphQL operation log (?name=)'],
    ['GET', /^\/webhooks$/, ({ url }) => state.deliveriesWhere({ shop: url.searchParams.get('shop'), topic: url.searchParams.get('topic'), orderId: url.searchParams.get('orderId') }), 'webhook delivery log (?shop=&topic=&orderId=)'],
    ['GET', /^\/webhooks\/(\d+)$/, (c) => deliveryView(state.deliveryBySeq(c.params[0]!), true), 'one delivery with its payload'],
    ['POST', /^\/webhooks\/(\d+)\/redeliver$/, async (c) => {
      const src = state.deliveryBySeq(c.params[0]!);
      return created(await deliver(src.shop, src.topic, null, { orderId: src.orderId, redeliver: src, wait: optionalBool(c.body.wait, 'wait') }));
    }, 'send a delivery again: same webhook id, event id and body (a Shopify duplicate)'],
    ['GET', /^\/shops\/([^/]+)\/carrier-services$/, (c) => carrierState(shopParam(c)).services, 'the carrier services the app registered'],
    ['POST', /^\/shops\/([^/]+)\/plan$/, (c) => {
      const p = carrierState(shopParam(c)).plan;
      if (typeof c.body.publicDisplayName !== 'string') throw new HttpError(400, 'publicDisplayName is required (e.g. Basic, Grow, Advanced, Plus, Development)');
      Object.assign(p, { publicDisplayName: c.body.publicDisplayName, partnerDevelopment: c.body.partnerDevelopment === true, shopifyPlus: c.body.shopifyPlus === true });
      return p;
    }, "set the shop's plan {publicDisplayName, partnerDevelopment?, shopifyPlus?} (carrier-calculated shipping depends on it)"],
    ['POST', /^\/shops\/([^/]+)\/checkout\/rates$/, (c) => checkoutRates(shopParam(c), state.apiSecret, c.body),
      'checkout: POST a signed rate request {origin?, destination?, items?, currency?, rawBody?, secret?} to the active carrier service → {status, body, elapsedMs}'],
    ...flowControlRoutes(state),
  ];
}

/** The control routes, for `npm run shop-sim` and the README (kept next to the code). */
export const CONTROL_API_SUMMARY = [
  'GET  /_sim/health | /_sim/state | /_sim/settings | /_sim/fixtures | /_sim/shops',
  'POST /_sim/reset                              PATCH /_sim/settings {appUrl?, webhookRetryDelaysMs?, webhookTimeoutMs?}',
  'POST /_sim/shops {shop, accessToken?, scope?}  GET /_sim/shops/:shop',
  'POST /_sim/shops/:shop/orders {fixture|payload, overrides?, ids?: fixture|fresh, locationId?, send?, routing?, wait?}  → orders/paid (+ order_routing_complete)',
  'POST /_sim/shops/:shop/fulfillment-orders/:id/move {locationId}   POST /_sim/shops/:shop/fulfillment-orders/:id/hold {reason?, reasonNotes?}',
  'GET  /_sim/shops/:shop/orders[/:id]           fulfillment orders, fulfillments (tracking, notifyCustomer, events), metafields, tags',
  'POST /_sim/shops/:shop/orders/:id/cancel {reason?, force?}  → orders/cancelled',
  'POST /_sim/shops/:shop/orders/:id/address {shippingAddress?, phone?}  staff edit → orders/updated',
  'POST /_sim/shops/:shop/orders/:id/fulfillments/:fid/cancel   the merchant cancels a fulfillment (items open again)',
  'POST /_sim/shops/:shop/webhooks {topic, orderId?, customerId?, orderIds?, payload?}   (compliance topics too)',
  'POST /_sim/shops/:shop/install {scope?}       Shopify-managed install (shopify.app.toml scopes), no token yet',
  'POST /_sim/shops/:shop/open {path?}           embedded URL with id_token, as the admin opens the app; /session-token: a fresh one',
  'POST /_sim/shops/:shop/uninstall              revoke tokens, send app/uninstalled',
  'POST /_sim/shops/:shop/throttle {count, operations?}     POST /_sim/shops/:shop/user-errors {operation, message}',
  'POST|GET /_sim/shops/:shop/api-limits {plan} | {maximumAvailable, restoreRate}   the cost bucket (calculated query cost)',
  'POST /_sim/shops/:shop/token/expire           GET /_sim/shops/:shop/operations?name=',
  'GET  /_sim/webhooks?shop=&topic=&orderId=     GET /_sim/webhooks/:seq    POST /_sim/webhooks/:seq/redeliver',
  'POST /_sim/shops/:shop/checkout/rates {destination?, items?, currency?}  signed rate request to the carrier service   POST /_sim/shops/:shop/plan   GET /_sim/shops/:shop/carrier-services',
  FLOW_CONTROL_SUMMARY,
];
