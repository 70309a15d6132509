// The durable job queue: one small interface, two backends (web/jobs/index.ts
// picks one by database provider).
//
//   PostgreSQL → pg-boss 12 (web/jobs/pgboss.ts), in its own schema (`pgboss`),
//                safe with any number of app instances sharing the database.
//   SQLite     → an in-process worker over the `Job` table (web/jobs/sqlite.ts),
//                ONE app process per database file.
//
// GUARANTEES (both backends)
//
// 1. Transactional enqueue. `enqueue(tx, …)` writes the job through the caller's
//    Prisma interactive transaction: the job exists if and only if that
//    transaction commits. A webhook handler records its Delivery row and its
//    dispatch job in one transaction; a rollback leaves neither. Call
//    `notify()` after the commit so a local worker picks the job up at once
//    (otherwise it waits for the next poll: on SQLite pollIntervalMs, growing to
//    8× that while passes find nothing; a job this process enqueues or retries
//    with a delay wakes the queue when it comes due, whatever the poll's wait).
//        const id = await db.$transaction(async (tx) => {
//          const d = await tx.delivery.create({ data });
//          return queue.enqueue(tx, 'dispatch', { deliveryId: d.id });
//        });
//        queue.notify();
//
// 2. Durability. Jobs are rows in the app's database. They survive stop(),
//    restarts and crashes. Delivery is at-least-once: a job whose worker died
//    mid-run is run again (SQLite: at once when the next process starts;
//    pg-boss: once its `expireInSeconds` passes, or its heartbeat stops if
//    `heartbeatSeconds` is set). Handlers must therefore be idempotent (the
//    courier call is, via its stable Idempotency-Key).
//
// 3. Retries. A handler that resolves is done. One that throws is retried after
//    an exponential, capped, jittered delay (web/retry/policy.ts jobBackoffDelay) until
//    `maxAttempts` attempts have run, and never sooner than the error's
//    `retryAfterMs` when it has one. An error with `retryable === false` skips
//    the remaining attempts.
//
// 4. Exhaustion. When a job will not run again (last attempt failed, a
//    non-retryable error, or the last attempt was lost to a crash/timeout),
//    `onExhausted(job, error)` is called, then the job is marked failed. In the
//    normal path that is exactly once, with the handler's own error. If the
//    process dies between the hook and marking the job failed, the hook runs
//    again: make it idempotent (e.g. "set the delivery FAILED unless it already
//    is"). A hook that throws is logged; the job is still marked failed.
//
// 5. Singletons. `singletonKey`: at most one job per (queue name, key) is
//    queued, waiting to retry, or running; enqueueing another returns null and
//    writes nothing. Enforced by the database (pg-boss's `exclusive` queue
//    policy's unique index; SQLite's single-writer INSERT … WHERE NOT EXISTS).
//    Once the job completes or fails, the key is free again.
//
// 6. Recurring work. `every(name, intervalMs, fn)` runs fn once per interval
//    bucket (floor(now / intervalMs)) across all instances: each instance
//    enqueues the current bucket's job under an id derived from (name,
//    interval, bucket), and only the first insert of that id succeeds. Buckets
//    during which no instance was running are skipped, not caught up. A failed
//    run is not retried; the next bucket runs as usual.
//
// 7. Shutdown. `stop({ graceMs })` stops claiming, waits up to graceMs for
//    running handlers, then gives back whatever is still running (it counts as
//    a failed attempt and is retried; the handler's `job.signal` is aborted).
//
// 8. Ordering keys. Jobs of one queue enqueued with the same `orderingKey` run
//    one at a time, in commit order (pg-boss: jobs of one key enqueued in ONE
//    transaction run in any order); jobs with different keys run concurrently
//    (up to the worker's concurrency). A job waiting to retry holds its key, so
//    a later job of that key waits behind it. The queue must be registered with
//    work(…, { ordered: true }) (pg-boss's `key_strict_fifo` policy is fixed when
//    the queue is created; on SQLite the claim takes only the oldest live job of
//    each key, and none while one is running). pg-boss also holds the key after
//    a job of it fails for good; SQLite lets the next one run.
//
// 9. Fairness groups. A job enqueued with `group` (the app uses the shop's id) belongs to
//    that group. A queue registered with work(…, { groupConcurrency: g }) runs at most g jobs
//    of one group at once in each instance (pg-boss's localGroupConcurrency; SQLite has one
//    process), so one group's backlog never holds every worker: another group's job is taken
//    by the next free worker. On SQLite the claim also takes groups in turn: each due job is ranked by its
//    group's running jobs plus its place in the group's queue, and the lowest rank goes first
//    (oldest first among equals), so a group with nothing running is served before the second
//    job of a busy one. On PostgreSQL a group's jobs may start out of order: two workers that
//    fetch at once may take its first and second, and pg-boss gives back whichever reaches the
//    group's count last. Jobs without a group are each a group of their own.
//
// 10. Holds. `hold(name, group, ms)`: until `hurry(name, group)` (or `ms` after the hold, when no
//    hurry comes), a job this process enqueues into that queue and group starts no sooner than `ms`
//    after its enqueue. `hurry` makes the group's (or, without a group, the queue's) jobs that wait
//    for their start time due, and is repeated at the notify() after the commit of a held job whose
//    transaction was open while it ran (on PostgreSQL the hurry could not see it). A job enqueued
//    with `keepTime` is neither held nor hurried: it runs at its own time (a delivery window's job
//    run early would find nothing to do and end, leaving its delivery without a job).
//    Holds live in memory: after a restart a held job runs at its own time, or at a hurry (start()
//    hurries the queues registered with `wakeAtStart`: the app's paced queues, web/shopify/paced-jobs.ts).
// 11. Taken along. `reserve(name, group, n, forMs)` moves up to n due, never-claimed jobs of a group
//    `forMs` ahead and returns them: no worker, no other reserve (SKIP LOCKED on PostgreSQL) and no
//    `hurry` of the group gets them meanwhile. The caller does their work with its own job's and ends
//    them with `completeWaiting(tx, …)` in the transaction that stores it; `release` gives them back; a crash
//    leaves them due again after `forMs`. A job claimed meanwhile (its reservation ran out) is never
//    completed underneath its worker.
// 12. Settled with its work (SQLite). `lockedWithJob(steps, …, job)` completes the running job in
//    the transaction that writes its work: both commit or neither does, and the queue stores no
//    outcome after. Fenced like any outcome: a job given back meanwhile undoes the whole run.
//    `completeIn(tx, job)` does the same in the caller's transaction, except that a job given back
//    meanwhile is only not completed there: the caller's work still commits, the job runs again.
//
// NOT GUARANTEED: ordering between jobs without a shared ordering key; exactly-once execution (see 2); that
// a handler which ignores `job.signal` stops when its job is given back.
//
// CONVENTIONS: payloads are JSON objects of ids only (they are stored in clear
// and are never logged); names match /^[\w.\-/]{1,100}$/. Logs carry job id,
// name and attempt, never the payload.
import type { Db, Tx } from '../db/client.ts';
import type { JobRetryPolicy } from '../retry/policy.ts';
import type { QueueStat } from '../ops/metrics.ts';

