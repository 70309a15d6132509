// The Express application: every route, in mount order. Built once the
// database is migrated (web/server.ts); until then a start-up app answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import express, { type Express } from 'express';
import type { AppConfig } from './config/env.ts';
import type { AppContext } from './context.ts';
import type { Logger } from './ops/logger.ts';
import type { JobQueue } from './jobs/queue.ts';
import { mountAdmin } from './admin/index.ts';
import { requireShopParam } from './admin/auth.ts';
import { COURIER_WEBHOOK_PATH, WEBHOOK_BODY_LIMIT as COURIER_WEBHOOK_BODY_LIMIT, courierWebhookIntake, courierWebhookRoute, type CourierWebhookIntake } from './fulfillment/webhook-route.ts';
import { errorHandler, notFound, requestContext } from './ops/http.ts';
import { healthRoutes, type Readiness } from './ops/health.ts';
import { securityHeaders } from './ops/security-headers.ts';
import type { Shopify } from './shopify/app.ts';
import { SHOPIFY_WEBHOOK_BODY_LIMIT, shopifyWebhookIntake, shopifyWebhookRoute, type WebhookIntakeDeps } from './webhooks/shopify.ts';
import { bareJsonPost, type BareHandler } from './ops/bare-http.ts';
import { shopifyTopicHandlers } from './webhooks/topics.ts';
import { metricsRoute } from './ops/metrics.ts';
import { trackingRoutes } from './tracking/route.ts';
import { shopProfile } from './shopify/shop-profile.ts';
import { RATES_CALLBACK_PATH, ratesCallbackRoute } from './rates/route.ts';
import { flowRoutes } from './flow/index.ts';
import { slotsRoutes } from './slots/route.ts';

export interface AppServices {
  ctx: AppContext;
  shopify: Shopify;
  readiness: Readiness;
}

export { shopifyTopicHandlers } from './webhooks/topics.ts';

/** What POST /api/webhooks needs, whichever server answers it. */
function intakeDeps(s: AppServices): WebhookIntakeDeps {
  const { ctx } = s;
  return {
    apiSecret: s.shopify.api.config.apiSecretKey,
    database: ctx.database,
    provider: ctx.database.provider,
    box: ctx.box,
    topics: new Set(Object.keys(shopifyTopicHandlers(ctx))),
    received: () => {
      ctx.intake?.received();
      ctx.inbox?.notify();
    },
    now: ctx.now,
    log: ctx.log,
  };
}

/**
 * The server's request listener: Shopify's and the courier's webhooks answered before Express when they can be
 * (web/ops/bare-http.ts: one insert is the whole intake, Express's layers cost more than it), the
 * Express app for everything else.
 */
export function buildHandler(s: AppServices): (req: IncomingMessage, res: ServerResponse) => void {
  const intake = shopifyWebhookIntake(intakeDeps(s));
  const courier = courierWebhookIntake(s.ctx);
  const app = buildApp(s, intake, courier);
  const securityHeaders = securityHeadersFor(s.ctx.config);
  const bare = bareJsonPost({ log: s.ctx.log, limitBytes: SHOPIFY_WEBHOOK_BODY_LIMIT, securityHeaders, handle: intake });
  const courierBare = bareJsonPost({
    log: s.ctx.log, limitBytes: COURIER_WEBHOOK_BODY_LIMIT, securityHeaders,
    handle: (raw, header, log, path) => courier(COURIER_WEBHOOK_PATH.exec(path)![1]!, raw, header, log),
  });
  return (req, res) => {
    if (req.method === 'POST' && req.url === '/api/webhooks' && bare(req, res)) return;
    // Only an exact path with a well-formed endpoint id: anything else is Express's to route.
    if (req.method === 'POST' && COURIER_WEBHOOK_PATH.test(req.url ?? '') && courierBare(req, res)) return;
    app(req, res);
  };
}

/** The Express app; `intake` and `courier` are the webhook intakes buildHandler also serves before it. */
function buildApp(s: AppServices, intake: BareHandler, courier: CourierWebhookIntake): Express {
  const app = express();
  app.disable('x-powered-by');
  const { ctx } = s;
  // HSTS, nosniff, Referrer-Policy, … on every response, before any route can answer.
  app.use(securityHeadersFor(ctx.config));
  // req.ip is what the rate limits key on: only configured proxies may set it (TRUST_PROXY).
  app.set('trust proxy', ctx.config.trustProxy);
  app.use(requestContext(ctx.log));
  app.use(healthRoutes(s.readiness));
  // Prometheus, behind METRICS_TOKEN (off without it).
  app.get('/metrics', metricsRoute(ctx.config.metricsToken));

  // Raw-body routes first: signatures cover the exact bytes.
  // Intake is one insert into the inbox; the inbox worker (web/inbox/worker.ts) processes it.
  app.post('/api/webhooks', ...shopifyWebhookRoute(intake, ctx.log));
  app.post('/webhooks/delivery/:endpointId', ...courierWebhookRoute(ctx, courier));
  // Checkout rates (Shopify CarrierService); delivery windows decide "out of hours" (web/rates/hours.ts).
  app.post(RATES_CALLBACK_PATH, ...ratesCallbackRoute(ctx));
  // Shopify Flow's action runs and trigger lifecycle callbacks (signed like webhooks).
  app.use(flowRoutes(ctx));

  // Shopify-managed installation and token exchange replace the authorization-code routes (an
  // OAuth redirect cannot run inside the admin iframe). Say so, instead of the library's error log.
  app.get(['/api/auth', '/api/auth/callback'], requireShopParam(s.shopify), (_req, res) => {
    res.status(400).json({ error: AUTH_CODE_FLOW_UNUSED });
  });

  // gzip or brotli, as the client accepts, for every page, asset and API answer below (not the webhooks above).
  app.use(compression());

  // The customer's public tracking page sends its own strict CSP (not the embedded admin's).
  // The store's name, contact, language and clock: the cached shop profile the home dashboard shares.
  // The cart block's delivery slots, through Shopify's app proxy (signed query, web/shopify/app-proxy.ts).
  app.use(slotsRoutes(ctx));
  app.use(trackingRoutes(ctx, { shopProfile: (domain) => shopProfile(ctx, domain) }));
  app.use(s.shopify.cspHeaders());
  mountAdmin(app, { ctx, shopify: s.shopify });

  app.use(notFound);
  app.use(errorHandler);
  return app;
}

export const AUTH_CODE_FLOW_UNUSED =
  'This app is installed by Shopify (managed installation) and gets its tokens by token exchange: open it from the store admin. /api/auth is not used.';

/** Answers while the database is being migrated: health probes only. */
export function buildStartupApp(config: AppConfig, log: Logger, readiness: Readiness): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeadersFor(config));
  app.use(requestContext(log));
  app.use(healthRoutes(readiness));
  app.use((_req, res) => {
    res.setHeader('Retry-After', '5');
    res.status(503).json({ error: 'starting: the database is not ready yet', reason: readiness.problem });
  });
  return app;
}

function securityHeadersFor(config: AppConfig) {
  return securityHeaders({ production: config.isProduction, hstsIncludeSubDomains: config.hstsIncludeSubDomains });
}
