// The SQLite claim (queue.ts guarantee 9) as a few indexed reads and one UPDATE, run back to back
// under the connection's lock (nothing of this process runs between them). One statement that
// ranked everything in SQL cost ~0.7 ms a queue even with nothing to take, 1.6 ms in a sale's
// booking window, over half the app's SQLite time (issue 24); these reads cost ~20 µs each.
//
// Only this process claims from its database (queue.ts: ONE app process per file); another process
// (the operator CLI) may only add jobs meanwhile, and the UPDATE takes a job only while it waits.
import { idList, sqliteTime } from './sqlite-sql.ts';

/** Runs one statement on SQLite's connection and returns its rows as arrays of column values. */
export type RawQuery = (sql: string, args: unknown[]) => unknown[][];

export interface ClaimWanted {
  name: string;
  /** The most running jobs of one group in this queue (null: no limit). */
  groupConcurrency: number | null;
  /** Free worker slots: the most jobs this claim takes from the queue. */
  limit: number;
}

export interface ClaimedRow {
  id: string;
  queue: string;
  payload: string;
  groupKey: string | null;
  attempts: number | bigint;
  maxAttempts: number | bigint;
  lastError: string | null;
}

/** A due job found through the index: ranked by claimOrder. */
export interface Candidate {
  id: string;
  group: string | null;
  runAt: string;
  createdAt: string;
  seq: number;
}

const WAITING = ['created', 'retry'] as const;
type WaitingState = (typeof WAITING)[number];

// An ordered job (orderingKey) is due only as the oldest live job of its key (rowid: insert order).
const HEAD = `("orderingKey" IS NULL OR NOT EXISTS (SELECT 1 FROM "Job" AS "k" WHERE "k"."queue" = "Job"."queue" AND "k"."orderingKey" = "Job"."orderingKey"
      AND "k"."state" IN ('created', 'retry', 'active') AND ("k"."state" = 'active' OR "k"."rowid" < "Job"."rowid")))`;
/** A state's n oldest due jobs, without a group (binds: queue, state, now, n) or of one (queue, state, group, now, n). */
const first = (group: string) =>
  `SELECT "id", "groupKey", "runAt", "createdAt", "rowid" FROM "Job" WHERE "queue" = ? AND "state" = ? AND "groupKey" ${group} AND "runAt" <= ? AND ${HEAD} ORDER BY "runAt", "rowid" LIMIT ?`;
const FIRST_UNGROUPED = first('IS NULL');
const FIRST_OF_GROUP = first('= ?');
/** The groups with jobs in a state, one index seek each (a skip scan). Binds: queue, state, queue, state. */
const GROUPS = `WITH RECURSIVE "g"("k") AS (
    SELECT (SELECT MIN("groupKey") FROM "Job" WHERE "queue" = ? AND "state" = ? AND "groupKey" IS NOT NULL)
    UNION ALL SELECT (SELECT MIN("groupKey") FROM "Job" WHERE "queue" = ? AND "state" = ? AND "groupKey" > "g"."k") FROM "g" WHERE "g"."k" IS NOT NULL)
  SELECT "k" FROM "g" WHERE "k" IS NOT NULL`;
/** Running jobs per group. Binds: queue. */
const RUNNING = `SELECT "groupKey", COUNT(*) FROM "Job" WHERE "queue" = ? AND "state" = 'active' AND "groupKey" IS NOT NULL GROUP BY "groupKey"`;
/**
 * Which of n queues have due waiting jobs, per WAITING state: 0 none, 1 only jobs of a group, 2 also
 * jobs without one. One index seek each (the second only when the first found one), in one statement:
 * a statement per queue was ~13 a pass (~2 ms of CPU per booked order with their calls), and the
 * read for jobs without a group found none in most passes of a sale (every booking has its shop's
 * group) yet cost ~0.15 ms each. Binds: the n names, then now twice per WAITING state.
 */
const anyDue = (n: number) =>
  `WITH "w"("q") AS (VALUES ${Array(n).fill('(?)').join(', ')}) SELECT "q", ${WAITING.map((state) =>
    `CASE WHEN EXISTS (SELECT 1 FROM "Job" WHERE "state" = '${state}' AND "queue" = "w"."q" AND "runAt" <= ?)
      THEN 1 + EXISTS (SELECT 1 FROM "Job" WHERE "queue" = "w"."q" AND "state" = '${state}' AND "groupKey" IS NULL AND "runAt" <= ?) ELSE 0 END`).join(', ')} FROM "w"`;

/** A waiting state with due jobs, and whether some of them have no group. */
interface DueState {
  state: WaitingState;
  ungrouped: boolean;
}

