// Bulk actions on Shopify orders (the orders list's selection action and the
// Deliveries page): one result per order, a failure never stops the others.
// Each order goes through the single-order path: dispatchOrder (the order
// block's "Dispatch now"), runAction('retry'), quoteOrder. Which status allows
// what stays in the lifecycle table; a refusal here is its message.
import type { AppContext } from '../../context.ts';
import type { Logger } from '../../ops/logger.ts';
import { ensureShop } from '../../settings/store.ts';
import type { BulkOrderResult, BulkRequest, BulkResult } from '../contract.ts';
import { dispatchOrder, DONE, runAction } from '../../dispatch/actions.ts';
import { BULK_CONCURRENCY, countOutcomes, mapBounded, outcomeOfError } from './bulk-rules.ts';
import { quoteOrder } from './quotes.ts';

interface Known {
  id: string;
  orderName: string | null;
  status: string;
}

type Done = Partial<Omit<BulkOrderResult, 'orderId'>> & Pick<BulkOrderResult, 'message'>;

async function one(ctx: AppContext, domain: string, action: BulkRequest['action'], orderId: string, known: Known | undefined): Promise<Done> {
  if (action === 'quote') {
    const q = await quoteOrder(ctx, domain, orderId);
    return {
      message: `${q.currency ?? ''} ${q.price}`.trim() + (q.aboveMax ? ` (above your maximum of ${q.maxDeliveryPrice})` : ''),
      orderName: q.orderName,
      quote: { environment: q.environment, price: q.price, currency: q.currency, maxDeliveryPrice: q.maxDeliveryPrice, aboveMax: q.aboveMax },
    };
  }
  if (action === 'retry') {
    if (!known) return { outcome: 'not_found', message: 'The app has no delivery for this order; dispatch it instead' };
    await runAction(ctx, domain, known.id, 'retry');
    return { message: DONE.retry, deliveryId: known.id };
  }
  const done = await dispatchOrder(ctx, domain, orderId, known?.id ?? null);
  if (!done) return { outcome: 'not_found', message: `Shopify has no order ${orderId} on this shop` };
  return { message: DONE.dispatch, deliveryId: done.deliveryId, orderName: done.orderName };
}

/** Runs `action` on each order, BULK_CONCURRENCY at a time; the request was checked by parseBulkRequest. */
export async function runBulk(ctx: AppContext, domain: string, req: BulkRequest, log: Logger = ctx.log): Promise<BulkResult> {
  const shop = await ensureShop(ctx.db, domain);
  const rows = await ctx.db.delivery.findMany({ where: { shopId: shop.id, shopifyOrderId: { in: req.orderIds } }, select: { id: true, orderName: true, status: true, shopifyOrderId: true } });
  const known = new Map(rows.map((r) => [r.shopifyOrderId, r]));
  const results = await mapBounded(req.orderIds, BULK_CONCURRENCY, async (orderId): Promise<BulkOrderResult> => {
    const before = known.get(orderId);
    let done: Done;
    try {
      done = await one(ctx, domain, req.action, orderId, before);
    } catch (e) {
      const outcome = outcomeOfError(e);
      if (!outcome) log.error({ err: (e as Error)?.message, orderId, action: req.action }, 'bulk action failed unexpectedly');
      done = outcome ?? { outcome: 'refused', code: 'unexpected_error', message: 'Something went wrong with this order; see the app log' };
    }
    const deliveryId = done.deliveryId ?? before?.id ?? null;
    // The status after the action, as the merchant will see it in the list.
    const after = deliveryId ? await ctx.db.delivery.findUnique({ where: { id: deliveryId }, select: { orderName: true, status: true } }) : null;
    return {
      orderId,
      outcome: done.outcome ?? 'ok',
      code: done.code ?? null,
      message: done.message,
      deliveryId: after ? deliveryId : null,
      orderName: done.orderName ?? after?.orderName ?? null,
      status: after?.status ?? null,
      quote: done.quote ?? null,
    };
  });
  log.info({ action: req.action, orders: req.orderIds.length, ...countOutcomes(results) }, 'bulk action');
  return { action: req.action, results, counts: countOutcomes(results) };
}
