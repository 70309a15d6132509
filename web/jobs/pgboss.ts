// PostgreSQL backend: pg-boss 12, in its own schema (default `pgboss`), safe
// with any number of app instances on one database.
//
// ENQUEUE IN THE CALLER'S TRANSACTION. pg-boss's send() takes `db`, an
// IDatabase whose executeSql(text, values) runs its INSERT. We pass pg-boss's
// own Prisma adapter, fromPrisma(tx), which calls tx.$queryRawUnsafe(text,
// ...values) on the caller's interactive transaction, so the job row commits
// or rolls back with the Delivery row (verified in test/integration/jobs.test.ts:
// a rolled-back transaction leaves no job; before commit the job is invisible
// to other connections). The insert is a single statement with ON CONFLICT DO
// NOTHING, so a singleton or id duplicate returns null without aborting the
// caller's transaction. Before the insert, send() reads the queue's row
// (cached) through pg-boss's own pool, and we create the queue if needed; both
// happen outside the caller's transaction and write nothing about the job.
//
// QUEUES are created on first use with policy `exclusive`: pg-boss's unique
// index on (name, singleton_key) over created/retry/active rows is what makes
// singletonKey mean "one queued-or-running job per key". Under that policy a
// job without a key would collide with every other keyless job, so each job
// carries a key: `key:<singletonKey>` when the caller gave one, else
// `id:<job id>` (unique, so no constraint).
//
// RETRIES are scheduled by pg-boss (retryDelay, retryBackoff, retryDelayMax):
// the same curve as the SQLite backend, in whole seconds. work() writes the
// worker's delays onto the queue's row (createQueue/updateQueue), and pg-boss
// copies them into each job inserted after that. The decision to stop is the
// worker's (base.ts runAttempt): a job enqueued without maxAttempts gets a
// retry_limit pg-boss never reaches (policy.MAX_ATTEMPTS_BY_WORKER) and runs
// under its worker's maxAttempts; one enqueued with maxAttempts gets
// retry_limit = maxAttempts, one more claim than attempts. Either way a job
// whose LAST attempt was lost (worker killed, expireInSeconds passed) is
// claimed once more and reported to onExhausted instead of failing silently.
// A job that fails for good is settled as `deadletter` (pg-boss: terminal, no
// further retries; there is no dead letter queue) after onExhausted ran.
//
// CRASH RECOVERY: a job active for longer than expireInSeconds (default 300,
// also the handler's time budget; pg-boss fails the attempt when it is
// exceeded) is failed back to retry by any instance's supervisor, which looks
// every superviseIntervalSeconds (default 30). With heartbeatSeconds (>= 10) a
// dead worker is noticed after that long instead. Unlike SQLite, a restarted
// instance cannot tell its predecessor's jobs from a live peer's, so it waits
// for expiry like everyone else.
//
// START: pg-boss creates or migrates its schema under an advisory lock, so
// instances starting together are fine. Cron scheduling is off (every() is
// implemented on top of enqueue/work in base.ts); supervision (expiry,
// retention) is on in every instance, coordinated by pg-boss.
import { fromPrisma, PgBoss, type Db as PgBossDb, type JobWithMetadata, type JobResult } from 'pg-boss';
import type { Database, Db, Tx } from '../db/client.ts';
import { BaseJobQueue, type BaseOptions, type InsertRequest, type Registration } from './base.ts';
import { retryAfterOf } from '../retry/policy.ts';
import { describeError, holdKey, MAX_ATTEMPTS_BY_WORKER, pgBossJobRetryLimit, pgBossQueueRetry, recordedErrorMessage, resolveMaxAttempts } from './policy.ts';
import type { EnqueueOptions, Job, JobInfo, JobRetryPolicy, QueueStat, RowInsert } from './queue.ts';

/** A notify() within this long of an enqueue wakes a worker of that queue (the commit may come later). */
const RECENT_ENQUEUE_MS = 5_000;
/**
 * Planner settings of the jobs pool (pg-boss's statements and ours on its tables, nothing else). pg-boss's
 * strict-FIFO fetch (courier events) on a backlog larger than its statistics knew: the planner chose a bitmap
 * scan of every candidate, a sort, and a rescan of the materialized key heads per candidate, quadratic in the
 * backlog (auto_explain: 175 ms a fetch; PostgreSQL CPU per applied event 4.5-5.4 ms in a later burst of
 * bench:events instead of 1.5). Without bitmap scans it keeps the ordered index scan that stops at the first head.
 */
