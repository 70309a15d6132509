// `npm run sandbox`: the sandbox courier on 127.0.0.1:4010 (SANDBOX_PORT or --port).
// Environment (all optional):
//   SANDBOX_PORT, SANDBOX_HOST, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, SANDBOX_STORE_IDS (comma list),
//   SANDBOX_WEBHOOK_URL, SANDBOX_WEBHOOK_SECRET, SANDBOX_STEP_MS (status step interval, default 10000, 0 = on command),
//   SANDBOX_TOKEN_TTL_SEC, SANDBOX_DELIVERY_ID_MODE (distinct | order | dispatch), LOG_LEVEL.
import { parseArgs } from 'node:util';
import { createLogger } from '../../web/ops/logger.ts';
import { DEFAULT_SANDBOX_APP, startSandboxCourier } from './courier.ts';
import type { DeliveryIdMode } from './types.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string' }, 'step-ms': { type: 'string' } },
  allowPositionals: false,
});

const env = process.env;
const int = (v: string | undefined, fallback: number, name: string): number => {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`${name} must be a non-negative integer`);
    process.exit(2);
  }
  return n;
};

const port = int(values.port ?? env.SANDBOX_PORT, 4010, 'port');
const host = values.host ?? env.SANDBOX_HOST ?? '127.0.0.1';
const stepIntervalMs = int(values['step-ms'] ?? env.SANDBOX_STEP_MS, 10_000, 'step interval');
const mode = (env.SANDBOX_DELIVERY_ID_MODE ?? 'distinct') as DeliveryIdMode;
if (!['distinct', 'order', 'dispatch'].includes(mode)) {
  console.error('SANDBOX_DELIVERY_ID_MODE must be distinct, order or dispatch');
  process.exit(2);
}
const clientSecret = env.SANDBOX_CLIENT_SECRET || DEFAULT_SANDBOX_APP.clientSecret;
const webhook = env.SANDBOX_WEBHOOK_URL ? { url: env.SANDBOX_WEBHOOK_URL, secret: env.SANDBOX_WEBHOOK_SECRET || 'sandbox-webhook-secret' } : null;
const app = {
  ...DEFAULT_SANDBOX_APP,
  clientId: env.SANDBOX_CLIENT_ID || DEFAULT_SANDBOX_APP.clientId,
  clientSecret,
  storeIds: env.SANDBOX_STORE_IDS ? env.SANDBOX_STORE_IDS.split(',').map((s) => s.trim()).filter(Boolean) : DEFAULT_SANDBOX_APP.storeIds,
  webhook,
};

const log = createLogger({ level: env.LOG_LEVEL ?? 'info', base: { component: 'sandbox-courier' } });
const sandbox = await startSandboxCourier({
  port, host, apps: [app], stepIntervalMs, deliveryIdMode: mode, log,
  ...(env.SANDBOX_TOKEN_TTL_SEC ? { tokenTtlSec: int(env.SANDBOX_TOKEN_TTL_SEC, 3600, 'SANDBOX_TOKEN_TTL_SEC') } : {}),
});

// Only the well-known default secret is printed in full; a configured one never is.
const shownSecret = clientSecret === DEFAULT_SANDBOX_APP.clientSecret ? clientSecret : '(from SANDBOX_CLIENT_SECRET)';
console.log(
  [
    `Sandbox courier listening on ${sandbox.url}`,
    `  base URL for the app:  ${sandbox.url}`,
    `  client id / secret:    ${app.clientId} / ${shownSecret}`,
    `  pickup stores:         ${app.storeIds.join(', ')}`,
    `  webhook endpoint:      ${webhook ? `${webhook.url} (secret ${webhook.secret === 'sandbox-webhook-secret' ? 'sandbox-webhook-secret' : 'from SANDBOX_WEBHOOK_SECRET'})` : 'none (PUT /_sandbox/apps/<clientId> with {"webhook":{"url","secret"}})'}`,
    `  status steps:          ${stepIntervalMs > 0 ? `every ${stepIntervalMs} ms` : 'on command only'}; delivery id mode: ${mode}`,
    '',
    'Control API (no auth, local use only):',
    '  GET  /_sandbox/state | /_sandbox/stats | /_sandbox/requests?route= | /_sandbox/webhooks',
    '  POST /_sandbox/reset | /_sandbox/webhooks/flush | /_sandbox/tokens/revoke | /_sandbox/clock {advanceMs}',
    '  GET|PATCH /_sandbox/settings        GET /_sandbox/apps   PUT|DELETE /_sandbox/apps/:clientId',
    '  GET|POST|DELETE /_sandbox/faults    {route, type: status|drop|drop_after_commit|latency, count, status, retryAfter, latencyMs}',
    '  GET /_sandbox/orders?reference=     GET /_sandbox/orders/:id   POST /_sandbox/orders/:id/advance {to|steps|outcome}',
    '  GET /_sandbox/references/:reference (orders created per reference)',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received; stopping the sandbox courier`);
  sandbox.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
