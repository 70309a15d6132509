// /api settings, onboarding, connection and webhook tests, and Shopify locations.
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { shopOf } from '../auth.ts';
import { envParam } from '../params.ts';
import { saveAll, settingsPayload, shopLocations, testConnection, testWebhook } from '../services/settings.ts';

export function settingsRoutes(ctx: AppContext): Router {
  const r = express.Router();

  r.get('/settings', async (_req, res) => {
    res.json(await settingsPayload(ctx, shopOf(res)));
  });

  r.put('/settings', async (req, res) => {
    await saveAll(ctx, shopOf(res), req.body);
    res.json(await settingsPayload(ctx, shopOf(res)));
  });

  r.get('/onboarding', async (_req, res) => {
    res.json((await settingsPayload(ctx, shopOf(res))).onboarding);
  });

  r.post('/environments/:env/test-connection', async (req, res) => {
    const result = await testConnection(ctx, shopOf(res), envParam(req));
    res.locals.log?.info({ environment: result.environment, ok: result.ok }, 'courier connection tested');
    res.json(result);
  });

  r.post('/environments/:env/test-webhook', async (req, res) => {
    const result = await testWebhook(ctx, shopOf(res), envParam(req));
    const { environment, sent, received, verified, message } = result;
    res.locals.log?.info({ environment, sent, received, verified, message }, 'test webhook');
    res.json(result);
  });

  r.get('/locations', async (_req, res) => {
    res.json(await shopLocations(ctx, shopOf(res)));
  });

  return r;
}
