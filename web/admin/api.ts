// The admin JSON API (/api/*), used by the embedded pages (web/frontend) and
// the order-details block (extensions/order-delivery-block).
//
// Every handler works on res.locals.shop, the shop named by the verified
// session token, and every query is filtered by it: another shop's delivery is
// simply not found (404). Routes (./routes) only parse, call and respond; the
// work is in ./services, which the operator CLI calls too. Response shapes:
// ./contract.ts (checked against the services by ./contract-check.ts). Secrets
// are write-only: responses carry `{ set, last4 }`, never a value.
import express, { type Router } from 'express';
import type { AppContext } from '../context.ts';
import type { Shopify } from '../shopify/app.ts';
import { cors, requireSessionToken } from './auth.ts';
import { apiErrors } from './errors.ts';
import { english } from './messages.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { eventRoutes } from './routes/events.ts';
import { geocodeRoutes } from './routes/geocode.ts';
import { settingsRoutes } from './routes/settings.ts';
import { bulkRoutes } from './routes/bulk.ts';
import { ratesRoutes } from './routes/rates.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { flowRoutes } from './routes/flow.ts';

export function adminApi(deps: { ctx: AppContext; shopify: Shopify }): Router {
  const { ctx } = deps;
  const r = express.Router();
  r.use(cors());
  r.use(...requireSessionToken(deps.shopify));
  r.use(express.json({ limit: '64kb' }));
  r.use(settingsRoutes(ctx));
  r.use(deliveryRoutes(ctx));
  r.use(eventRoutes(ctx));
  r.use(geocodeRoutes(ctx));
  r.use(bulkRoutes(ctx));
  r.use(ratesRoutes(ctx));
  r.use(dashboardRoutes(ctx));
  r.use(flowRoutes(ctx));
  r.use((_req, res) => {
    res.status(404).json({ error: english('error.not_found'), code: 'not_found' });
  });
  r.use(apiErrors);
  return r;
}
