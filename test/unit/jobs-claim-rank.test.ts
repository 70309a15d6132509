// The SQLite claim (web/jobs/sqlite-claim.ts claimDue) against the rule it implements (queue.ts
// guarantee 9), written out in plain code: rank every due job, take the lowest. The claim ranks
// only a few candidates found through an index; on 300 random backlogs in real SQLite it must take
// the same jobs as ranking them all.
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimDue, claimOrder, type Candidate } from '../../web/jobs/sqlite-claim.ts';
import { sqliteTime } from '../../web/jobs/sqlite-sql.ts';
import { ROOT } from '../support/paths.ts';

interface Sqlite { prepare(sql: string): { run(...a: unknown[]): unknown; all(...a: unknown[]): unknown[]; raw(on: boolean): { all(...a: unknown[]): unknown[][] } }; exec(sql: string): void }
const Database = createRequire(import.meta.url)('better-sqlite3') as new (f: string) => Sqlite;
const MIGRATIONS = join(ROOT, 'prisma/sqlite/migrations');
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

interface Row { id: string; seq: number; state: string; group: string | null; key: string | null; runAt: number }

function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function backlog(rnd: () => number): Row[] {
  const n = 5 + Math.floor(rnd() * 150);
  return Array.from({ length: n }, (_, i) => {
    const r = rnd();
    return {
      id: `j${i}`,
      seq: i + 1,
      state: r < 0.55 ? 'created' : r < 0.7 ? 'retry' : r < 0.85 ? 'active' : 'completed',
      group: rnd() < 0.25 ? null : `g${Math.floor(rnd() * 5)}`,
      key: rnd() < 0.3 ? `k${Math.floor(rnd() * 6)}` : null,
      // Distinct times: ties are broken by insert order in both, tested in jobs.test.ts.
      runAt: NOW - 3_000_000 + Math.floor(rnd() * 4_000) * 1_000 + i,
    };
  });
}

/** The rule: due (time, ordering key at its head), ranked by the group's running jobs plus place in the group's due jobs. */
function expected(rows: Row[], gc: number | null, limit: number): string[] {
  const live = (r: Row) => ['created', 'retry', 'active'].includes(r.state);
  const due = rows.filter((r) => ['created', 'retry'].includes(r.state) && r.runAt <= NOW
    && (r.key === null || !rows.some((o) => o !== r && o.key === r.key && live(o) && (o.state === 'active' || o.seq < r.seq))));
  const byTime = (a: Row, b: Row) => a.runAt - b.runAt || a.seq - b.seq;
  const ranked = due.map((r) => {
    const running = r.group === null ? 0 : rows.filter((o) => o.group === r.group && o.state === 'active').length;
    const place = r.group === null ? 1 : due.filter((o) => o.group === r.group).sort(byTime).indexOf(r) + 1;
    return { r, rank: running + place };
  });
  return ranked.filter((x) => gc === null || x.rank <= gc).sort((a, b) => a.rank - b.rank || byTime(a.r, b.r)).slice(0, limit).map((x) => x.r.id).sort();
}

let db: Sqlite | undefined;
/** claimDue's query, on this file's database. */
const query = (sql: string, args: unknown[]) => db!.prepare(sql).raw(true).all(...args);
function claimed(rows: Row[], gc: number | null, limit: number): string[] {
  if (!db) {
    db = new Database(':memory:');
    for (const m of readdirSync(MIGRATIONS).filter((d) => /^\d/.test(d)).sort()) db.exec(readFileSync(join(MIGRATIONS, m, 'migration.sql'), 'utf8'));
  }
  db.exec('DELETE FROM "Job"');
  const insert = db.prepare(`INSERT INTO "Job" ("id", "queue", "payload", "state", "orderingKey", "groupKey", "runAt", "maxAttempts", "createdAt", "updatedAt") VALUES (?, 'q', '{}', ?, ?, ?, ?, 5, ?, ?)`);
  for (const r of rows) insert.run(r.id, r.state, r.key, r.group, sqliteTime(r.runAt), sqliteTime(NOW - 10_000 + r.seq), sqliteTime(NOW));
  const { rows: out } = claimDue(query, [{ name: 'q', groupConcurrency: gc, limit }], NOW, 'me', NOW + 60_000);
  return out.map((r) => r.id).sort();
}