const JOBS_PLANNER = '-c enable_bitmapscan=off';
/**
 * A waiting job that reserve() holds, or one enqueued with keepTime, carries this as its output (pg-boss writes a job's output only
 * when it completes or fails, and a created job has none): hurry skips it, release clears it. `{}` so
 * that a job claimed after its reservation ran out reads no previous error (recordedErrorMessage).
 */
const RESERVED = '{}';
/** How often a queue's workers other than its first poll when idle (they are woken sooner: startWorker). */
const HELPER_POLL_SECONDS = 15;

export interface PgBossQueueOptions extends BaseOptions {
  instanceId?: string;
  /** How often idle workers poll (default 1000 ms, at least 500). notify() wakes local workers at once. */
  pollIntervalMs?: number;
  /** pg-boss's schema (default `pgboss`). */
  schema?: string;
  /** Seconds a job may stay active before its attempt is failed and retried (default 300). */
  expireInSeconds?: number;
  /** Optional worker heartbeat (>= 10 s): a job whose heartbeat stops is retried after this long. */
  heartbeatSeconds?: number;
  /**
   * How often lost jobs are looked for (default 30 s): pg-boss's supervise AND
   * monitor intervals, since expiry runs in the per-queue monitor pass, which
   * is throttled to monitorIntervalSeconds across all instances. Worst-case
   * recovery of a crashed worker's job ≈ expireInSeconds (or heartbeatSeconds)
   * + this + the retry delay.
   */
  superviseIntervalSeconds?: number;
  /** pg-boss's own connection pool (default 5). */
  poolSize?: number;
  /** How long completed/failed jobs are kept (default 7 days). */
  deleteAfterSeconds?: number;
}

const POLICY = 'exclusive';
/** Queues whose jobs carry ordering keys (queue.ts guarantee 8). */
const ORDERED_POLICY = 'key_strict_fifo';

export class PgBossJobQueue extends BaseJobQueue {
  readonly backend = 'pg-boss' as const;
  private readonly boss: PgBoss;
  private readonly pollIntervalSeconds: number;
  private readonly expireInSeconds: number;
  private readonly heartbeatSeconds: number | undefined;
  private readonly deleteAfterSeconds: number;
  private readonly schema: string;
  private readonly queues = new Map<string, Promise<void>>();
  private started = false;
  /** This instance's running jobs per queue and group (handle), so a job that fills its group's share wakes no sibling. */
  private readonly runningInGroup = new Map<string, number>();
  /** When each queue last got a job due now (notify() wakes a worker of those queues). */
  private readonly lastEnqueue = new Map<string, number>();

  constructor(database: Database, opts: PgBossQueueOptions) {
    super(database, opts);
    const target = database.target;
    if (target.provider !== 'postgres') throw new Error('PgBossJobQueue needs a PostgreSQL database');
    this.pollIntervalSeconds = Math.max(0.5, (opts.pollIntervalMs ?? 1000) / 1000);
    this.expireInSeconds = opts.expireInSeconds ?? 300;
    this.heartbeatSeconds = opts.heartbeatSeconds;
    this.deleteAfterSeconds = opts.deleteAfterSeconds ?? 7 * 24 * 3600;
    this.schema = opts.schema ?? 'pgboss';
    if (!/^[a-z_][a-z0-9_]*$/i.test(this.schema)) throw new Error('the pg-boss schema must be a plain identifier');
    const c = target.config;
    this.boss = new PgBoss({
      host: c.host,
      port: c.port,
      user: c.user,
      password: c.password,
      database: c.database,
      ssl: c.ssl,
      options: [c.options, JOBS_PLANNER].filter(Boolean).join(' '),
      max: opts.poolSize ?? 5,
      application_name: 'same-day-dispatch:jobs',
      schema: opts.schema ?? 'pgboss',
      createSchema: true,
      migrate: true,
      supervise: true,
      schedule: false,
      superviseIntervalSeconds: opts.superviseIntervalSeconds ?? 30,
      monitorIntervalSeconds: opts.superviseIntervalSeconds ?? 30,
      instanceName: opts.instanceId ?? 'same-day-dispatch',
    });
    this.boss.on('error', (error) => this.log.error({ err: describeError(error), queue: (error as { queue?: string }).queue }, 'pg-boss error'));
    // Not w.data: a slow_query warning carries the statement's values, which can hold a job payload.
    this.boss.on('warning', (w) => this.log.warn({ warning: w.message, type: (w.data as { type?: unknown } | undefined)?.type }, 'pg-boss warning'));
  }

