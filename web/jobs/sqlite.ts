// SQLite backend: an in-process worker over the `Job` table of the app's own
// database (prisma/models.prisma).
//
// ONE machine per SQLite database file, normally one app process; who owns a
// claim and when an owner counts as dead: sqlite-owners.ts. Claims are atomic
// across processes (one UPDATE … RETURNING under SQLite's write lock).
//
// `maxAttempts` is the job's own (enqueued with one) or 0: the worker's policy
// decides when the job runs; retry delays always come from the worker's policy.
//
// Row life cycle (states shared with pg-boss's names):
//   created ─claim→ active ─┬→ completed
//   retry   ─claim→ active  ├→ retry   (runAt = now + backoff)
//                           └→ failed  (after onExhausted)
// A claim sets lockedBy (this instance) and lockedUntil (now + leaseMs), and
// increments `attempts`. While a handler runs, its lease is renewed every
// leaseMs/3: only the jobs in flight here, so a row whose outcome could not be
// stored stops being renewed. Every write of an outcome is fenced on (id, state
// 'active', lockedBy, attempts), so a result that arrives after its job was
// given back changes nothing. A sweep every leaseMs/2 gives back a lease that
// ran out under an owner that is not alive, or under this queue with no
// handler running it (its outcome write failed): it runs again.
//
// The better-sqlite3 adapter has ONE connection. A query on the bare client would run inside
// whatever interactive transaction is open at that moment, see its uncommitted jobs (running a
// job whose enqueue then rolls back) and be rolled back with it, were it not for the lock
// web/db/client.ts puts around plain statements and whole transactions alike: a plain statement
// waits until the open transaction ends, so the worker only sees committed rows. The claim and
// the outcome are each one such statement; several statements that must hold together run in
// `db.$transaction`. Statements: sqlite-sql.ts.
import { hostname } from 'node:os';
import type { Database, Tx } from '../db/client.ts';
import { BaseJobQueue, type BaseOptions, type InsertRequest, type Outcome, type Registration } from './base.ts';
import { describeError, MAX_ATTEMPTS_BY_WORKER, resolveMaxAttempts } from './policy.ts';
import { PollLoop } from './poll-loop.ts';
import type { EnqueueOptions, Job, JobInfo, JobState, QueueStat, RowInsert } from './queue.ts';
import { sqliteArgs } from '../db/direct-values.ts';
import { DEAD_OWNER_SWEEP_MS, localOwners, ownerState } from './sqlite-owners.ts';
import { claimDue, type ClaimedRow } from './sqlite-claim.ts';
import { completeWaitingJobs, HURRY_JOBS, HURRY_QUEUE, INSERT_JOB, outcomeUpdate, QUEUE_STATS, releaseJobs, sqliteTime, RESERVE_JOBS } from './sqlite-sql.ts';

export interface SqliteQueueOptions extends BaseOptions {
  instanceId?: string;
  /** How often workers look for due jobs while they find some (default 250 ms; up to 8× that while they find none); notify() wakes them at once. */
  pollIntervalMs?: number;
  /** Claim lease, renewed while the handler runs (default 60 s). */
  leaseMs?: number;
  /** How long finished rows are kept (defaults: completed 7 days, failed 30 days). */
  keepCompletedMs?: number;
  keepFailedMs?: number;
}

interface InFlight {
  job: Job;
  abort: AbortController;
  promise: Promise<void>;
  released: boolean;
  /**
   * Completed by its handler's own transaction: `committed` by lockedWithJob's `settles`; `inTransaction`
   * by completeIn, in a transaction the handler may still see fail.
   */
  settled?: 'committed' | 'inTransaction';
}

const DAY = 24 * 60 * 60_000;
const CLEANUP_EVERY_MS = 10 * 60_000;
/** An idle queue polls at most this many times slower than pollIntervalMs (250 ms → 2 s). */
const IDLE_POLL_LIMIT = 8;
const TX = { maxWait: 15_000, timeout: 15_000 };