describe('the SQLite claim takes what ranking every due job would take', () => {
  it('on 300 random backlogs (groups, ordering keys, states, due times; share 1–3 or none; 1–8 free slots)', () => {
    const rnd = random(20261128);
    let claimedSome = 0;
    for (let i = 0; i < 300; i++) {
      const rows = backlog(rnd);
      const gc = rnd() < 0.3 ? null : 1 + Math.floor(rnd() * 3);
      const limit = 1 + Math.floor(rnd() * 8);
      const want = expected(rows, gc, limit);
      expect(claimed(rows, gc, limit), `backlog ${i}: share ${gc}, ${limit} free`).toEqual(want);
      if (want.length) claimedSome++;
    }
    expect(claimedSome).toBeGreaterThan(200);
  });

  it("a group's jobs past the n oldest are never needed: 150 due in one group, n = 2, share 3 with one running", () => {
    const rows: Row[] = [
      { id: 'run', seq: 1, state: 'active', group: 'a', key: null, runAt: NOW - 9_000 },
      ...Array.from({ length: 150 }, (_, i) => ({ id: `a${i}`, seq: i + 2, state: 'created', group: 'a', key: null, runAt: NOW - 8_000 + i })),
      { id: 'u', seq: 200, state: 'created', group: null, key: null, runAt: NOW - 1 },
    ];
    expect(claimed(rows, 3, 2)).toEqual(['a0', 'u']);
    expect(expected(rows, 3, 2)).toEqual(['a0', 'u']);
  });
});

describe('claimOrder (the ranking, pure)', () => {
  const c = (id: string, group: string | null, runAt: string, seq: number, createdAt = runAt): Candidate => ({ id, group, runAt, createdAt, seq });
  const ids = (xs: Candidate[]) => xs.map((x) => x.id);

  it.each([
    // [what, candidates, running, share, limit, taken in order]
    ['a group with nothing running before the second job of a busy one', [c('a1', 'a', 't1', 1), c('a2', 'a', 't2', 2), c('b1', 'b', 't3', 3)], [], null, 2, ['a1', 'b1']],
    ['running jobs count towards the rank', [c('a1', 'a', 't1', 1), c('b1', 'b', 't3', 3)], [['a', 1]], null, 1, ['b1']],
    ['none over the share', [c('a1', 'a', 't1', 1), c('a2', 'a', 't2', 2)], [['a', 1]], 2, 5, ['a1']],
    ['a job without a group ranks 1', [c('u', null, 't9', 9), c('a1', 'a', 't1', 1)], [['a', 2]], null, 1, ['u']],
    ['oldest first among equal ranks; same time: insert order', [c('y', null, 't1', 2), c('x', null, 't1', 1), c('z', null, 't0', 3)], [], null, 3, ['z', 'x', 'y']],
    ['nothing when the limit is 0', [c('u', null, 't1', 1)], [], null, 0, []],
    ['same time: created first, then insert order', [c('x', null, 't1', 1, 'c2'), c('y', null, 't1', 2, 'c1'), c('w', null, 't1', 3, 'c2')], [], null, 3, ['y', 'x', 'w']],
  ] as const)('%s', (_what, candidates, running, share, limit, taken) => {
    expect(ids(claimOrder([...candidates], new Map(running as ReadonlyArray<[string, number]>), share, limit))).toEqual(taken);
  });
});