export type { QueueStat };

export type { JobRetryPolicy };

export interface Job<T = unknown> {
  id: string;
  name: string;
  data: T;
  /** The fairness group it was enqueued with (guarantee 9), or null. */
  group: string | null;
  /** 1-based number of this attempt. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the queue gives the job back (stop() past its grace, or pg-boss's expiry). */
  signal: AbortSignal;
}

/** A raw INSERT (ON CONFLICT DO NOTHING where it may meet its row) and its values, in the database's own placeholders. */
export interface RowInsert {
  sql: string;
  values: unknown[];
  /**
   * PostgreSQL only (oneStatementWithJob): data-modifying CTEs that run ahead of the row, in the same
   * statement, numbered with `values` (the row's WHERE may name them).
   */
  with?: string;
}

export interface EnqueueOptions {
  /** At most one queued, retrying or running job per (name, key); a duplicate returns null. */
  singletonKey?: string;
  /** Jobs of this queue with the same key run one at a time, in insert order (guarantee 8). Not with singletonKey. */
  orderingKey?: string;
  /** Fairness group, e.g. the shop's id (guarantee 9). */
  group?: string;
  /** Run no sooner than this many milliseconds after the enqueue. */
  startAfterMs?: number;
  /**
   * Planned for its time (a delivery window's opening, a slot's booking time): no hurry() makes it
   * due sooner, and no hold() makes it later (guarantee 10). enqueue() only.
   */
  keepTime?: boolean;
  /** This job's own attempt limit (default: its worker's policy, read when it runs). */
  maxAttempts?: number;
  /**
   * A caller-chosen id (a UUID). If a job with this id exists in any state
   * (until retention deletes it), nothing is written and null is returned.
   * every() uses it for its per-bucket ids.
   */
  id?: string;
}