export class SqliteJobQueue extends BaseJobQueue {
  readonly backend = 'sqlite' as const;
  /** This queue's claim owner (lockedBy). */
  private readonly owner: string;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly keepCompletedMs: number;
  private readonly keepFailedMs: number;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly running = new Map<string, number>();
  /** Claim passes: woken by enqueues, freed slots and notify(); polls back off while they find nothing. */
  private readonly loop: PollLoop;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private cleanupTimer: NodeJS.Timeout | null = null;
  /** The last pass may have left due jobs behind (a queue was full, or got all it asked for). */
  private maybeMore = true;
  /**
   * Queues whose last claim took fewer jobs than it had room for: what is left due is held by
   * a group's share or an ordering key's running job (about 2 ms a claim over a sale's backlog,
   * for nothing). Skipped until one of their jobs here ends, this instance enqueues into them
   * and notifies, a sweep gives jobs back, or a poll interval has passed (time-due jobs, other processes).
   */
  private readonly stalled = new Set<string>();
  /** Counts each queue's reasons to claim again, so a pass does not stall a queue freed while it ran. */
  private readonly unstalls = new Map<string, number>();
  /** Queues this instance enqueued into since its last notify(). */
  private readonly fresh = new Set<string>();
  private lastSweep = 0;
  private lastUnstallAll = 0;
  private lastDeadSweep = 0;

