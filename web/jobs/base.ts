// What both backends share: worker registration, argument checks, retry-policy
// resolution, running one attempt and deciding what follows (runAttempt), and
// every() on top of enqueue/work. A backend implements storage only: start and
// stop, insert, the claim loop, and writing an attempt's outcome.
import { randomUUID } from 'node:crypto';
import type { Database, Db, Tx } from '../db/client.ts';
import type { Logger } from '../ops/logger.ts';
import { afterFailure, assertMaxAttempts, DEFAULT_JOB_RETRY, isRetryable, jobRetryDelay, resolveJobRetryPolicy, retryAfterOf } from '../retry/policy.ts';
import { assertInterval, assertQueueName, bucketJobId, describeError, holdKey, msUntilNextBucket, splitHoldKey, timeBucket } from './policy.ts';
import type { IntakeFirst } from './intake-first.ts';
import type { EnqueueOptions, EveryRun, Job, JobInfo, JobQueue, JobRetryPolicy, QueueStat, RowInsert, WorkOptions } from './queue.ts';

export interface Registration<T = unknown> {
  name: string;
  handler: (job: Job<T>) => Promise<void>;
  concurrency: number;
  retry: JobRetryPolicy;
  ordered: boolean;
  /** Jobs of one group running at once (guarantee 9), or null: no limit. */
  groupConcurrency: number | null;
  /** Jobs a pg-boss worker fetches, and settles, in one statement each (WorkOptions.batch). */
  batch: number;
  onExhausted?: (job: Job<T>, error: unknown) => Promise<void>;
  /** start() hurries the queue (WorkOptions.wakeAtStart). */
  wakeAtStart: boolean;
}

/** What an attempt leaves the backend to store. */
export type Outcome =
  | { kind: 'completed' }
  /** delayMs: the backoff, or the error's retryAfterMs when longer. */
  | { kind: 'retry'; error: unknown; message: string; delayMs: number }
  | { kind: 'failed'; error: unknown; message: string }
  /** The job was given back while its handler ran (stop past grace, expiry): store nothing. */
  | { kind: 'abandoned' };

/** A validated enqueue, as handed to the backend. */
export interface InsertRequest {
  id: string;
  name: string;
  data: unknown;
  singletonKey: string | null;
  orderingKey: string | null;
  group: string | null;
  startAfterMs: number;
  /** The job's own maxAttempts, or null: its worker's policy decides when it runs. */
  maxAttempts: number | null;
  /** EnqueueOptions.keepTime: hurry() leaves it. */
  keepTime: boolean;
}

export interface BaseOptions {
  log: Logger;
  defaults?: Partial<JobRetryPolicy>;
  /** While webhooks arrive and the event loop runs late, jobs wait before they start (intake-first.ts). */
  intakeFirst?: Pick<IntakeFirst, 'turn'>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DEFAULT_CONCURRENCY = 5;
const DEFAULT_GRACE_MS = 10_000;
/** How long a held enqueue waits for its notify() to check for a hurry it missed (longer than any enqueuing transaction). */
const HELD_CHECK_MS = 60_000;
/** A hold until hurry(), or until `until` (Date.now() ms) when none comes. `hurried`: a held enqueue's notify() repeats it. */
interface Hold {
  ms: number;
  until: number;
  hurried: boolean;
}

interface Schedule {
  name: string;
  intervalMs: number;
  timer: NodeJS.Timeout | null;
}

type Lifecycle = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

export abstract class BaseJobQueue implements JobQueue {
  abstract readonly backend: 'sqlite' | 'pg-boss';
  protected readonly database: Database;
  protected readonly log: Logger;
  protected readonly defaults: JobRetryPolicy;
  private readonly intakeFirst: Pick<IntakeFirst, 'turn'> | undefined;
  protected readonly registrations = new Map<string, Registration>();
  protected lifecycle: Lifecycle = 'new';
  private readonly schedules = new Map<string, Schedule>();
  private stopping: Promise<void> | null = null;

