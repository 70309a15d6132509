// Process lifecycle: listen at once (health probes answer during start-up),
// migrate the database with retries, then serve the full app. close() stops
// accepting, lets in-flight requests finish, and closes the database.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { AppConfig } from './config/env.ts';
import { openDatabase, type Database } from './db/client.ts';
import { migrateDatabase, pendingMigrations } from './db/migrate.ts';
import { redactDatabaseUrl } from './db/url.ts';
import { createSessionStorage } from './db/session-storage.ts';
import { createLogger, type Logger } from './ops/logger.ts';
import type { Readiness } from './ops/health.ts';
import { SecretBox } from './security/crypto.ts';
import { loadOrCreateDevKey } from './security/dev-key.ts';
import { createShopify, type Shopify } from './shopify/app.ts';
import { recordInstall } from './shopify/lifecycle.ts';
import { buildApp, buildStartupApp } from './app.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Resolves when the full app serves (migrations applied). */
  ready: Promise<void>;
  services(): { database: Database; shopify: Shopify; box: SecretBox } | null;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** Default 127.0.0.1 in tests; 0.0.0.0 (all interfaces) otherwise. */
  host?: string;
  migrationRetryMs?: { initial: number; max: number };
}

export function encryptionBox(config: AppConfig, log: Logger): SecretBox {
  if (config.encryptionKeys) return new SecretBox(config.encryptionKeys);
  const dev = loadOrCreateDevKey();
  log.warn(
    { file: dev.file },
    dev.created
      ? 'ENCRYPTION_KEY is not set: generated a development key and saved it (development only)'
      : 'ENCRYPTION_KEY is not set: using the saved development key (development only)',
  );
  return new SecretBox([dev.key]);
}

export async function startServer(config: AppConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger({ level: config.logLevel });
  const box = encryptionBox(config, log);
  if (config.shopify.placeholders) log.warn('SHOPIFY_API_KEY/SHOPIFY_API_SECRET are not set: using development placeholders');

  const readiness: Readiness = { db: null, migrated: false, problem: null };
  let handler: Express = buildStartupApp(log, readiness);
  const server: Server = createServer((req, res) => handler(req, res));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  log.info({ port, database: redactDatabaseUrl(config.databaseUrl) }, 'listening');

  let closing = false;
  let database: Database | null = null;
  let shopify: Shopify | null = null;

  const ready = (async () => {
    database = await openDatabase(config.databaseUrl);
    readiness.db = database.db;
    const retry = opts.migrationRetryMs ?? { initial: 1_000, max: 30_000 };
    for (let delay = retry.initial; !closing; delay = Math.min(delay * 2, retry.max)) {
      try {
        const pending = await pendingMigrations(database.db, database.provider);
        let applied: string[] = [];
        if (pending.length && database.provider === 'sqlite') {
          // Our own open connection would hold the file's lock against the CLI.
          await database.close();
          try {
            ({ applied } = await migrateDatabase(config.databaseUrl));
          } finally {
            database = await openDatabase(config.databaseUrl);
            readiness.db = database.db;
          }
        } else if (pending.length) ({ applied } = await migrateDatabase(config.databaseUrl));
        log.info({ applied }, applied.length ? 'database migrations applied' : 'database schema is up to date');
        break;
      } catch (e) {
        readiness.problem = `database not ready: ${(e as Error).message}`;
        log.error({ retryInMs: delay }, readiness.problem);
        await sleep(delay);
      }
    }
    if (closing) return;
    const db = database.db;
    const sessionStorage = createSessionStorage(db, box);
    // The storage polls for its table on construction; settle that before serving
    // so a shutdown right after start-up cannot leave the poll failing unhandled.
    if (!(await sessionStorage.isReady())) throw new Error('the Session table is missing after migration');
    shopify = createShopify(config, sessionStorage, log, (session) => recordInstall(db, session));
    handler = buildApp({ config, log, db, shopify, readiness });
    readiness.migrated = true;
    readiness.problem = null;
    log.info('ready');
  })();
  ready.catch((e) => log.error({ err: e }, 'start-up failed'));

  return {
    url,
    port,
    ready,
    services: () => (database && shopify ? { database, shopify, box } : null),
    async close() {
      if (closing) return;
      closing = true;
      log.info('shutting down: no new requests, finishing in-flight work');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await ready.catch(() => {});
      await database?.close();
      log.info('shut down cleanly');
      log.flush();
    },
  };
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
