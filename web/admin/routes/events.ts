// /api unmatched courier events and customers/data_request records.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { attachEvent, dismissEvent, listUnmatched } from '../../fulfillment/unmatched.ts';
import { exportDataRequest, listDataRequests } from '../../privacy/data-requests.ts';
import { shopOf } from '../auth.ts';
import { ApiError } from '../errors.ts';

export function eventRoutes(ctx: AppContext): Router {
  const r = express.Router();

  r.get('/courier-events/unmatched', async (req, res) => {
    const limit = Number(req.query.limit ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new ApiError(400, 'limit must be a whole number from 1 to 500', { limit: 'must be 1 to 500' });
    res.json(await listUnmatched(ctx, shopOf(res), { limit }));
  });

  r.post('/courier-events/:id/attach', async (req, res) => {
    const deliveryId = typeof req.body?.deliveryId === 'string' ? req.body.deliveryId.trim() : '';
    if (!deliveryId) throw new ApiError(422, 'deliveryId is required', { deliveryId: 'required' });
    const result = await attachEvent(ctx, shopOf(res), String(req.params.id), deliveryId);
    ctx.queue.notify();
    res.locals.log?.info({ eventId: req.params.id, deliveryId, action: 'attach' }, 'merchant action');
    res.json({ message: `Attached; ${result.applied} event(s) applied`, ...result });
  });

  r.post('/courier-events/:id/dismiss', async (req, res) => {
    await dismissEvent(ctx, shopOf(res), String(req.params.id));
    res.locals.log?.info({ eventId: req.params.id, action: 'dismiss' }, 'merchant action');
    res.json({ message: 'Dismissed' });
  });

  r.get('/data-requests', async (_req, res) => {
    res.json({ dataRequests: await listDataRequests(ctx.db, shopOf(res)) });
  });

  r.get('/data-requests/:id', async (req, res) => {
    const exported = await exportDataRequest(ctx.db, shopOf(res), String(req.params.id));
    res.setHeader('Content-Disposition', `attachment; filename="data-request-${exported.id}.json"`);
    res.json(exported);
  });

  return r;
}