  constructor(database: Database, opts: BaseOptions) {
    this.database = database;
    this.log = opts.log;
    this.defaults = resolveJobRetryPolicy(DEFAULT_JOB_RETRY, opts.defaults);
    this.intakeFirst = opts.intakeFirst;
  }

  // ---- backend hooks ----
  protected abstract startBackend(): Promise<void>;
  /** Starts claiming jobs for a registration (called once per name, after startBackend). */
  protected abstract startWorker(reg: Registration): Promise<void>;
  protected abstract insert(tx: Tx, req: InsertRequest): Promise<string | null>;
  protected abstract stopBackend(graceMs: number): Promise<void>;
  /** Wakes local workers (notify() after its hold check). */
  protected abstract notifyBackend(): void;
  /** Makes a group's (null: every group's) jobs that wait for their start time due now (hurry() after it ends the hold). */
  protected abstract hurryBackend(name: string, group: string | null): Promise<number>;
  abstract getJob(name: string, id: string): Promise<JobInfo | null>;
  abstract stats(): Promise<QueueStat[]>;
  abstract reserve<T>(name: string, group: string, limit: number, forMs: number): Promise<Array<{ id: string; data: T }>>;
  abstract completeWaiting(tx: Tx, name: string, ids: readonly string[]): Promise<number>;
  abstract release(name: string, ids: readonly string[], afterMs?: number): Promise<number>;

  // ---- JobQueue ----
  async work<T>(name: string, handler: (job: Job<T>) => Promise<void>, opts: WorkOptions<T> = {}): Promise<void> {
    assertQueueName(name);
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    if (this.registrations.has(name)) throw new Error(`a worker for jobs named ${name} is already registered`);
    if (this.lifecycle === 'stopping' || this.lifecycle === 'stopped') throw new Error('the job queue is stopped');
    const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 100) throw new RangeError('concurrency must be an integer from 1 to 100');
    const groupConcurrency = opts.groupConcurrency ?? null;
    if (groupConcurrency !== null && (!Number.isInteger(groupConcurrency) || groupConcurrency < 1 || groupConcurrency > concurrency)) {
      throw new RangeError('groupConcurrency must be an integer from 1 to concurrency');
    }
    const batch = opts.batch ?? 1;
    if (!Number.isInteger(batch) || batch < 1 || batch > concurrency) throw new RangeError('batch must be an integer from 1 to concurrency');
    const reg: Registration<T> = { name, handler, concurrency, retry: resolveJobRetryPolicy(this.defaults, opts.retry), ordered: opts.ordered === true, groupConcurrency, batch, wakeAtStart: opts.wakeAtStart === true };
    if (opts.onExhausted) reg.onExhausted = opts.onExhausted;
    this.registrations.set(name, reg as Registration);
    if (this.lifecycle === 'started') await this.startWorker(reg as Registration);
  }

  async start(): Promise<void> {
    if (this.lifecycle !== 'new') throw new Error(`the job queue cannot start: it is ${this.lifecycle}`);
    this.lifecycle = 'starting';
    try {
      await this.startBackend();
      // A work() call during start lands in the map and is visited here.
      for (const reg of this.registrations.values()) {
        if (this.isStopping()) break;
        await this.startWorker(reg);
      }
    } catch (e) {
      if (this.isStopping()) return;
      this.lifecycle = 'new';
      throw e;
    }
    if (this.isStopping()) return; // stop() was called meanwhile; it stops what did start
    this.lifecycle = 'started';
    for (const s of this.schedules.values()) void this.tick(s);
    this.log.info({ backend: this.backend, queues: [...this.registrations.keys()] }, 'job queue started');
    for (const reg of this.registrations.values()) if (reg.wakeAtStart) await this.wakeAtStart(reg.name);
  }

  /** Guarantee 10: the holds of a stopped process are gone, and so are its hurries. Its parked jobs are due now. */
  private async wakeAtStart(name: string): Promise<void> {
    try {
      const count = await this.hurryBackend(name, null);
      if (count) this.log.info({ queue: name, count }, 'jobs waiting for a wake of an earlier process: due now');
    } catch (e) {
      this.log.warn({ queue: name, err: describeError(e) }, 'could not make the jobs of an earlier process due; they run at their own time');
    }
  }

