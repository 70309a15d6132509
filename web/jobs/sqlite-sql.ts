// The SQLite backend's statements on the `Job` table (sqlite.ts runs them).
// Dates are bound as text in Prisma's own SQLite format
// (2026-01-02T03:04:05.678+00:00), which compares correctly as text.
import type { Outcome } from './base.ts';

/** A time as Prisma's SQLite adapter stores DateTime (ISO 8601 with +00:00). */
export function sqliteTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

const LIVE_STATES = `('created', 'retry', 'active')`;
/**
 * One statement: SQLite runs it under its write lock, so the singleton check and the insert
 * cannot interleave with another writer. A duplicate id (every() buckets) is ignored rather
 * than raised, so the caller's transaction is not aborted. Binds: id, queue, payload,
 * singletonKey, orderingKey, groupKey, runAt, maxAttempts, createdAt, updatedAt, queue, singletonKey.
 */
export const INSERT_JOB = `INSERT INTO "Job" ("id", "queue", "payload", "state", "singletonKey", "orderingKey", "groupKey", "runAt", "attempts", "maxAttempts", "createdAt", "updatedAt")
       SELECT ?, ?, ?, 'created', ?, ?, ?, ?, 0, ?, ?, ?
       WHERE NOT EXISTS (SELECT 1 FROM "Job" WHERE "queue" = ? AND "singletonKey" = ? AND "state" IN ${LIVE_STATES})
       ON CONFLICT ("id") DO NOTHING`;

/**
 * Claims due jobs of `queues` queues at once, up to each queue's free slots, taking fairness
 * groups in turn (queue.ts guarantee 9): a job's rank is its group's running jobs plus its place
 * in the group's due jobs (oldest first), lowest rank first, oldest first among equals, and
 * none over the queue's groupConcurrency (null: no limit). A job without a group is a group of
 * its own. Binds: lockedBy, lockedUntil, updatedAt, then per queue: claimBinds(name, now,
 * groupConcurrency, limit).
 */
export function claimJobs(queues: number): string {
  // An ordered job (orderingKey) is due only as the oldest live job of its key (rowid: insert order).
  const head = `("orderingKey" IS NULL OR NOT EXISTS (SELECT 1 FROM "Job" AS "k" WHERE "k"."queue" = "Job"."queue" AND "k"."orderingKey" = "Job"."orderingKey"
      AND "k"."state" IN ('created', 'retry', 'active') AND ("k"."state" = 'active' OR "k"."rowid" < "Job"."rowid")))`;
  // Ranked among few, each found through Job(queue, state, groupKey, runAt), never a sort of the
  // backlog: a claim of n jobs can take only a group's n oldest due jobs (any later one ranks
  // below them) and the n oldest due jobs without a group (each ranks 1). The groups are walked
  // one index seek each (a skip scan). A sale's backlog of 500 made 100 candidates cost ~2 ms a claim.
  const first = (state: string, group: string) =>
    `SELECT "id" FROM "Job" WHERE "queue" = ? AND "state" = '${state}' AND "groupKey" ${group} AND "runAt" <= ? AND ${head} ORDER BY "runAt", "rowid" LIMIT ?`;
  const ungrouped = (state: string) => `SELECT "id" FROM (${first(state, 'IS NULL')})`;
  const groupFirsts = (state: string) => `SELECT "id" FROM (WITH RECURSIVE "g"("k") AS (
        SELECT (SELECT MIN("groupKey") FROM "Job" WHERE "queue" = ? AND "state" = '${state}' AND "groupKey" IS NOT NULL)
        UNION ALL SELECT (SELECT MIN("groupKey") FROM "Job" WHERE "queue" = ? AND "state" = '${state}' AND "groupKey" > "g"."k") FROM "g" WHERE "g"."k" IS NOT NULL)
      SELECT "f"."id" FROM "g" JOIN "Job" AS "f" ON "f"."id" IN (${first(state, '= "g"."k"')})
      WHERE "g"."k" IS NOT NULL)`;
  const candidates = [ungrouped('created'), ungrouped('retry'), groupFirsts('created'), groupFirsts('retry')].join(' UNION ALL ');
  const running = `(SELECT "groupKey", COUNT(*) AS "n" FROM "Job" WHERE "queue" = ? AND "state" = 'active' AND "groupKey" IS NOT NULL GROUP BY "groupKey") AS "running"`;
  // rowid last: jobs enqueued in the same millisecond start in insert order (a CI run saw A2 before A1).
  const ranked = `SELECT "Job"."id", "Job"."runAt", "Job"."createdAt", "Job"."rowid" AS "seq", COALESCE("running"."n", 0)
        + ROW_NUMBER() OVER (PARTITION BY COALESCE("Job"."groupKey", "Job"."id") ORDER BY "Job"."runAt", "Job"."createdAt", "Job"."rowid") AS "rank"
      FROM "Job" LEFT JOIN ${running} ON "running"."groupKey" = "Job"."groupKey"
      WHERE "Job"."id" IN (${candidates})`;
  const due = `SELECT "id" FROM (SELECT "id" FROM (${ranked}) WHERE "rank" <= COALESCE(?, "rank") ORDER BY "rank", "runAt", "createdAt", "seq" LIMIT ?)`;
  return `UPDATE "Job" SET "state" = 'active', "attempts" = "attempts" + 1, "lockedBy" = ?, "lockedUntil" = ?, "updatedAt" = ?
         WHERE "id" IN (${Array.from({ length: queues }, () => due).join(' UNION ALL ')})
         RETURNING "id", "queue", "payload", "groupKey", "attempts", "maxAttempts", "lastError"`;
}

