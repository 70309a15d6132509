// web/db/sqlite-checkpointer.ts on a real SQLite file: the WAL is copied into the database file by the
// worker thread (the app's connection checkpoints only at its far backstop), the worker runs only while
// the file is written, and close() ends it so the last connection can remove the WAL.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../web/db/client.ts';
import { BACKSTOP_PAGES, startCheckpointer } from '../../web/db/sqlite-checkpointer.ts';
import { dropDatabase, freshDatabaseUrl, testProvider } from '../support/db.ts';

const quick = { watchMs: 50, everyMs: 50, idleMs: 400 };
const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe.runIf(testProvider() === 'sqlite')('SQLite checkpoints in a worker thread', () => {
  const open: Array<{ database: Database; url: string }> = [];
  afterEach(async () => {
    for (const { database, url } of open.splice(0)) {
      await database.close();
      await dropDatabase(url);
    }
  });

  async function opened(errors: unknown[] = []) {
    const url = await freshDatabaseUrl();
    const database = await openDatabase(url, { backgroundCheckpoints: { ...quick, onError: (e) => errors.push(e) } });
    open.push({ database, url });
    const file = database.target.provider === 'sqlite' ? database.target.file : '';
    return { database, file, url };
  }

  /** ~1,000 pages of new rows, far below the app connection's own checkpoint threshold. */
  async function write(database: Database, tag: string) {
    for (let i = 0; i < 400; i++) {
      await database.execute(`INSERT INTO "Shop" ("id", "domain", "settings", "updatedAt") VALUES (?, ?, ?, ?)`,
        [`${tag}-${i}`, `${tag}-${i}.myshopify.com`, 'x'.repeat(8_000), '2026-12-01T00:00:00.000+00:00']);
    }
  }

  it("copies the WAL into the database file from the worker, not from the app's commits", async () => {
    const errors: unknown[] = [];
    const { database, file } = await opened(errors);
    const rows = await database.db.$queryRawUnsafe<Array<{ wal_autocheckpoint: bigint | number }>>('PRAGMA wal_autocheckpoint');
    expect(Number(rows[0]!.wal_autocheckpoint)).toBe(BACKSTOP_PAGES);
    const before = statSync(file).size;
    await write(database, 'copied');
    // 400 rows of 8 KB: ~1,200 pages in the WAL, which the app's connection would not checkpoint before 16,000.
    await until('the database file to hold the new pages', () => statSync(file).size > before + 3_000_000);
    expect(errors).toEqual([]);
  });

  it('runs only while the file is written: the worker ends after a quiet spell and starts again with new writes', async () => {
    const url = await freshDatabaseUrl();
    const database = await openDatabase(url);
    open.push({ database, url });
    const checkpointer = startCheckpointer(database.target.provider === 'sqlite' ? database.target.file : '', quick);
    try {
      await write(database, 'first');
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
    // A WAL whose database file is gone: the worker cannot open it.
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    const file = join(dir, 'missing.db');
    writeFileSync(`${file}-wal`, 'x');
    const errors: unknown[] = [];
    const checkpointer = startCheckpointer(file, { ...quick, retryMs: 60_000, onError: (e) => errors.push(e) });
    try {
      await until('the failure to be reported', () => errors.length > 0);
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 60));
        writeFileSync(`${file}-wal`, `x${i}`);
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/missing\.db|unable to open|SQLITE_CANTOPEN|does not exist/i);
    } finally {
      await checkpointer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() ends the worker, so the last connection checkpoints and removes the WAL', async () => {
    const url = await freshDatabaseUrl();
    const database = await openDatabase(url, { backgroundCheckpoints: { ...quick, idleMs: 60_000 } });
    const file = database.target.provider === 'sqlite' ? database.target.file : '';
    await write(database, 'closing');
    // The worker has started (the watch reads the WAL every 50 ms) and stays: a quiet spell of a minute.
    await new Promise((r) => setTimeout(r, 300));
    await database.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    await dropDatabase(url);
  });
});