  // ---- holds (queue.ts: hold, hurry) ----
  /** `name|group` → its hold, until hurry(name, group) or the hold's end. */
  private readonly holds = new Map<string, Hold>();
  /** Held enqueues not yet checked: `name|group` → the hold it saw, and when (dropped after HELD_CHECK_MS). */
  private readonly heldEnqueues = new Map<string, { hold: Hold; at: number }>();

  hold(name: string, group: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('a hold must be >= 0 ms');
    const key = holdKey(name, group);
    const until = Date.now() + ms;
    const hold = this.holds.get(key);
    // The same hold, longer: a held enqueue keeps watching the one a hurry will end.
    if (hold) Object.assign(hold, { ms, until: Math.max(hold.until, until) });
    else this.holds.set(key, { ms, until, hurried: false });
  }

  async hurry(name: string, group?: string): Promise<number> {
    // One group: one lookup (a sale's budget wakes come per shop); every group: the start-up wake, once.
    const keys = group === undefined ? [...this.holds.keys()].filter((key) => splitHoldKey(key)[0] === name) : [holdKey(name, group)];
    for (const key of keys) {
      const hold = this.holds.get(key);
      if (!hold) continue;
      hold.hurried = true;
      this.holds.delete(key);
    }
    return this.hurryBackend(name, group ?? null);
  }

  notify(): void {
    // A hurry that ran while a held enqueue's transaction was open did not see its job (PostgreSQL: the
    // UPDATE runs on another connection; SQLite's waits for the transaction). Now it is committed: hurry again.
    if (this.heldEnqueues.size) {
      const now = Date.now();
      for (const [key, seen] of this.heldEnqueues) {
        if (seen.hold.hurried) {
          this.heldEnqueues.delete(key);
          const [name, group] = splitHoldKey(key);
          this.hurryBackend(name, group).catch((e) => this.log.warn({ queue: name, err: describeError(e) }, 'could not make held jobs due; they run at their own time'));
        } else if (now - seen.at > HELD_CHECK_MS) this.heldEnqueues.delete(key);
      }
    }
    this.notifyBackend();
  }

  /** The start delay a hold adds to an enqueue into name and group (0: none), noting the enqueue for notify(). */
  private held(name: string, group: string | null, startAfterMs: number): number {
    if (group === null || !this.holds.size) return 0;
    const key = holdKey(name, group);
    const hold = this.holds.get(key);
    if (!hold) return 0;
    const now = Date.now();
    // No hurry came: the held jobs are due at their own time, and so are new ones.
    if (now >= hold.until) {
      this.holds.delete(key);
      return 0;
    }
    if (hold.ms > startAfterMs) this.heldEnqueues.set(key, { hold, at: now });
    return hold.ms;
  }

  /** Checks an enqueue's arguments and shapes its request. */
  protected request(name: string, data: unknown, opts: EnqueueOptions): InsertRequest {
    assertQueueName(name);
    const maxAttempts = opts.maxAttempts ?? null;
    if (maxAttempts !== null) assertMaxAttempts(maxAttempts);
    const startAfterMs = opts.startAfterMs ?? 0;
    if (!Number.isFinite(startAfterMs) || startAfterMs < 0) throw new RangeError('startAfterMs must be >= 0');
    const key = opts.singletonKey ?? null;
    if (key !== null && (typeof key !== 'string' || key.length === 0 || key.length > 200)) {
      throw new TypeError('singletonKey must be a string of 1-200 characters');
    }
    if (opts.id !== undefined && !UUID.test(opts.id)) throw new TypeError('id must be a lower-case UUID');
    const orderingKey = opts.orderingKey ?? null;
    if (orderingKey !== null && (typeof orderingKey !== 'string' || orderingKey.length === 0 || orderingKey.length > 200)) {
      throw new TypeError('orderingKey must be a string of 1-200 characters');
    }
    if (orderingKey !== null && key !== null) throw new TypeError('a job has a singletonKey or an orderingKey, not both');
    const group = opts.group ?? null;
    if (group !== null && (typeof group !== 'string' || group.length === 0 || group.length > 200)) throw new TypeError('group must be a string of 1-200 characters');
    const keepTime = opts.keepTime === true;
    const held = keepTime ? 0 : this.held(name, group, startAfterMs);
    return {
      id: opts.id ?? randomUUID(),
      name,
      data: data === undefined ? null : data,
      singletonKey: key,
      orderingKey,
      group,
      startAfterMs: Math.max(startAfterMs, held),
      maxAttempts,
      keepTime,
    };
  }