/**
 * Which of `queues` queues have a due waiting job: one index seek each. The claim ranks through
 * materialized subqueries and a window, about 1 ms per queue even when the queue is empty, so a
 * pass claims only from these (7 ms a pass before, with most queues idle). Binds per queue: name, name, now.
 */
export function dueQueues(queues: number): string {
  const one = `SELECT ? AS "queue" WHERE EXISTS (SELECT 1 FROM "Job" WHERE "state" IN ('created', 'retry') AND "queue" = ? AND "runAt" <= ?)`;
  return Array.from({ length: queues }, () => one).join(' UNION ALL ');
}

/** One queue's binds in claimJobs, in the order its placeholders appear. */
export function claimBinds(name: string, now: string, groupConcurrency: number | null, limit: number): unknown[] {
  const ungrouped = [name, now, limit];
  const firsts = [name, name, name, now, limit];
  return [name, ...ungrouped, ...ungrouped, ...firsts, ...firsts, groupConcurrency, limit];
}

/**
 * The UPDATE that stores an attempt's outcome, fenced on (id, state 'active', lockedBy,
 * attempts) so a result that arrives after its job was given back changes nothing. The
 * caller appends the fence's binds: id, lockedBy, attempt.
 */
export function outcomeUpdate(outcome: Exclude<Outcome, { kind: 'abandoned' }>, now: number): { sql: string; args: unknown[] } {
  const fence = `WHERE "id" = ? AND "state" = 'active' AND "lockedBy" = ? AND "attempts" = ?`;
  const unlock = `"lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ?`;
  switch (outcome.kind) {
    case 'completed':
      return { sql: `UPDATE "Job" SET "state" = 'completed', ${unlock} ${fence}`, args: [sqliteTime(now)] };
    case 'retry':
      return { sql: `UPDATE "Job" SET "state" = 'retry', "runAt" = ?, "lastError" = ?, ${unlock} ${fence}`, args: [sqliteTime(now + outcome.delayMs), outcome.message, sqliteTime(now)] };
    case 'failed':
      return { sql: `UPDATE "Job" SET "state" = 'failed', "lastError" = ?, ${unlock} ${fence}`, args: [outcome.message, sqliteTime(now)] };
  }
}

/** queue.reserve: a group's due jobs never claimed, oldest first (the claim's index), due again at `until`. Binds: until, queue, group, now, limit. */
export const RESERVE_JOBS = `UPDATE "Job" SET "runAt" = ? WHERE "id" IN (
         SELECT "id" FROM "Job" WHERE "queue" = ? AND "state" = 'created' AND "groupKey" = ? AND "runAt" <= ? ORDER BY "runAt", "rowid" LIMIT ?)
       RETURNING "id", "payload"`;

/** queue.completeWaiting, for `n` ids. Binds: updatedAt, queue, then the ids. */
export function completeWaitingJobs(n: number): string {
  return `UPDATE "Job" SET "state" = 'completed', "updatedAt" = ? WHERE "queue" = ? AND "state" = 'created' AND "id" IN (${Array(n).fill('?').join(', ')})`;
}

/** queue.hurry: a group's jobs waiting for their start time (state created: never claimed) due now. Binds: now, queue, group, now. */
export const HURRY_JOBS = `UPDATE "Job" SET "runAt" = ? WHERE "queue" = ? AND "groupKey" = ? AND "state" = 'created' AND "runAt" > ?`;

/** Per queue: due waiting jobs, running jobs, the oldest due waiting job's runAt. Binds: now, now. */
export const QUEUE_STATS = `SELECT "queue",
         SUM(CASE WHEN "state" IN ('created', 'retry') AND "runAt" <= ? THEN 1 ELSE 0 END) AS "waiting",
         SUM(CASE WHEN "state" = 'active' THEN 1 ELSE 0 END) AS "active",
         MIN(CASE WHEN "state" IN ('created', 'retry') AND "runAt" <= ? THEN "runAt" END) AS "oldest"
       FROM "Job" WHERE "state" IN ('created', 'retry', 'active') GROUP BY "queue"`;
