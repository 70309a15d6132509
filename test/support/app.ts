// The real app, in-process, on an ephemeral 127.0.0.1 port, over a fresh
// database, with its log lines captured for assertions.
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { loadConfig, type AppConfig } from '../../web/config/env.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { startServer, type RunningServer } from '../../web/server.ts';
import type { Db } from '../../web/db/client.ts';
import { dropDatabase, freshDatabaseUrl } from './db.ts';

export const TEST_API_KEY = 'test-api-key';
export const TEST_API_SECRET = 'test-api-secret-0123456789';

export interface TestApp {
  url: string;
  config: AppConfig;
  db: Db;
  server: RunningServer;
  logs: string[];
  close(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, opts: { databaseUrl?: string; keepDatabase?: boolean } = {}): Promise<TestApp> {
  const databaseUrl = opts.databaseUrl ?? (await freshDatabaseUrl());
  const config = loadConfig({
    NODE_ENV: 'test',
    SHOPIFY_API_KEY: TEST_API_KEY,
    SHOPIFY_API_SECRET: TEST_API_SECRET,
    SHOPIFY_APP_URL: 'https://app.example.test',
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'debug',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const log = createLogger({ level: config.logLevel, destination: sink });
  const server = await startServer(config, { log, host: '127.0.0.1' });
  await server.ready;
  const services = server.services()!;
  return {
    url: server.url,
    config,
    db: services.database.db,
    server,
    logs,
    async close() {
      await server.close();
      if (!opts.keepDatabase) await dropDatabase(databaseUrl);
    },
  };
}