  async enqueue<T>(tx: Tx, name: string, data: T, opts: EnqueueOptions = {}): Promise<string | null> {
    const req = this.request(name, data, opts);
    const id = await this.insert(tx, req);
    this.log.debug({ jobId: id ?? req.id, queue: name, duplicate: id === null, startAfterMs: req.startAfterMs }, id ? 'job enqueued' : 'job not enqueued: duplicate');
    return id;
  }

  async insertWithJob<T>(db: Db, row: RowInsert, name: string, data: T, opts: EnqueueOptions = {}): Promise<boolean> {
    return this.logged(await this.insertGuarded(db, row, this.request(name, data, opts), false), name);
  }

  async insertWithJobIn<T>(tx: Tx, row: RowInsert, name: string, data: T, opts: EnqueueOptions = {}): Promise<boolean> {
    return this.logged(await this.insertGuarded(tx, row, this.request(name, data, opts), true), name);
  }

  /** One statement only where the backend can (pg-boss overrides it). */
  async oneStatementWithJob<T>(_db: Db, _row: RowInsert, _name: string, _data: T, _opts: EnqueueOptions = {}): Promise<boolean | null> {
    return null;
  }

  /** SQLite only (sqlite.ts overrides it). */
  async completeIn(_tx: Tx, _job: Job): Promise<boolean> {
    return false;
  }

  /** SQLite only (sqlite.ts overrides it). */
  async lockedWithJob<T>(_steps: readonly RowInsert[], _name: string, _data: T, _opts: EnqueueOptions = {}, _settles?: Job): Promise<true | null> {
    return null;
  }

  private logged(inserted: boolean, queue: string): boolean {
    this.log.debug({ queue, inserted }, inserted ? 'row and job inserted' : 'row not inserted: no job');
    return inserted;
  }

  /** The row, then the job if the row was inserted, in one transaction (pg-boss overrides it with one statement). */
  protected insertGuarded(db: Tx, row: RowInsert, req: InsertRequest, inTransaction: boolean): Promise<boolean> {
    if (row.with) throw new Error('a row with leading CTEs needs oneStatementWithJob');
    const run = async (tx: Tx) => {
      if ((await tx.$executeRawUnsafe(row.sql, ...row.values)) !== 1) return false;
      await this.insert(tx, req);
      return true;
    };
    return inTransaction ? run(db) : (db as Db).$transaction(run);
  }

  async every(name: string, intervalMs: number, handler: (run: EveryRun) => Promise<void>): Promise<void> {
    assertInterval(intervalMs);
    if (this.schedules.has(name)) throw new Error(`${name} is already scheduled`);
    await this.work<{ scheduledAt: string }>(name, (job) => handler({ scheduledAt: new Date(job.data.scheduledAt), jobId: job.id }), {
      concurrency: 1,
      retry: { maxAttempts: 1 },
    });
    const s: Schedule = { name, intervalMs, timer: null };
    this.schedules.set(name, s);
    if (this.lifecycle === 'started') void this.tick(s);
  }

  stop(opts: { graceMs?: number } = {}): Promise<void> {
    if (this.stopping) return this.stopping;
    const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
    const wasRunning = this.lifecycle === 'started' || this.lifecycle === 'starting';
    this.lifecycle = 'stopping';
    for (const s of this.schedules.values()) if (s.timer) clearTimeout(s.timer);
    this.stopping = (async () => {
      try {
        if (wasRunning) await this.stopBackend(Math.max(0, graceMs));
      } finally {
        this.lifecycle = 'stopped';
        this.log.info({ backend: this.backend }, 'job queue stopped');
      }
    })();
    return this.stopping;
  }