  protected async startBackend(): Promise<void> {
    await this.boss.start();
    this.started = true;
  }

  private queueOptions(retry: JobRetryPolicy) {
    return {
      ...pgBossQueueRetry(retry),
      expireInSeconds: this.expireInSeconds,
      deleteAfterSeconds: this.deleteAfterSeconds,
      ...(this.heartbeatSeconds ? { heartbeatSeconds: this.heartbeatSeconds } : {}),
    };
  }

  /**
   * Creates the queue once per process (in the database it is idempotent: ON
   * CONFLICT DO NOTHING, so an existing queue keeps its settings). Created
   * from an enqueue, it carries the default delays until a worker registers.
   */
  private ensureQueue(name: string, ordered: boolean): Promise<void> {
    let p = this.queues.get(name);
    if (!p) {
      const policy = ordered ? ORDERED_POLICY : POLICY;
      p = (async () => {
        await this.boss.createQueue(name, { policy, ...this.queueOptions(this.registrations.get(name)?.retry ?? this.defaults) });
        const q = await this.boss.getQueue(name);
        if (q?.policy !== policy) {
          throw new Error(`pg-boss queue ${name} has policy ${q?.policy}, expected ${policy}; ${ordered ? 'ordering' : 'singleton'} keys would not hold`);
        }
      })();
      this.queues.set(name, p);
      p.catch(() => this.queues.delete(name));
    }
    return p;
  }

  protected async startWorker(reg: Registration): Promise<void> {
    await this.ensureQueue(reg.name, reg.ordered);
    // The worker's policy (and this instance's expiry settings) for jobs inserted from now on.
    await this.boss.updateQueue(reg.name, this.queueOptions(reg.retry));
    const workers = Math.ceil(reg.concurrency / reg.batch);
    const gc = reg.groupConcurrency;
    const options = { batchSize: reg.batch, includeMetadata: true as const, perJobResults: true as const };
    const handler = (jobs: JobWithMetadata<unknown>[]) => Promise.all(jobs.map((j) => this.handle(reg, j)));
    // Per instance, held strictly: a job fetched past it is given back before its handler runs, and
    // the next fetch skips the group. Each instance keeps workers free for other groups.
    const groups = (limit: number | null) => (limit !== null ? { localGroupConcurrency: limit } : {});
    // One worker per queue polls at the interval; the others poll rarely and are woken: by notify()
    // (this instance's enqueues), by a sibling that fetched a job (a backlog from another instance,
    // or jobs coming due), and after each job of their own. Every worker polling each second was
    // ~36 fetches a second across the queues of an idle app (about a quarter of its idle CPU, issue 24).
    // pg-boss keeps one group limit per queue, the last work() call's, and refuses one above the
    // call's localConcurrency: the polling worker registers first, with at most 1.
    if (workers === 1 || (gc !== null && gc > workers - 1)) {
      await this.boss.work(reg.name, { ...options, ...groups(gc), localConcurrency: workers, pollingIntervalSeconds: this.pollIntervalSeconds }, handler);
      return;
    }
    await this.boss.work(reg.name, { ...options, ...groups(gc === null ? null : 1), localConcurrency: 1, pollingIntervalSeconds: this.pollIntervalSeconds }, handler);
    await this.boss.work(reg.name, { ...options, ...groups(gc), localConcurrency: workers - 1, pollingIntervalSeconds: Math.max(this.pollIntervalSeconds, HELPER_POLL_SECONDS) }, handler);
  }

