// The inbox worker (web/inbox/worker.ts) on a real database, driven on its own:
// how it paces its batches while webhooks arrive.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { dbTime } from '../../web/db/raw-sql.ts';
import { insertSql } from '../../web/inbox/sql.ts';
import { InboxWorker, pauseAfterBatchMs } from '../../web/inbox/worker.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { SecretBox } from '../../web/security/crypto.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase } from '../support/db.ts';

let url: string;
let database: Database;
const box = new SecretBox([randomBytes(32)]);
const log = createLogger({ level: 'silent' });

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
});
afterAll(async () => {
  await database?.close();
  await dropDatabase(url);
});

describe('pauseAfterBatchMs', () => {
  it.each([
    [5, false, null],
    [5, true, 10],
    [99, true, 198],
    [150, true, 200],
  ])('a batch of %i ms, intake busy %s: pause %s', (took, busy, pause) => {
    expect(pauseAfterBatchMs(took, busy)).toBe(pause);
  });
});

describe('InboxWorker', () => {
  it("asks intake-first whether webhooks are arriving after every batch it claimed (one rule for both routes' arrivals)", async () => {
    const now = Date.now();
    for (const key of ['pace-1', 'pace-2', 'pace-3']) {
      await database.execute(insertSql(database.provider), ['shopify', key, 'NO_HANDLER_TOPIC', 'pace.myshopify.com', box.encrypt('{"id":1}'), dbTime(database.provider, now), dbTime(database.provider, now)]);
    }
    let asked = 0;
    const intake = {
      get busy() {
        asked++;
        return true;
      },
    };
    const worker = new InboxWorker({ db: database.db, database, box, log, now: () => Date.now(), intake }, {}, { batchSize: 1, pollIntervalMs: 60_000 });
    worker.start();
    await worker.idle();
    await worker.stop();
    const rows = await database.db.webhookInbox.findMany({ where: { key: { startsWith: 'pace-' } }, select: { state: true } });
    expect(rows.map((r) => r.state)).toEqual(['done', 'done', 'done']);
    // Three batches of one row each; the fourth claims nothing and ends the pass.
    expect(asked).toBe(3);
  });
});
