// The shop simulator: a local HTTP server standing in for any number of Shopify
// shops (<name>.myshopify.com, created on first use). It serves what the app
// talks to on Shopify's side (Admin GraphQL, the token endpoint), sends webhooks
// as Shopify does, and has a control API for tests, the demo and people.
//
// Three parts, wired here: the state (state.ts, with shopify-api.ts and views.ts:
// data and operations, no I/O), the router (router.ts and control-routes.ts: HTTP
// in and out) and the sender (sender.ts: signed webhooks out, with retries).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { adminSchema } from './contract.ts';
import { DEFAULT_FIXTURES_DIR, fixturesIn } from './fixtures.ts';
import { shopSimRouter } from './router.ts';
import { ShopWebhookSender } from './sender.ts';
import { SimState } from './state.ts';
import type { RunningShopSimulator, ShopSimulatorOptions } from './types.ts';

export type * from './types.ts';
export { WEBHOOK_TOPICS } from './types.ts';
export { ID_TOKEN_TYPE, normalizeShop, OFFLINE_TOKEN_TYPE, ONLINE_TOKEN_TYPE, signOAuthQuery, signSessionToken, signWebhookBody, TOKEN_EXCHANGE_GRANT, verifySessionToken } from './auth.ts';
export { CONTROL_API_SUMMARY } from './control-routes.ts';
export { declaredScopes, DEFAULT_FIXTURES_DIR } from './fixtures.ts';
export { WEBHOOK_API_VERSION } from './sender.ts';

export async function startShopSimulator(opts: ShopSimulatorOptions): Promise<RunningShopSimulator> {
  const { port = 0, host = '127.0.0.1', apiKey, apiSecret, log } = opts;
  if (!apiKey || !apiSecret) throw new Error('startShopSimulator: apiKey and apiSecret are required');
  // Build Shopify's Admin schema now (about a second), not inside the first GraphQL request.
  adminSchema();
  const state = new SimState({
    apiKey,
    apiSecret,
    settings: {
      appUrl: opts.appUrl.replace(/\/+$/, ''),
      webhookRetryDelaysMs: opts.webhookRetryDelaysMs ?? [1_000, 5_000, 15_000],
      webhookTimeoutMs: opts.webhookTimeoutMs ?? 5_000,
    },
    fixtures: fixturesIn(opts.fixturesDir ?? DEFAULT_FIXTURES_DIR),
    log,
  });
  const sender = new ShopWebhookSender({ apiSecret, settings: () => state.settings, log });

  let serverUrl = '';
  const app = express();
  app.disable('x-powered-by');
  app.use(shopSimRouter({ state, sender, url: () => serverUrl }));
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const boundPort = (server.address() as AddressInfo).port;
  serverUrl = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  log?.info({ url: serverUrl, appUrl: state.settings.appUrl }, 'shop simulator listening');

  let closed = false;
  return {
    url: serverUrl,
    port: boundPort,
    shops: state.shops,
    async close() {
      if (closed) return;
      closed = true;
      sender.halt();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1_000).unref();
      });
      await sender.close(); // aborts sends still waiting on a slow receiver
    },
  };
}
