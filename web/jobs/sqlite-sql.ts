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
export const INSERT_JOB = `INSERT INTO "Job" ("id", "queue", "payload", "state", "singletonKey", "orderingKey", "groupKey", "runAt", "lockedUntil", "attempts", "maxAttempts", "createdAt", "updatedAt")
       SELECT ?, ?, ?, 'created', ?, ?, ?, ?, ?, 0, ?, ?, ?
       WHERE NOT EXISTS (SELECT 1 FROM "Job" WHERE "queue" = ? AND "singletonKey" = ? AND "state" IN ${LIVE_STATES})
       ON CONFLICT ("id") DO NOTHING`;

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

/**
 * queue.reserve: a group's due jobs never claimed, oldest first (the claim's index), due again at `until`.
 * A job waiting with "lockedUntil" set is reserved, or was enqueued with keepTime (until its runAt; only
 * a claim sets it otherwise, with state 'active'): HURRY_JOBS skips it; a claim after the reservation
 * ran out overwrites it. Binds: until, until, queue, group, now, limit.
 */
export const RESERVE_JOBS = `UPDATE "Job" SET "runAt" = ?, "lockedUntil" = ? WHERE "id" IN (
         SELECT "id" FROM "Job" WHERE "queue" = ? AND "state" = 'created' AND "groupKey" = ? AND "runAt" <= ? ORDER BY "runAt", "rowid" LIMIT ?)
       RETURNING "id", "payload"`;

/** `?, ?, …`: the binds of an id list of `n`. */
export const idList = (n: number): string => Array(n).fill('?').join(', ');

/** queue.completeWaiting, for `n` ids. Binds: updatedAt, queue, then the ids. */
export function completeWaitingJobs(n: number): string {
  return `UPDATE "Job" SET "state" = 'completed', "updatedAt" = ? WHERE "queue" = ? AND "state" = 'created' AND "id" IN (${idList(n)})`;
}

/** queue.hurry: a group's jobs waiting for their start time (state created: never claimed), not reserved, due now. Binds: now, queue, group, now. */
export const HURRY_JOBS = `UPDATE "Job" SET "runAt" = ? WHERE "queue" = ? AND "groupKey" = ? AND "state" = 'created' AND "runAt" > ? AND "lockedUntil" IS NULL`;
/** queue.hurry without a group: HURRY_JOBS over the whole queue. Binds: now, queue, now. */
export const HURRY_QUEUE = `UPDATE "Job" SET "runAt" = ? WHERE "queue" = ? AND "state" = 'created' AND "runAt" > ? AND "lockedUntil" IS NULL`;

/** queue.release, for `n` ids: reserved no longer, due at `runAt`. Binds: runAt, updatedAt, queue, then the ids. */
export function releaseJobs(n: number): string {
  return `UPDATE "Job" SET "runAt" = ?, "lockedUntil" = NULL, "updatedAt" = ? WHERE "queue" = ? AND "state" = 'created' AND "id" IN (${idList(n)})`;
}

/** Per queue: due waiting jobs, running jobs, the oldest due waiting job's runAt. Binds: now, now. */
export const QUEUE_STATS = `SELECT "queue",
         SUM(CASE WHEN "state" IN ('created', 'retry') AND "runAt" <= ? THEN 1 ELSE 0 END) AS "waiting",
         SUM(CASE WHEN "state" = 'active' THEN 1 ELSE 0 END) AS "active",
         MIN(CASE WHEN "state" IN ('created', 'retry') AND "runAt" <= ? THEN "runAt" END) AS "oldest"
       FROM "Job" WHERE "state" IN ('created', 'retry', 'active') GROUP BY "queue"`;
