// /api/dashboard: the home page's figures (services/dashboard.ts); /api/shop:
// the shop's time zone, in which the pages show every date and time.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import type { ShopInfo } from '../contract.ts';
import { shopOf } from '../auth.ts';
import { homeDashboard } from '../services/dashboard.ts';
import { shopProfile } from '../../shopify/shop-profile.ts';

export function dashboardRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.get('/dashboard', async (_req, res) => {
    res.json(await homeDashboard(ctx, shopOf(res)));
  });
  r.get('/shop', async (_req, res) => {
    const domain = shopOf(res);
    const zone = await shopProfile(ctx, domain);
    res.json({ shop: domain, timeZone: zone.timeZone, timeZoneSource: zone.source } satisfies ShopInfo);
  });
  return r;
}