export interface WorkOptions<T> {
  /** Jobs of this name run at once in this process (default 5). */
  concurrency?: number;
  /** This queue's retry policy, over the queue-wide defaults. */
  retry?: Partial<JobRetryPolicy>;
  /** At most this many jobs of one group run at once (guarantee 9; default: no limit). */
  groupConcurrency?: number;
  /** The queue's jobs carry ordering keys (guarantee 8). */
  ordered?: boolean;
  /**
   * pg-boss: a worker fetches up to this many due jobs in one statement, runs them side by side and
   * settles them in one statement (concurrency / batch workers, rounded up). Each fetch and settle
   * is a round trip and, on an ordered queue, a scan of the waiting keys: a busy queue of short jobs
   * does fewer. A batch's jobs are settled together, when its slowest is done. SQLite ignores it
   * (its claim is local). Default 1; at most concurrency.
   */
  batch?: number;
  /** Called when the job will not run again (guarantee 4). */
  onExhausted?: (job: Job<T>, error: unknown) => Promise<void>;
  /**
   * The queue's waiting jobs may wait for a wake only the process that queued them could give (a hold's
   * hurry, guarantee 10): start() makes them due, as that process's wakes are gone.
   */
  wakeAtStart?: boolean;
}

/** What an every() handler is told about its run (it may ignore it). */
export interface EveryRun {
  /** Start of the interval bucket this run belongs to. */
  scheduledAt: Date;
  jobId: string;
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

/** A job as stored, for operators and tests. */
export interface JobInfo {
  id: string;
  name: string;
  state: JobState;
  /** Attempts started so far. */
  attempts: number;
  /** The job's own maxAttempts, or null when its worker's policy decides. */
  maxAttempts: number | null;
  /** The latest failed attempt's error (pg-boss drops it when the job completes). */
  lastError: string | null;
}

export interface JobQueue {
  readonly backend: 'sqlite' | 'pg-boss';
  /**
   * Registers the handler for jobs named `name`, before or after start(). Its
   * retry policy governs the jobs it runs: maxAttempts (unless a job was
   * enqueued with its own) and the delays. SQLite applies the delays at each
   * failure; pg-boss stores them on the queue when the worker registers and
   * copies them into each job at enqueue, so a policy change reaches jobs
   * enqueued after the new worker registered.
   */
  work<T>(name: string, handler: (job: Job<T>) => Promise<void>, opts?: WorkOptions<T>): Promise<void>;
  /** Installs/migrates the backend's storage if needed and starts the workers. */
  start(): Promise<void>;
  /**
   * Adds a job inside the caller's transaction (or, given the bare client, on
   * its own). Returns its id, or null for a singleton/id duplicate. pg-boss
   * needs start() to have run first. On SQLite pass a transaction client: the
   * adapter's single connection runs a bare-client statement inside whatever
   * interactive transaction happens to be open (see sqlite.ts).
   */
  enqueue<T>(tx: Tx, name: string, data: T, opts?: EnqueueOptions): Promise<string | null>;
  /**
   * Makes the jobs of one group of a queue (no group given: of the whole queue) that wait for their
   * start time (enqueued with startAfterMs, never claimed: not a retry's backoff) due now, and wakes a
   * worker. For jobs that waited for something that has come sooner than their time
   * (web/shopify/paced-jobs.ts). Jobs another handler holds by reserve() keep their time: only
   * release() gives them back. Resolves with how many.
   */
  hurry(name: string, group?: string): Promise<number>;
  /**
   * Until hurry(name, group), or for `ms` when none comes, a job enqueued into this queue and group in
   * this process starts no sooner than `ms` after its enqueue (its time if no hurry comes: a restart
   * forgets holds). For a group whose jobs would only find their resource spent and wait again (web/shopify/paced-jobs.ts):
   * they are not claimed to be put back. A hurry that ran while a held job's transaction was still
   * open is repeated for it at the notify() after its commit.
   */
  hold(name: string, group: string, ms: number): void;
  /**
   * Runs `row` (one INSERT, without RETURNING; ON CONFLICT DO NOTHING where it may meet its row) and, only when it inserted
   * its row, enqueues the job: both or neither. PostgreSQL: ONE statement (the row's insert as a
   * data-modifying CTE ahead of pg-boss's own job INSERT), not BEGIN, two inserts and COMMIT, each a
   * round trip (issue 24). SQLite: one transaction. Resolves with whether the row was inserted.
   */
  insertWithJob<T>(db: Db, row: RowInsert, name: string, data: T, opts?: EnqueueOptions): Promise<boolean>;
  /** insertWithJob inside the caller's transaction (PostgreSQL: one statement in it, not two). */
  insertWithJobIn<T>(tx: Tx, row: RowInsert, name: string, data: T, opts?: EnqueueOptions): Promise<boolean>;
  /**
   * insertWithJob where `row` may carry leading CTEs (RowInsert.with) and must be ONE statement: null when
   * it cannot be here (SQLite; a pg-boss INSERT of another shape), and the caller does it another way.
   */
  oneStatementWithJob<T>(db: Db, row: RowInsert, name: string, data: T, opts?: EnqueueOptions): Promise<boolean | null>;
  /**
   * SQLite (other backends: null, nothing done): `steps`, then the job, as one transaction under the
   * connection's lock, with no await and no other statement of this process between them. Each step
   * must change exactly one row; if one does not, the transaction is rolled back and null returned,
   * and the caller takes its transaction path, which tells the cases apart. A step's values are as
   * raw SQL takes them (a boolean, a DateTime as dbTime's text). A singleton duplicate is not inserted,
   * and the steps are kept. True: all written.
   *
   * `settles`: the running job (of this queue instance) whose work these steps are. It is completed in
   * the same transaction, one commit less per job, and the queue stores no outcome of its own when its
   * handler returns. Its handler must not fail after this; if it does, the job stays completed and the
   * error is logged. A job given back meanwhile (its lease ran out) makes the whole run null.
   */
  lockedWithJob<T>(steps: readonly RowInsert[], name: string, data: T, opts?: EnqueueOptions, settles?: Job): Promise<true | null>;
  /**
   * SQLite (other backends: false, nothing done): completes `job`, running in this queue instance, in
   * the caller's transaction, fenced like any outcome: false (nothing written) when it was given back
   * or already settled. True: once the handler returns, the queue stores no outcome of its own, one
   * commit less per job. If the handler fails instead, its outcome is stored as usual, and changes
   * nothing if that transaction did commit. So a handler must not return normally after that
   * transaction failed.
   */
  completeIn(tx: Tx, job: Job): Promise<boolean>;
  /**
   * Takes up to `limit` jobs of one group of a queue that are due and were never claimed, oldest
   * first, for a handler that can do their work with its own (a shop's write-backs in one Shopify
   * call, web/dispatch/writeback.ts): their start time moves `forMs` ahead, so no worker, and no
   * other such handler, and no hurry, takes them meanwhile. Once their work is stored, completeWaiting
   * ends them in that transaction; release() gives them back; otherwise they are due again after
   * `forMs` (a crash loses none).
   */
  reserve<T>(name: string, group: string, limit: number, forMs: number): Promise<Array<{ id: string; data: T }>>;
  /**
   * Gives back jobs this handler reserved and did not complete: due `afterMs` from now (0: at once,
   * and a worker is woken), reserved no longer, so a hurry of their group makes them due again.
   * Completed or claimed ones are left alone. Resolves with how many.
   */
  release(name: string, ids: readonly string[], afterMs?: number): Promise<number>;
  /**
   * Completes the jobs of `ids` that still wait (never claimed), in the caller's transaction: their
   * work was done by another job (reserve). One a worker claimed meanwhile (its reservation ran out)
   * is left to run, and its handler finds the work done. Resolves with how many it completed.
   */
  completeWaiting(tx: Tx, name: string, ids: readonly string[]): Promise<number>;
  /** Wakes local workers; call after the enqueuing transaction commits. */
  notify(): void;
  /**
   * Recurring work: one run per interval across all instances (guarantee 6).
   * Register before or after start(), once per name in each instance.
   */
  every(name: string, intervalMs: number, handler: (run: EveryRun) => Promise<void>): Promise<void>;
  /**
   * Reads one job (null when unknown or deleted by retention). Not inside an
   * open SQLite transaction: it takes its own, which waits for that one.
   */
  getJob(name: string, id: string): Promise<JobInfo | null>;
  /** Per queue: jobs due and waiting, running, and the oldest waiting job's age (for /metrics). */
  stats(): Promise<QueueStat[]>;
  /** Stops claiming, waits for running handlers up to graceMs (default 10 s), gives back the rest. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/** Throw this (or any error with `retryable = false`) to skip the remaining attempts. */
export class PermanentJobError extends Error {
  readonly retryable = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}
