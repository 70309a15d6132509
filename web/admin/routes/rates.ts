// /api/rates: the checkout rate's setup (what is missing) and the carrier-service sync.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { shopOf } from '../auth.ts';
import { ratesStatus, syncCarrierService } from '../../rates/carrier-service.ts';

export function ratesRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.get('/rates/status', async (_req, res) => {
    res.json(await ratesStatus(ctx, shopOf(res)));
  });
  r.post('/rates/sync', async (_req, res) => {
    res.json(await syncCarrierService(ctx, shopOf(res)));
  });
  return r;
}
