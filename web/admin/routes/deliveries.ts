// /api deliveries and orders: the list, one delivery, the merchant's actions and quotes.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { resolveDuplicates } from '../../fulfillment/unmatched.ts';
import { shopOf } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { orderIdParam } from '../params.ts';
import { checkNow, dispatchOrder, DONE, knownDeliveryId, runAction, type QueueAction } from '../../dispatch/actions.ts';
import { deliveryDetail, findByOrderId } from '../services/delivery.ts';
import { listDeliveries } from '../services/deliveries.ts';
import { quoteDelivery, quoteOrder } from '../services/quotes.ts';

export function deliveryRoutes(ctx: AppContext): Router {
  const r = express.Router();

  r.get('/deliveries', async (req, res) => {
    res.json(await listDeliveries(ctx, shopOf(res), req.query));
  });

  r.get('/deliveries/:id', async (req, res) => {
    res.json({ delivery: await deliveryDetail(ctx, shopOf(res), String(req.params.id)) });
  });

  r.get('/orders/:orderId/delivery', async (req, res) => {
    const domain = shopOf(res);
    const orderId = orderIdParam(req);
    const d = await findByOrderId(ctx, domain, orderId);
    res.json({ orderId, delivery: d ? await deliveryDetail(ctx, domain, d.id) : null });
  });

  for (const action of ['dispatch', 'retry', 'redispatch'] as const satisfies QueueAction[]) {
    r.post(`/deliveries/:id/${action}`, async (req, res) => {
      const domain = shopOf(res);
      const id = String(req.params.id);
      await runAction(ctx, domain, id, action);
      res.locals.log?.info({ deliveryId: id, action }, 'merchant action');
      res.json({ message: DONE[action], delivery: await deliveryDetail(ctx, domain, id) });
    });
  }

  r.post('/deliveries/:id/fix', async (req, res) => {
    const domain = shopOf(res);
    const id = String(req.params.id);
    await runAction(ctx, domain, id, 'fix', req.body);
    res.locals.log?.info({ deliveryId: id, action: 'fix', fields: Object.keys(req.body ?? {}) }, 'merchant action');
    res.json({ message: DONE.fix, delivery: await deliveryDetail(ctx, domain, id) });
  });

  r.post('/deliveries/:id/check', async (req, res) => {
    const domain = shopOf(res);
    const id = String(req.params.id);
    const { message, result } = await checkNow(ctx, domain, id);
    res.locals.log?.info({ deliveryId: id, action: 'check', result }, 'merchant action');
    res.json({ message, result, delivery: await deliveryDetail(ctx, domain, id) });
  });

  r.post('/deliveries/:id/resolve', async (req, res) => {
    const domain = shopOf(res);
    const id = String(req.params.id);
    await resolveDuplicates(ctx, domain, id);
    res.locals.log?.info({ deliveryId: id, action: 'resolve' }, 'merchant action');
    res.json({ message: 'Marked resolved', delivery: await deliveryDetail(ctx, domain, id) });
  });

  // Dispatch by Shopify order id: the order block's "Dispatch now", also for orders we never received.
  r.post('/orders/:orderId/dispatch', async (req, res) => {
    const domain = shopOf(res);
    const orderId = orderIdParam(req);
    const done = await dispatchOrder(ctx, domain, orderId, await knownDeliveryId(ctx, domain, orderId));
    if (!done) throw new ApiError(404, `Shopify has no order ${orderId} on this shop`);
    res.locals.log?.info({ deliveryId: done.deliveryId, orderId, action: 'dispatch' }, 'merchant action');
    res.json({ message: DONE.dispatch, delivery: await deliveryDetail(ctx, domain, done.deliveryId) });
  });

  r.post('/deliveries/:id/quote', async (req, res) => {
    res.json(await quoteDelivery(ctx, shopOf(res), String(req.params.id)));
  });

  r.post('/orders/:orderId/quote', async (req, res) => {
    res.json(await quoteOrder(ctx, shopOf(res), orderIdParam(req)));
  });

  return r;
}
