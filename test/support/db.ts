// A fresh, migrated database for one test file, copied from the project's template.
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { openDatabase, type Database } from '../../web/db/client.ts';
import { adminPgUrl, pgUrlFor, TMP_DIR } from './paths.ts';

export const testProvider = (): 'sqlite' | 'postgres' => (process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite');

export async function freshDatabaseUrl(): Promise<string> {
  const template = inject('templateDatabaseUrl');
  const runId = inject('runId');
  const suffix = randomBytes(4).toString('hex');
  if (template.startsWith('file:')) {
    const file = join(TMP_DIR, `test-${runId}-${suffix}.db`);
    copyFileSync(template.slice('file:'.length), file);
    return `file:${file}`;
  }
  const name = `sdd_t_${runId}_${suffix}`;
  const admin = new pg.Client({ connectionString: adminPgUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${new URL(template).pathname.slice(1)}"`);
  } finally {
    await admin.end();
  }
  return pgUrlFor(name);
}

export async function dropDatabase(url: string): Promise<void> {
  if (url.startsWith('file:')) {
    for (const ext of ['', '-wal', '-shm']) rmSync(url.slice('file:'.length) + ext, { force: true });
    return;
  }
  const admin = new pg.Client({ connectionString: adminPgUrl() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function openTestDatabase(url: string): Promise<Database> {
  return openDatabase(url, { poolSize: 4 });
}

/** A fresh, migrated database for the tests of the file (or describe block) that calls it: opened before them, dropped after. */
export function useFreshDatabase(): { readonly database: Database } {
  const held = {} as { database: Database; url: string };
  beforeAll(async () => {
    held.url = await freshDatabaseUrl();
    held.database = await openTestDatabase(held.url);
  });
  afterAll(async () => {
    await held.database?.close();
    if (held.url) await dropDatabase(held.url);
  });
  return held;
}