  private async handle(reg: Registration, j: JobWithMetadata<unknown>): Promise<JobResult> {
    const job: Job = {
      id: j.id,
      name: j.name,
      data: j.data,
      group: j.groupId ?? null,
      attempt: j.retryCount + 1,
      maxAttempts: resolveMaxAttempts(j.retryLimit, reg.retry.maxAttempts),
      signal: j.signal,
    };
    const groupKey = job.group === null ? null : holdKey(reg.name, job.group);
    const inGroup = groupKey === null ? 0 : (this.runningInGroup.get(groupKey) ?? 0) + 1;
    if (groupKey !== null) this.runningInGroup.set(groupKey, inGroup);
    // More may wait behind this one: an idle sibling looks. Not when this job filled its group's
    // share: the sibling's fetch would skip the group (in a sale, one empty fetch per booking).
    if (reg.groupConcurrency === null || inGroup < reg.groupConcurrency) this.wakeIdleWorker(reg.name);
    let outcome;
    try {
      outcome = await this.runAttempt(reg, job, recordedErrorMessage(j.output));
    } finally {
      if (groupKey !== null) {
        const left = (this.runningInGroup.get(groupKey) ?? 1) - 1;
        if (left > 0) this.runningInGroup.set(groupKey, left);
        else this.runningInGroup.delete(groupKey);
      }
    }
    this.wakeBusyWorkers(reg.name);
    switch (outcome.kind) {
      case 'completed':
        return { id: j.id, status: 'completed' };
      case 'retry':
        // pg-boss computes the delay itself; a longer wait the failure asked for
        // (Retry-After) is served here, before the attempt is settled.
        await this.holdFor(retryAfterOf(outcome.error), j.signal);
        return { id: j.id, status: 'failed', output: { message: outcome.message } };
      case 'failed':
        return { id: j.id, status: 'deadletter', output: { message: outcome.message } };
      case 'abandoned':
        // pg-boss has already failed this attempt; what we return is not stored.
        return { id: j.id, status: 'failed', output: { message: 'abandoned' } };
    }
  }

