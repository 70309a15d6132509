// Once per test project: migrate a template database with the committed
// migrations (the real `prisma migrate deploy`). Each test file then copies it
// (test/support/db.ts), which is much faster than migrating per file.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrateDatabase } from '../../web/db/migrate.ts';
import { adminPgUrl, pgUrlFor, TMP_DIR } from './paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabaseUrl: string;
    runId: string;
  }
}

export default async function setup(project: TestProject) {
  const provider = process.env.TEST_DB ?? project.config.env?.TEST_DB;
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  project.provide('runId', runId);
  mkdirSync(TMP_DIR, { recursive: true });

  if (provider === 'sqlite') {
    const file = join(TMP_DIR, `template-${runId}.db`);
    await migrateDatabase(`file:${file}`);
    project.provide('templateDatabaseUrl', `file:${file}`);
    return () => rmSync(file, { force: true });
  }

  if (provider === 'postgres') {
    const admin = new pg.Client({ connectionString: adminPgUrl() });
    try {
      await admin.connect();
    } catch (e) {
      throw new Error(
        `PostgreSQL tests need a server at ${adminPgUrl()} (set TEST_POSTGRES_URL): ${(e as Error).message}. ` +
          'Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
      );
    }
    const template = `sdd_tmpl_${runId}`;
    await admin.query(`CREATE DATABASE "${template}"`);
    await migrateDatabase(pgUrlFor(template));
    project.provide('templateDatabaseUrl', pgUrlFor(template));
    return async () => {
      const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`sdd_%${runId}%`]);
      for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
      await admin.end();
    };
  }
  throw new Error(`TEST_DB must be sqlite or postgres, got ${provider}`);
}
