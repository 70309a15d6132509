// The SQLite job queue's statements (web/jobs/sqlite-sql.ts): what each outcome writes and binds,
// and one claim statement for several queues. Run against real SQLite in test/integration/jobs.test.ts.
import { describe, expect, it } from 'vitest';
import { claimBinds, claimJobs, dueQueues, outcomeUpdate, sqliteTime } from '../../web/jobs/sqlite-sql.ts';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe('SQLite job statements', () => {
  it('writes times in the adapter format, which sorts as text', () => {
    expect(sqliteTime(NOW)).toBe('2026-01-02T03:04:05.678+00:00');
    expect(sqliteTime(NOW + 1) > sqliteTime(NOW)).toBe(true);
  });

  it.each([
    [{ kind: 'completed' as const }, "'completed'", [sqliteTime(NOW)]],
    [{ kind: 'retry' as const, error: null, message: 'boom', delayMs: 1_000 }, "'retry'", [sqliteTime(NOW + 1_000), 'boom', sqliteTime(NOW)]],
    [{ kind: 'failed' as const, error: null, message: 'gone' }, "'failed'", ['gone', sqliteTime(NOW)]],
  ])('stores %o fenced on id, state, owner and attempt', (outcome, state, args) => {
    const u = outcomeUpdate(outcome, NOW);
    expect(u.sql).toContain(`"state" = ${state}`);
    expect(u.sql).toMatch(/WHERE "id" = \? AND "state" = 'active' AND "lockedBy" = \? AND "attempts" = \?$/);
    expect(u.args).toEqual(args);
    // Binds in the SQL = the outcome's own + the three of the fence.
    expect(u.sql.split('?').length - 1).toBe(args.length + 3);
  });

  it('claims several queues in one statement, each with its own limit', () => {
    for (const n of [1, 3, 7]) {
      const sql = claimJobs(n);
      // Per queue: its own limit, and the same limit on each of the four candidate lists (a claim of n takes only the n oldest of each).
      expect(sql.match(/LIMIT \?/g)).toHaveLength(5 * n);
      expect(sql.split('?').length - 1).toBe(3 + claimBinds('q', sqliteTime(NOW), null, 1).length * n);
      // Ties (jobs enqueued in the same millisecond) go by insert order.
      expect(sql.match(/ORDER BY "rank", "runAt", "createdAt", "seq" LIMIT \?/g)).toHaveLength(n);
    }
  });

  it('asks which queues have a due job with three binds per queue', () => {
    for (const n of [1, 3, 7]) expect(dueQueues(n).split('?').length - 1).toBe(3 * n);
  });
});
