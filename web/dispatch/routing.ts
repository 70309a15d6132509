// fulfillment_orders/order_routing_complete: Shopify has assigned the order's
// fulfillment orders to locations. The payload names only a fulfillment order,
// so the webhook queues a job (no Shopify call inside the webhook transaction)
// that finds the order, records "routing seen" on its delivery, and wakes a
// delivery waiting for it (web/dispatch/dispatcher.ts waitForRouting).
import { workPaced } from '../shopify/paced-jobs.ts';
import type { AppContext } from '../context.ts';
import { JOBS, type RoutingJobData } from '../jobs/names.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { enqueueDispatch } from '../transitions/effects.ts';
import { addEvent } from '../transitions/timeline.ts';
import { fetchOrderOfFulfillmentOrder, gid, numericId } from '../shopify/operations.ts';
import type { TopicHandler } from '../inbox/shopify.ts';
import { DISPATCH_RETRY } from '../retry/budget.ts';

export function routingCompleteHandler(queue: JobQueue): TopicHandler {
  return async ({ tx, shop, payload, afterCommit, ignore }) => {
    const fo = payload?.fulfillment_order?.id;
    if (typeof fo !== 'string' && typeof fo !== 'number') return ignore('no fulfillment_order.id in the body');
    const shopRow = await tx.shop.findUnique({ where: { domain: shop }, select: { uninstalledAt: true } });
    if (!shopRow || shopRow.uninstalledAt) return ignore('the app is not installed on this shop');
    await queue.enqueue<RoutingJobData>(tx, JOBS.routing, { shop, fulfillmentOrderId: gid('FulfillmentOrder', String(fo)) });
    afterCommit(() => queue.notify());
  };
}

export async function registerRoutingJobs(ctx: AppContext, retry: Partial<typeof DISPATCH_RETRY> = {}): Promise<void> {
  await workPaced<RoutingJobData>(ctx, JOBS.routing, (job) => runRoutingComplete(ctx, job.data), { concurrency: 4, retry: { ...DISPATCH_RETRY, ...retry } });
}

export async function runRoutingComplete(ctx: AppContext, job: RoutingJobData): Promise<void> {
  const orderGid = await fetchOrderOfFulfillmentOrder(ctx.admin, job.shop, job.fulfillmentOrderId);
  if (!orderGid) return; // gone (deleted order): nothing to wake
  const d = await ctx.db.delivery.findFirst({ where: { shop: { domain: job.shop }, shopifyOrderId: numericId(orderGid) } });
  // No delivery yet (routing finished before orders/paid): dispatch then reads the fulfillment orders as they are.
  if (!d) return;
  await ctx.db.$transaction(async (tx) => {
    const n = await tx.delivery.updateMany({ where: { id: d.id, routingCompleteAt: null }, data: { routingCompleteAt: new Date(ctx.now()) } });
    if (!n.count) return; // a repeat
    await addEvent(tx, d.id, { kind: 'routing_complete', source: 'shopify', message: "Shopify's order routing assigned the order to a location" });
    // Waiting for it: look now (a re-check books only while no request is stored).
    if (d.status === 'PENDING' && !d.requestBody) {
      await enqueueDispatch(tx, ctx.queue, d.id, d.generation, { recheck: true, singletonKey: `dispatch-routed:${d.id}:${d.generation}` }, d.shopId);
    }
  });
  ctx.queue.notify();
}
