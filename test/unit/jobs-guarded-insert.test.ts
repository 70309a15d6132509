// guardedJobInsert (web/jobs/pgboss.ts): pg-boss's own job INSERT, made to run only when the
// caller's row was inserted, as one statement. Table-tested on the SQL pg-boss builds itself.
import { describe, expect, it } from 'vitest';
import * as plans from 'pg-boss/dist/plans.js';
import { guardedJobInsert } from '../../web/jobs/pgboss.ts';

const insertJobs = (notify: boolean): string => plans.insertJobs('pgboss', { table: 'job_common', name: 'courier-event', returnId: true, notify });
const row = { sql: 'INSERT INTO "T" ("id", "v") VALUES ($1, $2) ON CONFLICT ("id") DO NOTHING', values: ['a', 'b'] };

describe('guardedJobInsert', () => {
  it("puts the row's insert ahead of pg-boss's job INSERT, which runs only for an inserted row, with its parameter after the row's", () => {
    const sql = guardedJobInsert(insertJobs(false), row)!;
    expect(sql.startsWith(`WITH guard AS (${row.sql} RETURNING 1), job AS (`)).toBe(true);
    expect(sql).toContain('json_to_recordset($3::text::json)');
    expect(sql).not.toContain('$1::text::json');
    expect(sql).toMatch(/WHERE EXISTS \(SELECT 1 FROM guard\) ON CONFLICT DO NOTHING\s+RETURNING id\s*\)/);
    expect(sql.endsWith('SELECT (SELECT count(*) FROM guard)::int AS "inserted", (SELECT id FROM job LIMIT 1) AS "id"')).toBe(true);
  });

  it('puts CTEs the row carries (RowInsert.with) ahead of it, their binds among the row\'s values', () => {
    const withCtes = { ...row, with: 'a AS (UPDATE "A" SET "v" = $1 RETURNING 1)', sql: 'INSERT INTO "T" ("id") SELECT $2 WHERE EXISTS (SELECT 1 FROM a)' };
    const sql = guardedJobInsert(insertJobs(false), withCtes)!;
    expect(sql.startsWith(`WITH ${withCtes.with}, guard AS (${withCtes.sql} RETURNING 1), job AS (`)).toBe(true);
    expect(sql).toContain('json_to_recordset($3::text::json)');
  });

  it.each([
    ['pg-boss NOTIFY on insert (a CTE of its own)', insertJobs(true)],
    ['not an INSERT', 'UPDATE pgboss.job SET data = $1::text::json'],
    ['a second parameter', insertJobs(false).replace("'courier-event' as name", '$2 as name')],
    ['no ON CONFLICT', insertJobs(false).replace('ON CONFLICT DO NOTHING', '')],
    ['its parameter cast otherwise', insertJobs(false).replace('$1::text::json', '$1::json')],
  ])('gives null (the caller falls back to a transaction) for %s', (_why, jobSql) => {
    expect(guardedJobInsert(jobSql, row)).toBeNull();
  });
});
