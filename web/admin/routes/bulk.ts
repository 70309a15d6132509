// POST /api/bulk: one action (dispatch, retry, quote) on up to 50 Shopify
// orders, with a result per order (docs/bulk-actions.md). A bad body is a 400
// naming the field, before anything runs.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { shopOf } from '../auth.ts';
import { parseBulkRequest } from '../services/bulk-rules.ts';
import { runBulk } from '../services/bulk.ts';

export function bulkRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.post('/bulk', async (req, res) => {
    const request = parseBulkRequest(req.body);
    res.json(await runBulk(ctx, shopOf(res), request, res.locals.log ?? ctx.log));
  });
  return r;
}
