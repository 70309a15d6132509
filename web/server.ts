// Process lifecycle: listen at once (health probes answer during start-up),
// migrate the database with retries, then serve the full app. close() stops
// accepting, lets in-flight requests finish, and closes the database.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from './config/env.ts';
import type { Database } from './db/client.ts';
import { openMigratedDatabase } from './db/migrate.ts';
import { redactDatabaseUrl } from './db/url.ts';
import { createLogger, type Logger } from './ops/logger.ts';
import type { Readiness } from './ops/health.ts';
import type { SecretBox } from './security/crypto.ts';
import type { Shopify } from './shopify/app.ts';
import type { AppContext } from './context.ts';
import { checkEncryptionKeys } from './db/key-check.ts';
import { createRuntime, encryptionBox, type Runtime, type RuntimeOptions } from './runtime.ts';
import { buildHandler, buildStartupApp } from './app.ts';
import { releaseStartupMemory } from './ops/memory.ts';
import { errorMessage } from './ops/errors.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Resolves when the full app serves (migrations applied). */
  ready: Promise<void>;
  services(): { database: Database; shopify: Shopify; box: SecretBox; ctx: AppContext } | null;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** Default config.host: HOST, else 127.0.0.1 outside production and all interfaces in production. */
  host?: string;
  migrationRetryMs?: { initial: number; max: number };
  runtime?: Partial<RuntimeOptions>;
  /** One full garbage collection before ready (default true; web/ops/memory.ts). */
  releaseStartupMemory?: boolean;
}

export async function startServer(config: AppConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger({ level: config.logLevel });
  const box = encryptionBox(config, log);
  if (config.shopify.placeholders) log.warn('SHOPIFY_API_KEY/SHOPIFY_API_SECRET are not set: using development placeholders');
  // Only the development entry point (dev/start.ts, `npm run dev`) routes Shopify traffic to the simulator.
  if (config.shopSimulatorUrl && !(globalThis as Record<symbol, unknown>)[Symbol.for('same-day-dispatch.shopSimulatorRouted')]) {
    log.warn('SHOP_SIMULATOR_URL is set but ignored: this entry point talks to Shopify. Run `npm run dev` to use the shop simulator');
  }

  const readiness: Readiness = { db: null, migrated: false, problem: null };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = buildStartupApp(config, log, readiness);
  const server: Server = createServer((req, res) => handler(req, res));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, opts.host ?? config.host ?? undefined, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  log.info({ port, host: opts.host ?? config.host ?? 'all interfaces', appUrl: config.shopify.appUrl, database: redactDatabaseUrl(config.databaseUrl) }, 'listening');

  let closing = false;
  let database: Database | null = null;
  let runtime: Runtime | null = null;

  const ready = (async () => {
    const retry = opts.migrationRetryMs ?? { initial: 1_000, max: 30_000 };
    for (let delay = retry.initial; !closing; delay = Math.min(delay * 2, retry.max)) {
      try {
        let applied: string[];
        // SQLite: the WAL's checkpoints in a worker thread, off the thread that answers webhooks.
        ({ database, applied } = await openMigratedDatabase(config.databaseUrl, {
          backgroundCheckpoints: { onError: (e) => log.warn({ err: errorMessage(e) }, 'the SQLite checkpoint worker failed; the connection checkpoints itself meanwhile') },
        }));
        readiness.db = database.db;
        log.info({ applied }, applied.length ? 'database migrations applied' : 'database schema is up to date');
        break;
      } catch (e) {
        readiness.problem = `database not ready: ${(e as Error).message}`;
        log.error({ retryInMs: delay }, readiness.problem);
        await sleep(delay);
      }
    }
    if (closing || !database) return;
    const keys = await checkEncryptionKeys(database.db, box);
    // With the wrong key, jobs would only turn orders into NEEDS_ATTENTION: they wait for a restart with the right one.
    runtime = await createRuntime(config, log, database, box, { workers: true, ...opts.runtime, ...(keys.ok ? {} : { workers: false }) });
    handler = buildHandler({ ctx: runtime.ctx, shopify: runtime.shopify, readiness });
    // Start-up's garbage given back before ready (web/ops/memory.ts), not ten idle seconds later.
    if (opts.releaseStartupMemory !== false) log.info({ memory: releaseStartupMemory() }, 'start-up memory released');
    readiness.migrated = true;
    readiness.problem = keys.ok ? null : keys.reason;
    if (keys.ok) log.info({ keyId: box.currentKeyId }, 'ready');
    else log.error({ missingKeyIds: keys.missingKeyIds, keyIds: box.keyIds, unreadable: keys.unreadable }, `not ready: ${keys.reason}`);
  })();
  ready.catch((e) => log.error({ err: e }, 'start-up failed'));

  return {
    url,
    port,
    ready,
    services: () => (database && runtime ? { database, shopify: runtime.shopify, box, ctx: runtime.ctx } : null),
    async close() {
      if (closing) return;
      closing = true;
      log.info('shutting down: no new requests, finishing in-flight work');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await ready.catch(() => {});
      // In-flight jobs finish (bounded) before the database closes.
      await runtime?.close();
      await database?.close();
      log.info('shut down cleanly');
      log.flush();
    },
  };
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
