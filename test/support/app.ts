// The real app, in-process, on an ephemeral 127.0.0.1 port, over a fresh
// database, with its log lines captured for assertions.
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { loadConfig, type AppConfig } from '../../web/config/env.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { startServer, type RunningServer } from '../../web/server.ts';
import { routeToShopSimulator } from '../../dev/shop-sim/route.ts';
import type { Db } from '../../web/db/client.ts';
import type { AppContext } from '../../web/context.ts';
import type { RuntimeOptions } from '../../web/runtime.ts';
import { dropDatabase, freshDatabaseUrl } from './db.ts';

export const TEST_API_KEY = 'test-api-key';
export const TEST_API_SECRET = 'test-api-secret-0123456789';

export interface TestApp {
  url: string;
  config: AppConfig;
  /** The environment the app was started with (share ENCRYPTION_KEY with a second instance or the CLI). */
  env: Record<string, string>;
  db: Db;
  ctx: AppContext;
  server: RunningServer;
  logs: string[];
  close(): Promise<void>;
}

/** Fast retries so failure paths finish within a test's time. */
export const FAST_RUNTIME: Partial<RuntimeOptions> = {
  courier: { retry: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 }, requestTimeoutMs: 5_000 },
  // Creates are retried by the dispatch job alone (web/retry/budget.ts): enough attempts for the fault storms in dispatch.test.ts.
  dispatchRetry: { maxAttempts: 6, baseDelayMs: 50, maxDelayMs: 500 },
  queue: { pollIntervalMs: 50 },
  // A create with no answer is looked up by reference after this long (web/dispatch/booking.ts).
  inFlightMs: 1_000,
  // Budget waits on a 50 ms grid, not the second's (web/shopify/pacer.ts PACE_TICK_MS): timings scaled down as above.
  paceTickMs: 50,
};

/** Running test apps by URL: postShopifyWebhook waits for their inbox to process what it sent. */
export const runningApps = new Map<string, AppContext>();

export async function startTestApp(
  env: Record<string, string> = {},
  opts: { databaseUrl?: string; keepDatabase?: boolean; runtime?: Partial<RuntimeOptions> } = {},
): Promise<TestApp> {
  const databaseUrl = opts.databaseUrl ?? (await freshDatabaseUrl());
  const appEnv: Record<string, string> = {
    NODE_ENV: 'test',
    SHOPIFY_API_KEY: TEST_API_KEY,
    SHOPIFY_API_SECRET: TEST_API_SECRET,
    SHOPIFY_APP_URL: 'https://app.example.test',
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'debug',
    ...env,
  };
  const config = loadConfig(appEnv);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const log = createLogger({ level: config.logLevel, destination: sink });
  // As `npm run dev` (dev/start.ts) does: the product itself never routes to the simulator.
  routeToShopSimulator(config, log);
  // Many apps share a test worker's heap: a full collection per start would only slow the suite.
  const server = await startServer(config, { log, host: '127.0.0.1', releaseStartupMemory: false, runtime: { ...FAST_RUNTIME, ...opts.runtime } });
  await server.ready;
  const services = server.services()!;
  runningApps.set(server.url, services.ctx);
  return {
    url: server.url,
    config,
    env: appEnv,
    // Through the app's own client: personal data fields read decrypted (services.database.db shows them at rest).
    db: services.ctx.db,
    ctx: services.ctx,
    server,
    logs,
    async close() {
      runningApps.delete(server.url);
      await server.close();
      if (!opts.keepDatabase) await dropDatabase(databaseUrl);
    },
  };
}