  // ---- shared logic ----
  /** stop() has been called (the lifecycle field is narrowed by TS after assignments; read it fresh). */
  protected isStopping(): boolean {
    const l: Lifecycle = this.lifecycle;
    return l === 'stopping' || l === 'stopped';
  }

  /**
   * Runs one claimed attempt and decides what follows. `previousError` is what
   * the last attempt recorded, used when this claim exists only to report a
   * lost last attempt (attempt > maxAttempts: the worker running attempt
   * maxAttempts died or timed out, so the job was claimed once more).
   */
  protected async runAttempt(reg: Registration, job: Job, previousError: string | null): Promise<Outcome> {
    const log = this.log.child({ jobId: job.id, queue: job.name, attempt: job.attempt, maxAttempts: job.maxAttempts });
    if (job.attempt > job.maxAttempts) {
      const error = new Error(`attempt ${job.maxAttempts} did not finish: ${previousError ?? 'the worker stopped'}`);
      return this.exhaust(reg, { ...job, attempt: job.maxAttempts }, error, log);
    }
    // Webhooks first: a job waits (holding its claim) while intake needs the event loop.
    if (this.intakeFirst) {
      await this.intakeFirst.turn(job.signal);
      if (job.signal.aborted) return { kind: 'abandoned' };
    }
    const started = Date.now();
    log.debug('job started');
    try {
      await reg.handler(job);
    } catch (error) {
      if (job.signal.aborted) {
        log.warn({ err: describeError(error) }, 'job failed after it was given back; its result is discarded');
        return { kind: 'abandoned' };
      }
      const message = describeError(error);
      if (afterFailure(job.attempt, job.maxAttempts, isRetryable(error)) === 'retry') {
        const delayMs = jobRetryDelay(reg.retry, job.attempt, Math.random(), error);
        log.warn({ err: message, delayMs, retryAfterMs: retryAfterOf(error), ms: Date.now() - started }, 'job failed; will retry');
        return { kind: 'retry', error, message, delayMs };
      }
      return this.exhaust(reg, job, error, log);
    }
    if (job.signal.aborted) {
      log.warn('job finished after it was given back; it will run again');
      return { kind: 'abandoned' };
    }
    log.debug({ ms: Date.now() - started }, 'job completed');
    return { kind: 'completed' };
  }

  private async exhaust(reg: Registration, job: Job, error: unknown, log: Logger): Promise<Outcome> {
    const message = describeError(error);
    log.error({ err: message, retryable: isRetryable(error) }, 'job failed for good');
    if (reg.onExhausted) {
      try {
        await reg.onExhausted(job, error);
      } catch (hookError) {
        log.error({ err: describeError(hookError) }, 'onExhausted hook failed');
      }
    }
    return { kind: 'failed', error, message };
  }

  /** One bucket of an every() schedule: enqueue its job (first instance wins), then wait for the next. */
  private async tick(s: Schedule): Promise<void> {
    s.timer = null;
    if (this.lifecycle !== 'started') return;
    const bucket = timeBucket(Date.now(), s.intervalMs);
    try {
      const id = await this.database.db.$transaction((tx) =>
        this.enqueue(tx, s.name, { bucket, scheduledAt: new Date(bucket * s.intervalMs).toISOString() }, {
          id: bucketJobId(s.name, s.intervalMs, bucket),
          maxAttempts: 1,
        }),
      );
      if (id) this.notify();
    } catch (e) {
      if (this.lifecycle === 'started') this.log.warn({ queue: s.name, err: describeError(e) }, 'could not enqueue recurring job');
    }
    if (this.lifecycle !== 'started') return;
    // A few ms past the boundary, so the next tick lands in the next bucket.
    s.timer = setTimeout(() => void this.tick(s), msUntilNextBucket(Date.now(), s.intervalMs) + 5);
  }
}
