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

/** How long dropDatabase waits for a closed app's connections to leave (web/db/client.ts bounds its own close at 5 s). */
const CLOSE_WAIT_MS = 6_000;

/** `waitForClose: false`: the caller left a connection open on purpose (db-close.test.ts); FORCE ends it at once. */
export async function dropDatabase(url: string, opts: { waitForClose?: boolean } = {}): Promise<void> {
  if (url.startsWith('file:')) {
    for (const ext of ['', '-wal', '-shm']) rmSync(url.slice('file:'.length) + ext, { force: true });
    return;
  }
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminPgUrl() });
  await admin.connect();
  try {
    // FORCE ends whatever is still connected, and a connection of ours ended that way fails its
    // owner's next query (57P01), outside any test. So first give a closing app's pools time to go,
    // and name what stayed: that is a leak to find, not to hide.
    const left = async () =>
      (await admin.query<{ who: string }>(`SELECT coalesce(nullif(application_name, ''), '(unnamed)') || ' ' || coalesce(state, '?') || ' ' || left(query, 200) AS who FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name])).rows.map((r) => r.who);
    let still = await left();
    for (const until = Date.now() + (opts.waitForClose === false ? 0 : CLOSE_WAIT_MS); still.length && Date.now() < until; still = await left()) await new Promise((r) => setTimeout(r, 100));
    if (still.length && opts.waitForClose !== false) console.warn(`dropDatabase ${name}: ${still.length} connection(s) still open after ${CLOSE_WAIT_MS} ms, ended by FORCE: ${still.join(', ')}`);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
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