  /** Waits up to `ms` (at most half the job's expiry), or until the job is given back. */
  private holdFor(ms: number | undefined, signal: AbortSignal): Promise<void> {
    const wait = Math.min(ms ?? 0, this.expireInSeconds * 500);
    if (wait <= 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, wait);
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  protected async insert(tx: Tx, req: InsertRequest): Promise<string | null> {
    const db = fromPrisma(tx);
    const id = await this.send(req, db);
    // keepTime: marked as reserve() marks a job, so hurry skips it; pg-boss's send() cannot set the output.
    if (id && req.keepTime) await db.executeSql(`UPDATE ${this.schema}.job SET output = '${RESERVED}'::jsonb WHERE name = $1 AND id = $2`, [req.name, id]);
    return id;
  }

  /**
   * One statement, the row's insert a CTE that pg-boss's own job INSERT (queue defaults, policy, keys,
   * built as always) runs behind: no BEGIN and COMMIT round trips. A pg-boss INSERT not of the
   * expected shape (guardedJobInsert) gets the transaction instead.
   */
  protected override async insertGuarded(db: Tx, row: RowInsert, req: InsertRequest, inTransaction: boolean): Promise<boolean> {
    return (await this.guarded(db, row, req)) ?? super.insertGuarded(db, row, req, inTransaction);
  }

  override async oneStatementWithJob<T>(db: Db, row: RowInsert, name: string, data: T, opts: EnqueueOptions = {}): Promise<boolean | null> {
    const inserted = await this.guarded(db, row, this.request(name, data, opts));
    this.log.debug({ queue: name, inserted }, 'one statement with a job');
    return inserted;
  }

  /** The row and pg-boss's job INSERT as one statement (guardedJobInsert); null when pg-boss's INSERT has another shape. */
  private async guarded(db: Tx, row: RowInsert, req: InsertRequest): Promise<boolean | null> {
    if (req.keepTime) throw new TypeError('keepTime is for enqueue() only');
    let inserted: boolean | null = null;
    await this.send(req, {
      executeSql: async (text: string, values: unknown[] = []) => {
        const sql = guardedJobInsert(text, row);
        if (!sql) return { rows: [] };
        const rows = await db.$queryRawUnsafe<Array<{ inserted: number; id: string | null }>>(sql, ...row.values, ...values);
        inserted = Number(rows[0]?.inserted) === 1;
        return { rows: rows[0]?.id ? [{ id: String(rows[0].id) }] : [] };
      },
    });
    return inserted;
  }

  private async send(req: InsertRequest, db: PgBossDb): Promise<string | null> {
    if (!this.started) throw new Error('start() the pg-boss job queue before enqueueing');
    await this.ensureQueue(req.name, req.orderingKey !== null);
    if (req.startAfterMs === 0) this.lastEnqueue.set(req.name, Date.now());
    return this.boss.send(req.name, req.data as object, {
      db,
      id: req.id,
      ...(req.group !== null ? { group: { id: req.group } } : {}),
      // key_strict_fifo: the ordering key is pg-boss's singleton key (one running per key, FIFO).
      singletonKey: req.orderingKey !== null ? `key:${req.orderingKey}` : req.singletonKey !== null ? `key:${req.singletonKey}` : `id:${req.id}`,
      ...(req.startAfterMs > 0 ? { startAfter: req.startAfterMs / 1000 } : {}),
      expireInSeconds: this.expireInSeconds,
      ...(this.heartbeatSeconds ? { heartbeatSeconds: this.heartbeatSeconds } : {}),
      // Delays come from the queue's row; the limit only when the job has its own.
      ...(req.maxAttempts !== null ? { retryLimit: pgBossJobRetryLimit(req.maxAttempts) } : {}),
    });
  }

  protected notifyBackend(): void {
    if (!this.started) return;
    // One idle worker per queue that got a job lately: waking every worker of every queue made
    // each commit cost a fetch query per worker (7 queues × concurrency). Busy workers fetch
    // again when their job is settled (wakeBusyWorkers); the rest poll.
    const since = Date.now() - RECENT_ENQUEUE_MS;
    const woken = new Set<string>();
    for (const w of this.boss.getWipData()) {
      if (w.count > 0 || woken.has(w.name) || (this.lastEnqueue.get(w.name) ?? 0) < since) continue;
      woken.add(w.name);
      this.boss.notifyWorker(w.id);
    }
  }

  /**
   * A pg-boss worker waits a full polling interval after every job, even with
   * a backlog (burst mode does not apply at batchSize 1). Notifying the busy
   * workers of this queue (among them the one running this job) makes each
   * fetch again as soon as its job is settled; idle workers keep polling.
   */
  private wakeBusyWorkers(name: string): void {
    for (const w of this.boss.getWipData()) if (w.name === name && w.count > 0) this.boss.notifyWorker(w.id);
  }

  private wakeIdleWorker(name: string): void {
    const idle = this.boss.getWipData().find((w) => w.name === name && w.count === 0);
    if (idle) this.boss.notifyWorker(idle.id);
  }

  protected async hurryBackend(name: string, group: string | null): Promise<number> {
    if (!this.started) return 0;
    // pg-boss has no call for it; its job table's columns are the ones stats() reads too.
    const n = await this.updated(
      `UPDATE ${this.schema}.job SET start_after = now()
         WHERE name = $1 AND ($2::text IS NULL OR group_id = $2) AND state = 'created' AND start_after > now() AND output IS NULL`,
      [name, group],
    );
    if (n > 0) for (const w of this.boss.getWipData()) if (w.name === name && w.count === 0) this.boss.notifyWorker(w.id);
    return n;
  }

  async reserve<T>(name: string, group: string, limit: number, forMs: number): Promise<Array<{ id: string; data: T }>> {
    if (!this.started) return [];
    // SKIP LOCKED: two handlers reserving at once take different jobs. A CTE, so the LIMIT holds: an
    // UPDATE … WHERE id IN (SELECT … LIMIT n) may run its subquery more than once (seen: 8 rows for 5).
    const { rows } = await this.boss.getDb().executeSql(
      `WITH picked AS (SELECT id FROM ${this.schema}.job WHERE name = $1 AND group_id = $2 AND state = 'created' AND start_after <= now()
           ORDER BY start_after, created_on, id LIMIT $3 FOR UPDATE SKIP LOCKED)
       UPDATE ${this.schema}.job j SET start_after = now() + make_interval(secs => $4::double precision / 1000), output = '${RESERVED}'::jsonb
         FROM picked WHERE j.name = $1 AND j.id = picked.id
         RETURNING j.id, j.data`,
      [name, group, limit, forMs],
    );
    return (rows as Array<{ id: string; data: T }>).map((r) => ({ id: String(r.id), data: r.data }));
  }

  /** Runs an UPDATE on pg-boss's pool; resolves with how many rows it changed. */
  private async updated(update: string, values: unknown[]): Promise<number> {
    const { rows } = await this.boss.getDb().executeSql(`WITH changed AS (${update} RETURNING 1) SELECT count(*)::int AS n FROM changed`, values);
    return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
  }

  async release(name: string, ids: readonly string[], afterMs = 0): Promise<number> {
    if (!this.started || !ids.length) return 0;
    const n = await this.updated(
      `UPDATE ${this.schema}.job SET start_after = now() + make_interval(secs => $3::double precision / 1000), output = NULL
         WHERE name = $1 AND state = 'created' AND id = ANY($2::uuid[])`,
      [name, [...ids], afterMs],
    );
    if (n > 0 && afterMs <= 0) this.wakeIdleWorker(name);
    return n;
  }

  async completeWaiting(tx: Tx, name: string, ids: readonly string[]): Promise<number> {
    if (!ids.length) return 0;
    // pg-boss's complete() takes active jobs only; these were never claimed.
    return tx.$executeRawUnsafe(
      `UPDATE ${this.schema}.job SET state = 'completed', completed_on = ${this.schema}.job_now() WHERE name = $1 AND state = 'created' AND id = ANY($2::uuid[])`,
      name, [...ids],
    );
  }

  async getJob(name: string, id: string): Promise<JobInfo | null> {
    const [j] = await this.boss.findJobs<unknown>(name, { id });
    if (!j) return null;
    return {
      id: j.id,
      name: j.name,
      state: j.state,
      // retryCount counts re-claims; a job never claimed has 0 attempts.
      attempts: j.startedOn ? j.retryCount + 1 : j.retryCount,
      maxAttempts: j.retryLimit === MAX_ATTEMPTS_BY_WORKER.pgBossRetryLimit ? null : j.retryLimit,
      lastError: recordedErrorMessage(j.output),
    };
  }

  async stats(): Promise<QueueStat[]> {
    if (!this.started) return [];
    const schema = this.schema;
    const { rows } = await this.boss.getDb().executeSql(
      `SELECT name,
              count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now()) AS waiting,
              count(*) FILTER (WHERE state = 'active') AS active,
              COALESCE(EXTRACT(EPOCH FROM now() - min(start_after) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())), 0) AS lag
         FROM ${schema}.job WHERE state IN ('created', 'retry', 'active') GROUP BY name`,
      [],
    );
    return (rows as Array<{ name: string; waiting: string; active: string; lag: string }>).map((r) => ({
      name: r.name,
      waiting: Number(r.waiting),
      active: Number(r.active),
      lagSeconds: Math.max(0, Number(r.lag)),
    }));
  }

  protected async stopBackend(graceMs: number): Promise<void> {
    // Also when start() is still in progress: pg-boss's stop() waits for it.
    this.started = false;
    // graceful: stop fetching, wait up to `timeout` (pg-boss's floor: 1 s) for
    // running handlers, then fail what is left back to retry and abort its signal.
    await this.boss.stop({ graceful: graceMs > 0, timeout: Math.max(1000, graceMs), close: true });
  }
}

const JOB_PARAM = '$1::text::json';
const ON_CONFLICT = 'ON CONFLICT DO NOTHING';

/**
 * pg-boss's job INSERT (plans.insertJobs: INSERT … SELECT … FROM json_to_recordset($1) … ON CONFLICT DO
 * NOTHING RETURNING id) made to run only when `row` inserted its row, in one statement. Null when the
 * INSERT is not of that shape (a pg-boss upgrade, NOTIFY on insert): the caller falls back to a transaction.
 */
export function guardedJobInsert(jobSql: string, row: RowInsert): string | null {
  const job = jobSql.trim();
  const once = (part: string) => job.split(part).length === 2;
  if (!/^INSERT\s/i.test(job) || !once(JOB_PARAM) || !once(ON_CONFLICT) || (job.match(/\$\d+/g) ?? []).length !== 1) return null;
  const guarded = job
    .replace(JOB_PARAM, () => `$${row.values.length + 1}::text::json`)
    .replace(ON_CONFLICT, () => `WHERE EXISTS (SELECT 1 FROM guard) ${ON_CONFLICT}`);
  return `WITH ${row.with ? `${row.with}, ` : ''}guard AS (${row.sql} RETURNING 1), job AS (${guarded}) SELECT (SELECT count(*) FROM guard)::int AS "inserted", (SELECT id FROM job LIMIT 1) AS "id"`;
}
