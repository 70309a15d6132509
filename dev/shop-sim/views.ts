// How the control API shows an order: fulfillment state derived as Shopify derives it, with the
// webhooks sent about it. Pure.
import type { SimOrder } from './admin-graphql.ts';
import type { Delivery } from './sender.ts';
import type { SimOrderView } from './types.ts';

export function orderView(o: SimOrder, webhooks: Delivery[]): SimOrderView {
  const p = o.payload;
  const items = o.fulfillmentOrders.filter((f) => f.status !== 'CANCELLED').flatMap((f) => f.lineItems);
  const total = items.reduce((n, li) => n + li.totalQuantity, 0);
  const left = items.reduce((n, li) => n + li.remainingQuantity, 0);
  return {
    id: o.id,
    gid: `gid://shopify/Order/${o.id}`,
    name: p.name,
    test: !!p.test,
    financialStatus: p.financial_status ?? null,
    cancelledAt: p.cancelled_at ?? null,
    cancelReason: p.cancel_reason ?? null,
    shippingLines: (p.shipping_lines ?? []).map((l: any) => ({ title: l.title ?? null, code: l.code ?? null })),
    fulfillmentStatus: total === 0 || left === total ? 'UNFULFILLED' : left === 0 ? 'FULFILLED' : 'PARTIALLY_FULFILLED',
    fulfillmentOrders: o.fulfillmentOrders.map((f) => ({
      id: f.id, gid: `gid://shopify/FulfillmentOrder/${f.id}`, status: f.status, locationId: f.locationId, methodType: f.methodType,
      lineItems: f.lineItems.map((li) => ({ id: li.id, lineItemId: li.lineItemId, totalQuantity: li.totalQuantity, remainingQuantity: li.remainingQuantity })),
    })),
    fulfillments: o.fulfillments.map((f) => ({ ...structuredClone(f), gid: `gid://shopify/Fulfillment/${f.id}` })),
    metafields: structuredClone(o.metafields),
    tags: [...o.tags],
    webhooks: webhooks.map((d) => ({ seq: d.seq, topic: d.topic, webhookId: d.webhookId, state: d.state })),
  };
}
