// The SQLite job queue's statements (web/jobs/sqlite-sql.ts): what each outcome writes and binds,
// Run against real SQLite in test/integration/jobs.test.ts.
import { describe, expect, it } from 'vitest';
import { outcomeUpdate, sqliteTime } from '../../web/jobs/sqlite-sql.ts';

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
});
