// On SQLite the operator CLI writes beside the app: two processes, one file.
// A transaction that reads, then writes after another process committed, must
// not fail with "database is locked" (SQLITE_BUSY_SNAPSHOT); web/db/client.ts
// begins transactions IMMEDIATE so the other writer waits instead.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import type { Database } from '../../web/db/client.ts';
import { scratchDatabase } from '../support/scratch-db.ts';

let scratch: { url: string; drop(): Promise<void> };
let database: Database;
beforeAll(async () => {
  scratch = (await scratchDatabase('sqlite'))!;
  ({ database } = await openMigratedDatabase(scratch.url));
  await database.db.shop.create({ data: { domain: 'locked.myshopify.com' } });
});
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
});

/** Another process that writes the shop row when told to, then reports. */
function otherWriter(file: string) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require('better-sqlite3');
       const db = new Database(process.argv[1], { timeout: 10000 });
       process.stdin.once('data', () => {
         db.prepare("UPDATE Shop SET settings = '{\\"by\\":\\"other\\"}' WHERE domain = 'locked.myshopify.com'").run();
         process.stdout.write('committed\\n');
         db.close();
         process.exit(0);
       });
       process.stdout.write('ready\\n');`,
      file,
    ],
    { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  const seen = (word: string) => new Promise<void>((r) => child.stdout!.on('data', (d) => ((out += d), out.includes(word) && r())));
  return { child, ready: seen('ready'), committed: seen('committed'), exited: new Promise<number | null>((r) => child.on('exit', r)) };
}

it("a read-then-write transaction survives another process's commit in between", async () => {
  const other = otherWriter(scratch.url.slice('file:'.length));
  await other.ready;
  await database.db.$transaction(
    async (tx) => {
      await tx.shop.findUniqueOrThrow({ where: { domain: 'locked.myshopify.com' } });
      other.child.stdin!.write('go\n');
      // Give the other process time to commit if it can (it cannot while we hold the write lock).
      await Promise.race([other.committed, new Promise((r) => setTimeout(r, 500))]);
      await tx.shop.update({ where: { domain: 'locked.myshopify.com' }, data: { settings: '{"by":"us"}' } });
    },
    { timeout: 15_000 },
  );
  expect(await other.exited).toBe(0);
  // Both writes happened, in lock order: ours first, then the other process's.
  expect((await database.db.shop.findUniqueOrThrow({ where: { domain: 'locked.myshopify.com' } })).settings).toBe('{"by":"other"}');
});
