// The SQLite claim on real SQLite: jobs of one group enqueued in the same millisecond
// (same runAt and createdAt) start in insert order. Without the rowid tie-break, 16 of 20 such
// claims started another job first, and jobs.test.ts's fairness test saw A2 before A1 in CI.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { claimDue } from '../../web/jobs/sqlite-claim.ts';
import { sqliteTime } from '../../web/jobs/sqlite-sql.ts';
import { dropDatabase, freshDatabaseUrl, testProvider } from '../support/db.ts';

describe.runIf(testProvider() === 'sqlite')('SQLite job claim order', () => {
  const urls: string[] = [];
  afterEach(async () => {
    for (const u of urls.splice(0)) await dropDatabase(u);
  });

  it('takes tied jobs of a group in insert order', async () => {
    for (let trial = 0; trial < 10; trial++) {
      const url = await freshDatabaseUrl();
      urls.push(url);
      const db = new Database(url.slice('file:'.length));
      try {
        const insert = db.prepare(`INSERT INTO "Job" ("id", "queue", "payload", "state", "groupKey", "runAt", "attempts", "maxAttempts", "createdAt", "updatedAt") VALUES (?, 'q', ?, 'created', 'A', ?, 0, 12, ?, ?)`);
        const at = sqliteTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
        for (let n = 1; n <= 10; n++) insert.run(randomUUID(), JSON.stringify({ label: `A${n}` }), at, at, at);
        const now = Date.UTC(2026, 0, 2, 3, 5);
        const { rows: claimed } = claimDue((sql, args) => db.prepare(sql).raw(true).all(...args) as unknown[][], [{ name: 'q', groupConcurrency: null, limit: 3 }], now, 'owner', now);
        expect(claimed.map((r) => JSON.parse(r.payload).label).sort()).toEqual(['A1', 'A2', 'A3']);
      } finally {
        db.close();
      }
    }
  });
});