  constructor(database: Database, opts: SqliteQueueOptions) {
    super(database, opts);
    if (database.provider !== 'sqlite') throw new Error('SqliteJobQueue needs a SQLite database');
    if (!database.sqliteLocked) throw new Error('SqliteJobQueue needs the database\'s sqliteLocked (web/db/client.ts openDatabase)');
    this.owner = `${opts.instanceId ?? 'jobs'}@${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
    this.pollIntervalMs = opts.pollIntervalMs ?? 250;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.keepCompletedMs = opts.keepCompletedMs ?? 7 * DAY;
    this.keepFailedMs = opts.keepFailedMs ?? 30 * DAY;
    if (!(this.pollIntervalMs >= 10)) throw new RangeError('pollIntervalMs must be >= 10');
    if (!(this.leaseMs >= 100)) throw new RangeError('leaseMs must be >= 100');
    this.loop = new PollLoop({
      baseMs: this.pollIntervalMs,
      limit: IDLE_POLL_LIMIT,
      pass: (startedAt) => this.claimOnce(startedAt),
      onError: (e) => {
        if (this.loop.running) this.log.warn({ err: describeError(e) }, 'job claim failed; retrying at the next poll');
      },
    });
  }

  private tx<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return this.database.db.$transaction((tx) => fn(tx), TX);
  }

  // ---- storage ----
  protected async insert(tx: Tx, req: InsertRequest): Promise<string | null> {
    const now = Date.now();
    // One statement: SQLite runs it under its write lock, so the singleton check
    // and the insert cannot interleave with another writer. A duplicate id
    // (every() buckets) is ignored rather than raised, so the caller's
    // transaction is not aborted.
    const inserted = await tx.$executeRawUnsafe(INSERT_JOB, ...insertArgs(req, now));
    if (inserted !== 1) return null;
    this.inserted(req, now);
    return req.id;
  }

  /** What an insert tells this instance's claim loop. */
  private inserted(req: InsertRequest, now: number): void {
    if (req.startAfterMs > 0) this.loop.at(now + req.startAfterMs);
    this.fresh.add(req.name);
    this.maybeMore = true; // due once its transaction commits; the next freed slot or notify() claims it
  }

  override async lockedWithJob<T>(steps: readonly RowInsert[], name: string, data: T, opts: EnqueueOptions = {}, settles?: Job): Promise<true | null> {
    const req = this.request(name, data, opts);
    const now = Date.now();
    const stepArgs = steps.map((s) => {
      if (s.with) throw new Error('a step with leading CTEs is PostgreSQL only');
      const args = sqliteArgs(s.values);
      if (!args) throw new TypeError(`a value of this step cannot be bound on SQLite: ${s.sql.slice(0, 60)}`);
      return args;
    });
    // The running job these steps complete: its outcome's own fenced UPDATE, in this transaction.
    const entry = settles ? this.inFlight.get(settles.id) : undefined;
    const own = entry && !entry.released && !entry.settled && entry.job.attempt === settles!.attempt ? outcomeUpdate({ kind: 'completed' }, now) : null;
    const written = await this.database.sqliteLocked!((_query, run) => {
      run('BEGIN IMMEDIATE', []);
      try {
        if (steps.some((s, i) => run(s.sql, stepArgs[i]!) !== 1) || (own && run(own.sql, [...own.args, settles!.id, this.owner, settles!.attempt]) !== 1)) {
          run('ROLLBACK', []);
          return null;
        }
        const job = run(INSERT_JOB, insertArgs(req, now));
        run('COMMIT', []);
        return job;
      } catch (e) {
        // A failed COMMIT or step may have ended the transaction already (SQLite rolls back on some errors).
        try {
          run('ROLLBACK', []);
        } catch { /* none open */ }
        throw e;
      }
    });
    if (written === null) return null;
    if (written === 1) this.inserted(req, now);
    if (own) entry!.settled = 'committed';
    this.log.debug({ queue: name, jobId: req.id, duplicate: written !== 1, settled: own ? settles!.id : undefined }, 'steps and job written');
    return true;
  }

  override async completeIn(tx: Tx, job: Job): Promise<boolean> {
    const entry = this.inFlight.get(job.id);
    if (!entry || entry.released || entry.settled || entry.job.attempt !== job.attempt) return false;
    const { sql, args } = outcomeUpdate({ kind: 'completed' }, Date.now());
    if ((await tx.$executeRawUnsafe(sql, ...args, job.id, this.owner, job.attempt)) !== 1) return false;
    entry.settled = 'inTransaction';
    return true;
  }

  protected async hurryBackend(name: string, group: string | null): Promise<number> {
    const now = sqliteTime(Date.now());
    const n = await (group === null
      ? this.database.db.$executeRawUnsafe(HURRY_QUEUE, now, name, now)
      : this.database.db.$executeRawUnsafe(HURRY_JOBS, now, name, group, now));
    if (n > 0) this.claimNow([name]);
    return n;
  }

  async reserve<T>(name: string, group: string, limit: number, forMs: number): Promise<Array<{ id: string; data: T }>> {
    const now = Date.now();
    const until = sqliteTime(now + forMs);
    const rows = await this.database.db.$queryRawUnsafe<Array<{ id: string; payload: string }>>(RESERVE_JOBS, until, until, name, group, sqliteTime(now), limit);
    // Due again when the reservation runs out, unless completed or released before.
    if (rows.length) this.loop.at(now + forMs);
    return rows.map((r) => ({ id: r.id, data: JSON.parse(r.payload) as T }));
  }

  async completeWaiting(tx: Tx, name: string, ids: readonly string[]): Promise<number> {
    if (!ids.length) return 0;
    return tx.$executeRawUnsafe(completeWaitingJobs(ids.length), sqliteTime(Date.now()), name, ...ids);
  }

  async release(name: string, ids: readonly string[], afterMs = 0): Promise<number> {
    if (!ids.length) return 0;
    const now = Date.now();
    const n = await this.database.db.$executeRawUnsafe(releaseJobs(ids.length), sqliteTime(now + afterMs), sqliteTime(now), name, ...ids);
    if (n > 0) {
      if (afterMs > 0) this.loop.at(now + afterMs);
      else this.claimNow([name]);
    }
    return n;
  }

  /** Jobs of `names` may be due now: claim at once. */
  private claimNow(names: Iterable<string>): void {
    for (const name of names) this.unstall(name);
    this.maybeMore = true;
    this.loop.notify();
  }

  async getJob(name: string, id: string): Promise<JobInfo | null> {
    const rows = await this.tx((tx) =>
      tx.$queryRawUnsafe<Array<{ id: string; queue: string; state: string; attempts: number; maxAttempts: number; lastError: string | null }>>(
        `SELECT "id", "queue", "state", "attempts", "maxAttempts", "lastError" FROM "Job" WHERE "id" = ? AND "queue" = ?`,
        id,
        name,
      ),
    );
    const r = rows[0];
    if (!r) return null;
    const own = Number(r.maxAttempts);
    return {
      id: r.id,
      name: r.queue,
      state: r.state as JobState,
      attempts: Number(r.attempts),
      maxAttempts: own === MAX_ATTEMPTS_BY_WORKER.sqlite ? null : own,
      lastError: r.lastError,
    };
  }

  async stats(): Promise<QueueStat[]> {
    const now = Date.now();
    const rows = await this.tx((tx) => tx.$queryRawUnsafe<Array<{ queue: string; waiting: number | bigint; active: number | bigint; oldest: string | null }>>(QUEUE_STATS, sqliteTime(now), sqliteTime(now)));
    return rows.map((r) => ({
      name: r.queue,
      waiting: Number(r.waiting),
      active: Number(r.active),
      lagSeconds: r.oldest ? Math.max(0, (now - Date.parse(r.oldest)) / 1000) : 0,
    }));
  }

  // ---- life cycle ----
  protected async startBackend(): Promise<void> {
    localOwners.add(this.owner);
    try {
      const n = await this.reclaim('all', 'the process running this job stopped before it finished');
      if (n > 0) this.log.warn({ count: n }, 'jobs left running by a stopped process will run again');
    } catch (e) {
      localOwners.delete(this.owner);
      throw e;
    }
    if (this.isStopping()) return;
    this.loop.start({ passNow: true });
    const beat = Math.max(50, Math.floor(this.leaseMs / 3));
    this.heartbeatTimer = setInterval(() => void this.renewLeases(), beat);
    this.cleanupTimer = setInterval(() => void this.cleanup(), CLEANUP_EVERY_MS);
    void this.cleanup();
  }

  protected async startWorker(_reg: Registration): Promise<void> {
    this.loop.wake();
  }

  protected notifyBackend(): void {
    this.claimNow(this.fresh);
    this.fresh.clear();
  }

  protected async stopBackend(graceMs: number): Promise<void> {
    if (this.cleanupTimer) clearInterval(this.cleanupTimer);
    // A claim in progress finishes and launches what it claimed, so it is waited for below.
    await this.loop.stop();
    const pending = [...this.inFlight.values()].map((f) => f.promise);
    if (pending.length > 0 && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled(pending), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    const left = [...this.inFlight.values()];
    if (left.length > 0) {
      for (const f of left) {
        f.released = true;
        f.abort.abort(new Error('the job queue stopped'));
      }
      try {
        await this.giveBack(left.map((f) => f.job), 'the job queue stopped while the job was running');
      } catch (e) {
        this.log.error({ err: describeError(e) }, 'could not give back running jobs; they run again at the next start');
      }
      this.log.warn({ jobIds: left.map((f) => f.job.id) }, 'gave back jobs still running at stop');
    }
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    localOwners.delete(this.owner);
  }

  // ---- the claim loop ----
  private unstall(name: string): void {
    this.stalled.delete(name);
    this.unstalls.set(name, (this.unstalls.get(name) ?? 0) + 1);
  }

  private unstallAll(): void {
    this.lastUnstallAll = Date.now();
    for (const name of this.registrations.keys()) this.unstall(name);
  }

  /** One claim pass; false when it found no due job at all (the next poll may wait longer). */
  private async claimOnce(now: number): Promise<boolean> {
    if (now - this.lastUnstallAll >= this.pollIntervalMs) this.unstallAll();
    if (now - this.lastSweep >= this.leaseMs / 2) {
      this.lastSweep = now;
      this.lastDeadSweep = now;
      this.unstallAll();
      await this.sweepExpiredLeases();
    } else if (now - this.lastDeadSweep >= DEAD_OWNER_SWEEP_MS) {
      this.lastDeadSweep = now;
      this.unstallAll();
      const n = await this.reclaim('dead', 'the process running this job stopped before it finished');
      if (n > 0) this.log.warn({ count: n }, 'gave back jobs held by a stopped process');
    }
    // Every queue with a free slot in ONE statement and transaction: a pass per wake-up was a
    // transaction per registered queue (7), most of them finding nothing.
    const wanted: Array<{ reg: Registration; free: number }> = [];
    for (const reg of this.registrations.values()) {
      const free = reg.concurrency - (this.running.get(reg.name) ?? 0);
      if (free > 0 && !this.stalled.has(reg.name)) wanted.push({ reg, free });
    }
    this.maybeMore = wanted.length < this.registrations.size;
    const unstalls = new Map(wanted.map((w) => [w.reg.name, this.unstalls.get(w.reg.name) ?? 0]));
    if (!this.loop.running || wanted.length === 0) return true;
    const at = Date.now();
    // A few indexed reads and one UPDATE under the connection's lock (web/jobs/sqlite-claim.ts).
    const { rows, due } = await this.database.sqliteLocked!((query) =>
      claimDue(query, wanted.map((w) => ({ name: w.reg.name, groupConcurrency: w.reg.groupConcurrency, limit: w.free })), at, this.owner, at + this.leaseMs));
    const claimable = wanted.filter((w) => due.has(w.reg.name));
    const got = new Map<string, number>();
    for (const row of rows) got.set(row.queue, (got.get(row.queue) ?? 0) + 1);
    if (wanted.some((w) => got.get(w.reg.name) === w.free)) this.maybeMore = true;
    for (const w of claimable) {
      const name = w.reg.name;
      if ((got.get(name) ?? 0) < w.free && (this.unstalls.get(name) ?? 0) === unstalls.get(name)) this.stalled.add(name);
    }
    // Due jobs left behind: the next freed slot claims again (a stalled queue's own jobs unstall it).
    if (this.stalled.size > 0) this.maybeMore = true;
    const byName = new Map(wanted.map((w) => [w.reg.name, w.reg]));
    for (const row of rows) this.launch(byName.get(row.queue)!, row);
    return due.size > 0 || this.inFlight.size > 0;
  }

  private launch(reg: Registration, row: ClaimedRow): void {
    const abort = new AbortController();
    const job: Job = {
      id: row.id,
      name: row.queue,
      data: null,
      group: row.groupKey,
      attempt: Number(row.attempts),
      maxAttempts: resolveMaxAttempts(Number(row.maxAttempts), reg.retry.maxAttempts),
      signal: abort.signal,
    };
    this.running.set(reg.name, (this.running.get(reg.name) ?? 0) + 1);
    const entry: InFlight = { job, abort, promise: Promise.resolve(), released: false };
    // Before the handler starts: it may settle its job at once (lockedWithJob).
    this.inFlight.set(job.id, entry);
    entry.promise = (async () => {
      let outcome: Outcome;
      try {
        job.data = JSON.parse(row.payload);
        outcome = await this.runAttempt(reg, job, row.lastError);
      } catch (e) {
        // Only an unreadable payload gets here (runAttempt does not throw).
        outcome = { kind: 'failed', error: e, message: `unreadable job payload: ${describeError(e)}` };
        this.log.error({ jobId: job.id, queue: job.name, attempt: job.attempt }, 'job payload is not JSON; failing it');
      }
      if (entry.released || outcome.kind === 'abandoned') return;
      if (entry.settled === 'committed' || (entry.settled && outcome.kind === 'completed')) {
        if (outcome.kind !== 'completed') this.log.warn({ jobId: job.id, queue: job.name, attempt: job.attempt, outcome: outcome.kind }, 'job failed after its own transaction completed it; it stays completed');
        return;
      }
      // completeIn's transaction may have failed with its handler: the fenced outcome applies only then.
      await this.settle(job, outcome, !!entry.settled);
    })()
      .catch((e) => this.log.error({ jobId: job.id, queue: job.name, attempt: job.attempt, err: describeError(e) }, 'could not store job outcome; it runs again when its lease is reclaimed'))
      .finally(() => {
        this.inFlight.delete(job.id);
        this.running.set(reg.name, (this.running.get(reg.name) ?? 1) - 1);
        this.unstall(reg.name); // a group's share or an ordering key may have come free
        // A freed slot needs a claim now only if jobs may be waiting; otherwise the poll finds new ones.
        if (this.maybeMore) this.loop.wake();
      });
  }

  private async settle(job: Job, outcome: Exclude<Outcome, { kind: 'abandoned' }>, maybeCompleted = false): Promise<void> {
    const now = Date.now();
    const { sql, args } = outcomeUpdate(outcome, now);
    if (outcome.kind === 'retry') this.loop.at(now + outcome.delayMs);
    // One statement, autocommit: no interactive transaction around it.
    const changed = await this.database.db.$executeRawUnsafe(sql, ...args, job.id, this.owner, job.attempt);
    if (changed === 1) return;
    const why = maybeCompleted ? 'job failed after its own transaction completed it, or was given back: it stays as it is' : 'job was given back before its outcome was stored';
    this.log.warn({ jobId: job.id, queue: job.name, attempt: job.attempt, outcome: outcome.kind }, why);
  }

  /** Back to `retry`, due now; the attempt counts (as in pg-boss). */
  private giveBack(jobs: Job[], reason: string): Promise<number> {
    const now = sqliteTime(Date.now());
    return this.tx(async (tx) => {
      let n = 0;
      for (const job of jobs) {
        n += await tx.$executeRawUnsafe(
          `UPDATE "Job" SET "state" = 'retry', "runAt" = ?, "lastError" = ?, "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ?
           WHERE "id" = ? AND "state" = 'active' AND "lockedBy" = ? AND "attempts" = ?`,
          now, reason, now, job.id, this.owner, job.attempt,
        );
      }
      return n;
    });
  }

  private async renewLeases(): Promise<void> {
    const ids = [...this.inFlight.values()].filter((f) => !f.released).map((f) => f.job.id);
    if (ids.length === 0) return;
    try {
      // One statement text for any number of ids (json_each), so it is prepared once.
      await this.database.db.$executeRawUnsafe(
        `UPDATE "Job" SET "lockedUntil" = ? WHERE "state" = 'active' AND "lockedBy" = ? AND "id" IN (SELECT "value" FROM json_each(?))`,
        sqliteTime(Date.now() + this.leaseMs),
        this.owner,
        JSON.stringify(ids),
      );
    } catch (e) {
      if (this.loop.running) this.log.warn({ err: describeError(e) }, 'could not renew job leases');
    }
  }

  /**
   * Gives back active jobs whose owner is not alive: all of them at start-up
   * ('all'), those whose lease ran out ('expired', with this queue's own that no
   * handler runs), and, between those sweeps, those whose owner is provably dead
   * ('dead'). Fenced on the owner read, so a job that changed hands meanwhile is
   * left alone.
   */
  private reclaim(which: 'all' | 'expired' | 'dead', reason: string): Promise<number> {
    const expiredOnly = which === 'expired';
    return this.tx(async (tx) => {
      const now = sqliteTime(Date.now());
      const rows = await tx.$queryRawUnsafe<Array<{ id: string; lockedBy: string | null }>>(
        `SELECT "id", "lockedBy" FROM "Job" WHERE "state" = 'active'${expiredOnly ? ` AND ("lockedUntil" IS NULL OR "lockedUntil" < ?)` : ''}`,
        ...(expiredOnly ? [now] : []),
      );
      let n = 0;
      for (const r of rows) {
        // Ours with no handler running it: its outcome could not be stored (renewLeases let it run out).
        const orphan = expiredOnly && r.lockedBy === this.owner && !this.inFlight.has(r.id);
        const state = ownerState(r.lockedBy);
        if (!orphan && (state === 'alive' || (which === 'dead' && state !== 'dead'))) continue;
        n += await tx.$executeRawUnsafe(
          `UPDATE "Job" SET "state" = 'retry', "runAt" = ?, "lockedBy" = NULL, "lockedUntil" = NULL, "lastError" = ?, "updatedAt" = ?
           WHERE "id" = ? AND "state" = 'active' AND "lockedBy" IS ?`,
          now, reason, now, r.id, r.lockedBy,
        );
      }
      return n;
    });
  }

  private async sweepExpiredLeases(): Promise<void> {
    const n = await this.reclaim('expired', 'the job lease expired before the job finished');
    if (n > 0) this.log.warn({ count: n }, 'gave back jobs whose lease expired');
  }

  private async cleanup(): Promise<void> {
    const now = Date.now();
    try {
      const n = await this.tx((tx) =>
        tx.$executeRawUnsafe(
          `DELETE FROM "Job" WHERE ("state" = 'completed' AND "updatedAt" < ?) OR ("state" = 'failed' AND "updatedAt" < ?)`,
          sqliteTime(now - this.keepCompletedMs),
          sqliteTime(now - this.keepFailedMs),
        ),
      );
      if (n > 0) this.log.info({ count: n }, 'deleted old finished jobs');
    } catch (e) {
      if (this.loop.running) this.log.warn({ err: describeError(e) }, 'could not delete old finished jobs');
    }
  }
}

/** INSERT_JOB's values for a request at `now`. */
function insertArgs(req: InsertRequest, now: number): unknown[] {
  const runAt = sqliteTime(now + req.startAfterMs);
  return [
    // keepTime: "lockedUntil" as a reservation until its own time, which hurry skips.
    req.id, req.name, JSON.stringify(req.data), req.singletonKey, req.orderingKey, req.group, runAt, req.keepTime ? runAt : null,
    req.maxAttempts ?? MAX_ATTEMPTS_BY_WORKER.sqlite, sqliteTime(now), sqliteTime(now), req.name, req.singletonKey,
  ];
}