function candidate(r: unknown[]): Candidate {
  return { id: String(r[0]), group: r[1] === null ? null : String(r[1]), runAt: String(r[2]), createdAt: String(r[3]), seq: Number(r[4]) };
}

const byTime = (a: Candidate, b: Candidate) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.seq - b.seq);

/**
 * Which candidates to take (pure): a job's rank is its group's running jobs plus its place among the
 * group's due candidates, oldest first (a job without a group is a group of its own); lowest rank
 * first, oldest first among equals, none over groupConcurrency, at most `limit`.
 */
export function claimOrder(candidates: Candidate[], running: ReadonlyMap<string, number>, groupConcurrency: number | null, limit: number): Candidate[] {
  const byGroup = new Map<string, Candidate[]>();
  const ranked: Array<{ c: Candidate; rank: number }> = [];
  for (const c of candidates) {
    if (c.group === null) ranked.push({ c, rank: 1 });
    else if (byGroup.has(c.group)) byGroup.get(c.group)!.push(c);
    else byGroup.set(c.group, [c]);
  }
  for (const [group, list] of byGroup) {
    list.sort(byTime).forEach((c, i) => ranked.push({ c, rank: (running.get(group) ?? 0) + i + 1 }));
  }
  return ranked
    .filter((x) => groupConcurrency === null || x.rank <= groupConcurrency)
    .sort((a, b) => a.rank - b.rank || byTime(a.c, b.c))
    .slice(0, limit)
    .map((x) => x.c);
}

/** One queue's due candidates: no group's more than it could start, nor more than `limit` of any list. */
function candidatesOf(query: RawQuery, w: ClaimWanted, states: readonly DueState[], now: string, running: ReadonlyMap<string, number>): Candidate[] {
  const out: Candidate[] = [];
  for (const { state, ungrouped } of states) {
    if (ungrouped) for (const r of query(FIRST_UNGROUPED, [w.name, state, now, w.limit])) out.push(candidate(r));
    for (const [group] of query(GROUPS, [w.name, state, w.name, state])) {
      const room = w.groupConcurrency === null ? w.limit : Math.min(w.limit, w.groupConcurrency - (running.get(String(group)) ?? 0));
      if (room > 0) for (const r of query(FIRST_OF_GROUP, [w.name, state, group, now, room])) out.push(candidate(r));
    }
  }
  return out;
}

export interface ClaimResult {
  rows: ClaimedRow[];
  /** The queues that had a due waiting job (taken or not). */
  due: Set<string>;
}

/**
 * Claims due jobs of the wanted queues, each up to its limit, for `owner` until `lockedUntil`.
 * Synchronous: the caller runs it under the connection's lock.
 */
export function claimDue(query: RawQuery, wanted: ClaimWanted[], at: number, owner: string, lockedUntil: number): ClaimResult {
  if (wanted.length === 0) return { rows: [], due: new Set() };
  const now = sqliteTime(at);
  const ids: string[] = [];
  // The states with due jobs, per queue (the probe's answers, in WAITING's order): a state without any is not read.
  const dueStates = new Map<string, DueState[]>();
  for (const [q, ...found] of query(anyDue(wanted.length), [...wanted.map((w) => w.name), ...WAITING.flatMap(() => [now, now])])) {
    const states = WAITING.flatMap((state, i) => (Number(found[i]) > 0 ? [{ state, ungrouped: Number(found[i]) > 1 }] : []));
    if (states.length > 0) dueStates.set(String(q), states);
  }
  const due = new Set(dueStates.keys());
  for (const w of wanted) {
    const states = dueStates.get(w.name);
    if (!states) continue;
    const running = new Map<string, number>();
    for (const [g, n] of query(RUNNING, [w.name])) running.set(String(g), Number(n));
    for (const c of claimOrder(candidatesOf(query, w, states, now, running), running, w.groupConcurrency, w.limit)) ids.push(c.id);
  }
  if (ids.length === 0) return { rows: [], due };
  const rows = query(
    `UPDATE "Job" SET "state" = 'active', "attempts" = "attempts" + 1, "lockedBy" = ?, "lockedUntil" = ?, "updatedAt" = ?
     WHERE "id" IN (${idList(ids.length)}) AND "state" IN ('created', 'retry')
     RETURNING "id", "queue", "payload", "groupKey", "attempts", "maxAttempts", "lastError"`,
    [owner, sqliteTime(lockedUntil), now, ...ids],
  );
  return {
    due,
    rows: rows.map((r) => ({
      id: String(r[0]), queue: String(r[1]), payload: String(r[2]), groupKey: r[3] === null ? null : String(r[3]),
      attempts: r[4] as number, maxAttempts: r[5] as number, lastError: r[6] === null ? null : String(r[6]),
    })),
  };
}
