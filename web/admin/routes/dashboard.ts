// /api/dashboard: the home page's figures (services/dashboard.ts).
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { shopOf } from '../auth.ts';
import { homeDashboard } from '../services/dashboard.ts';

export function dashboardRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.get('/dashboard', async (_req, res) => {
    res.json(await homeDashboard(ctx, shopOf(res)));
  });
  return r;
}
