// /api/flow: the Shopify Flow section of the settings page.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { shopOf } from '../auth.ts';
import { flowStatus } from '../services/flow.ts';

export function flowRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.get('/flow', async (_req, res) => {
    res.json(await flowStatus(ctx, shopOf(res)));
  });
  return r;
}