describe('claimDue', () => {
  it("returns each claimed job's row as stored, marked active for the owner", () => {
    claimed([], null, 1); // the schema
    db!.exec('DELETE FROM "Job"');
    const insert = db!.prepare(`INSERT INTO "Job" ("id", "queue", "payload", "state", "groupKey", "runAt", "attempts", "maxAttempts", "lastError", "createdAt", "updatedAt") VALUES (?, 'q', ?, ?, ?, ?, ?, 5, ?, ?, ?)`);
    insert.run('a', '{"n":1}', 'created', 'shop-1', sqliteTime(NOW - 2_000), 0, null, sqliteTime(NOW - 2_000), sqliteTime(NOW));
    insert.run('b', '{"n":2}', 'retry', null, sqliteTime(NOW - 1_000), 1, 'boom', sqliteTime(NOW - 1_000), sqliteTime(NOW));
    // Not due: a job waiting for a later time, a finished one, a running one (each queue asked in one statement).
    const other = db!.prepare(`INSERT INTO "Job" ("id", "queue", "payload", "state", "runAt", "maxAttempts", "createdAt", "updatedAt") VALUES (?, ?, '{}', ?, ?, 5, ?, ?)`);
    other.run('c', 'later', 'created', sqliteTime(NOW + 1_000), sqliteTime(NOW), sqliteTime(NOW));
    other.run('d', 'finished', 'completed', sqliteTime(NOW - 1_000), sqliteTime(NOW), sqliteTime(NOW));
    other.run('e', 'running', 'active', sqliteTime(NOW - 1_000), sqliteTime(NOW), sqliteTime(NOW));
    const wanted = ['later', 'q', 'idle', 'finished', 'running'].map((name) => ({ name, groupConcurrency: null, limit: 5 }));
    const { rows, due } = claimDue(query, wanted, NOW, 'me', NOW + 60_000);
    expect([...due]).toEqual(['q']);
    expect(rows.sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: 'a', queue: 'q', payload: '{"n":1}', groupKey: 'shop-1', attempts: 1, maxAttempts: 5, lastError: null },
      { id: 'b', queue: 'q', payload: '{"n":2}', groupKey: null, attempts: 2, maxAttempts: 5, lastError: 'boom' },
    ]);
    expect(db!.prepare(`SELECT "id", "state", "lockedBy" FROM "Job" WHERE "queue" = 'q' ORDER BY "id"`).all()).toEqual([
      { id: 'a', state: 'active', lockedBy: 'me' },
      { id: 'b', state: 'active', lockedBy: 'me' },
    ]);
  });

  it('asks nothing when no queue is wanted', () => {
    const asked: string[] = [];
    expect(claimDue((sql) => (asked.push(sql), []), [], NOW, 'me', NOW + 60_000)).toEqual({ rows: [], due: new Set() });
    expect(asked).toEqual([]);
  });

  it('reads jobs without a group only from a queue and state whose due jobs include some', () => {
    claimed([], null, 1); // the schema
    db!.exec('DELETE FROM "Job"');
    const insert = db!.prepare(`INSERT INTO "Job" ("id", "queue", "payload", "state", "groupKey", "runAt", "maxAttempts", "createdAt", "updatedAt") VALUES (?, ?, '{}', ?, ?, ?, 5, ?, ?)`);
    const at = (ms: number) => sqliteTime(NOW + ms);
    insert.run('a', 'grouped', 'created', 'shop-1', at(-2_000), at(-2_000), at(0));
    insert.run('b', 'grouped', 'retry', 'shop-2', at(-1_000), at(-1_000), at(0));
    insert.run('c', 'mixed', 'created', 'shop-1', at(-2_000), at(-2_000), at(0));
    insert.run('d', 'mixed', 'created', null, at(-1_000), at(-1_000), at(0));
    // Due in retry only with a group; the one without a group is not due yet: no read for it.
    insert.run('e', 'mixed', 'retry', 'shop-1', at(-1_000), at(-1_000), at(0));
    insert.run('f', 'mixed', 'retry', null, at(5_000), at(-1_000), at(0));
    const ungroupedReads: string[] = [];
    const counted = (sql: string, args: unknown[]) => {
      if (sql.includes('"groupKey" IS NULL AND "runAt"') && !sql.includes('EXISTS (SELECT 1 FROM "Job" WHERE "state"')) ungroupedReads.push(`${String(args[0])}/${String(args[1])}`);
      return query(sql, args);
    };
    const wanted = ['grouped', 'mixed'].map((name) => ({ name, groupConcurrency: null, limit: 5 }));
    const { rows } = claimDue(counted, wanted, NOW, 'me', NOW + 60_000);
    expect(rows.map((r) => r.id).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(ungroupedReads).toEqual(['mixed/created']);
  });
});
