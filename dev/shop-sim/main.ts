// `npm run shop-sim`: the shop simulator on 127.0.0.1:4020 (SHOP_SIM_PORT or --port).
// Environment (all optional):
//   SHOP_SIM_PORT, SHOP_SIM_HOST, SHOPIFY_API_KEY / SHOPIFY_API_SECRET (default: the app's
//   development placeholders, so a fresh app and a fresh simulator agree), APP_URL (where
//   webhooks go, default the app's own default http://localhost:3000), SHOP_SIM_WEBHOOK_RETRY_MS (comma list of
//   waits between webhook attempts, default 1000,5000,15000), LOG_LEVEL.
// Point the app at it with SHOP_SIMULATOR_URL=<the URL printed> (development only).
import { parseArgs } from 'node:util';
import { defaultAppUrl } from '../../web/config/env.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { CONTROL_API_SUMMARY, startShopSimulator } from './server.ts';

// The same placeholders web/config/env.ts uses when SHOPIFY_API_KEY/SECRET are unset.
const DEV_API_KEY = 'dev-api-key';
const DEV_API_SECRET = 'dev-api-secret-not-for-production';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string' }, 'app-url': { type: 'string' } },
  allowPositionals: false,
});

const env = process.env;
const die = (message: string): never => {
  console.error(message);
  process.exit(2);
};

const portText = values.port ?? env.SHOP_SIM_PORT;
const port = portText === undefined || portText === '' ? 4020 : Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) die(`port must be a TCP port number (0-65535), got "${portText}"`);
const host = values.host ?? env.SHOP_SIM_HOST ?? '127.0.0.1';
// The app's default host, not 127.0.0.1: the install hint's OAuth state cookie must reach the callback.
const appUrl = (values['app-url'] ?? env.APP_URL) || defaultAppUrl(3000);
try {
  if (!/^https?:$/.test(new URL(appUrl).protocol)) throw new Error();
} catch {
  die(`APP_URL must be the app's http(s) URL, got "${appUrl}"`);
}
const retryText = env.SHOP_SIM_WEBHOOK_RETRY_MS;
const webhookRetryDelaysMs = retryText ? retryText.split(',').map((s) => Number(s.trim())) : undefined;
if (webhookRetryDelaysMs?.some((n) => !Number.isInteger(n) || n < 0)) die('SHOP_SIM_WEBHOOK_RETRY_MS must be a comma list of non-negative integers (ms)');
const apiKey = env.SHOPIFY_API_KEY || DEV_API_KEY;
const apiSecret = env.SHOPIFY_API_SECRET || DEV_API_SECRET;

const log = createLogger({ level: env.LOG_LEVEL ?? 'info', base: { component: 'shop-simulator' } });
let sim: Awaited<ReturnType<typeof startShopSimulator>>;
try {
  sim = await startShopSimulator({ port, host, apiKey, apiSecret, appUrl, log, ...(webhookRetryDelaysMs ? { webhookRetryDelaysMs } : {}) });
} catch (e) {
  die(`shop simulator could not start on ${host}:${port}: ${(e as Error).message}`);
}

// The API secret is printed only when it is the public development placeholder.
const shownSecret = apiSecret === DEV_API_SECRET ? `${DEV_API_SECRET} (development placeholder)` : '(from SHOPIFY_API_SECRET)';
console.log(
  [
    `Shop simulator listening on ${sim!.url}`,
    `  route the app here:   SHOP_SIMULATOR_URL=${sim!.url}  (development only; refused when NODE_ENV=production)`,
    `  API key / secret:     ${apiKey} / ${shownSecret}`,
    `  webhooks go to:       ${appUrl.replace(/\/+$/, '')}/api/webhooks  (change: PATCH /_sim/settings {"appUrl"})`,
    `  shops:                any <name>.myshopify.com, created on first use`,
    `  install the app:      POST ${sim!.url}/_sim/shops/demo/install (Shopify-managed installation), then`,
    `                        POST /_sim/shops/demo/open gives the embedded URL with an id_token (or ShopSimControl.installApp)`,
    '',
    'Control API (JSON, no auth, 127.0.0.1 only):',
    ...CONTROL_API_SUMMARY.map((l) => `  ${l}`),
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received; stopping the shop simulator`);
  sim.close().then(
    () => {
      log.flush();
      process.exit(0);
    },
    () => process.exit(1),
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
