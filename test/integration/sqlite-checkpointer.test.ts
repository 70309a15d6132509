// web/db/sqlite-checkpointer.ts on a real SQLite file: while the app writes, a worker thread copies the
// WAL into the database file and the app's connection checkpoints only at its far backstop; the worker
// ends when the writes stop (an idle app holds no second thread), and close() ends it so the last
// connection can remove the WAL.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../web/db/client.ts';
import { BACKSTOP_PAGES, DEFAULT_PAGES, startCheckpointer, type AppConnection } from '../../web/db/sqlite-checkpointer.ts';
import { dropDatabase, freshDatabaseUrl, testProvider } from '../support/db.ts';

const quick = { watchMs: 50, busyChanges: 20, everyMs: 50, idleMs: 400 };
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
const fileOf = (database: Database) => (database.target.provider === 'sqlite' ? database.target.file : '');
const autocheckpoint = async (database: Database) =>
  Number((await database.db.$queryRawUnsafe<Array<{ wal_autocheckpoint: bigint | number }>>('PRAGMA wal_autocheckpoint'))[0]!.wal_autocheckpoint);

/** What the checkpointer reads of a connection, from the test's own database. */
const connectionOf = (database: Database): AppConnection => ({
  changes: () => database.sqliteLocked!((q) => Number(q('SELECT total_changes()', [])[0]![0])),
  autocheckpoint: async () => {},
});

describe.runIf(testProvider() === 'sqlite')('SQLite checkpoints in a worker thread', () => {
  const open: Array<{ database: Database; url: string }> = [];
  afterEach(async () => {
    for (const { database, url } of open.splice(0)) {
      await database.close();
      await dropDatabase(url);
    }
  });

  async function opened(errors: unknown[] = [], background = true) {
    const url = await freshDatabaseUrl();
    const database = await openDatabase(url, background ? { backgroundCheckpoints: { ...quick, onError: (e) => errors.push(e) } } : {});
    open.push({ database, url });
    return database;
  }

  /** Rows of 6 KB, a few at a time as a sale writes them: ~650 pages, below SQLite's own threshold. */
  async function write(database: Database, tag: string, rows = 220) {
    for (let i = 0; i < rows; i++) {
      await database.execute(`INSERT INTO "Shop" ("id", "domain", "settings", "updatedAt") VALUES (?, ?, ?, ?)`,
        [`${tag}-${i}`, `${tag}-${i}.myshopify.com`, 'x'.repeat(6_000), '2026-12-01T00:00:00.000+00:00']);
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("while the app writes, the worker copies the WAL into the database file and the app's connection checkpoints only at the backstop", async () => {
    const errors: unknown[] = [];
    const database = await opened(errors);
    const file = fileOf(database);
    expect(await autocheckpoint(database)).toBe(DEFAULT_PAGES);
    const before = statSync(file).size;
    await write(database, 'copied');
    expect(await autocheckpoint(database)).toBe(BACKSTOP_PAGES);
    await until('the database file to hold the new pages', () => statSync(file).size > before + 1_000_000);
    // Writes stopped: the worker ends and the connection checkpoints itself again.
    await until("SQLite's own threshold back", async () => (await autocheckpoint(database)) === DEFAULT_PAGES);
    expect(errors).toEqual([]);
  });

  it('a few writes now and then (an idle app) start no worker; a burst does, and it ends after a quiet spell', async () => {
    const database = await opened([], false);
    const checkpointer = startCheckpointer(fileOf(database), connectionOf(database), quick);
    try {
      for (let i = 0; i < 6; i++) {
        await write(database, `idle-${i}`, 3);
        await new Promise((r) => setTimeout(r, 60));
        expect(checkpointer.running).toBe(false);
      }
      await write(database, 'burst');
      await until('the worker to start', () => checkpointer.running);
      await until('the worker to end when nothing is written', () => !checkpointer.running);
      await write(database, 'again');
      await until('the worker to start again', () => checkpointer.running);
    } finally {
      await checkpointer.close();
    }
    expect(checkpointer.running).toBe(false);
  });

  it('a worker that fails is reported once and not started again within the retry spell', async () => {
    // A database file that is gone: the worker cannot open it.
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    let changes = 0;
    const errors: unknown[] = [];
    const checkpointer = startCheckpointer(join(dir, 'missing.db'), { changes: async () => (changes += 100), autocheckpoint: async () => {} }, {
      ...quick, retryMs: 60_000, onError: (e) => errors.push(e),
    });
    try {
      await until('the failure to be reported', () => errors.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/unable to open|SQLITE_CANTOPEN|does not exist/i);
    } finally {
      await checkpointer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() ends the worker (its thread is gone), so the last connection checkpoints and removes the WAL', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const url = await freshDatabaseUrl();
    const database = await openDatabase(url, { backgroundCheckpoints: { ...quick, idleMs: 60_000 } });
    const file = fileOf(database);
    const before = threads();
    await write(database, 'closing');
    await until('the worker to start', async () => (await autocheckpoint(database)) === BACKSTOP_PAGES);
    await until("the worker's thread", () => threads() > before);
    await database.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    await until("the worker's thread to end", () => threads() <= before, 3_000);
    await dropDatabase(url);
  });
});
