// JobQueue.lockedWithJob on real databases: SQLite runs the steps, the job and (with `settles`) the
// running job's completion as one transaction under the connection's lock; a step that changes no row
// undoes all of it. Other backends do nothing and answer null (their callers take the transaction path).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { createJobQueue, type JobQueue } from '../../web/jobs/index.ts';
import type { Job, RowInsert } from '../../web/jobs/queue.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';

const sqlite = testProvider() === 'sqlite';
const log = createLogger({ level: 'silent' });

let url: string;
let database: Database;
let queue: JobQueue;
/** The queue's own outcome UPDATEs for completed jobs, by job id (the queue stores outcomes through database.db). */
const completions: unknown[] = [];

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  const db = new Proxy(database.db, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop !== '$executeRawUnsafe') return typeof v === 'function' ? v.bind(target) : v;
      return (sql: string, ...args: unknown[]) => {
        if (sql.startsWith(`UPDATE "Job" SET "state" = 'completed'`)) completions.push(args.at(-3));
        return (v as (...a: unknown[]) => unknown).call(target, sql, ...args);
      };
    },
  });
  queue = await createJobQueue({ ...database, db } as Database, { log, pollIntervalMs: 50 });
  await queue.start();
  await database.db.shop.create({ data: { id: 'shop-locked', domain: 'locked.myshopify.com' } });
});
afterAll(async () => {
  await queue?.stop();
  await database?.close();
  await dropDatabase(url);
});

/** A step that changes the shop's scope (one row), or a shop that does not exist (none). */
const step = (shopId: string, scope: string): RowInsert => ({ sql: `UPDATE "Shop" SET "geocoderUrl" = ? WHERE "id" = ?`, values: [scope, shopId] });
const scope = async () => (await database.db.shop.findUniqueOrThrow({ where: { id: 'shop-locked' } })).geocoderUrl;
const jobsOf = (queueName: string) => database.db.$queryRawUnsafe<Array<{ state: string }>>(`SELECT "state" FROM "Job" WHERE "queue" = ?`, queueName);

/** Runs `fn` as the handler of one job of a fresh queue; resolves with what fn returned, once the job is done. */
async function asJob<R>(fn: (job: Job) => Promise<R>): Promise<{ result: R; job: Job }> {
  const name = `locked-${randomUUID().slice(0, 8)}`;
  let out!: { result: R; job: Job };
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  await queue.work(name, async (job) => {
    out = { result: await fn(job), job };
    setImmediate(done);
  }, { concurrency: 1, retry: { maxAttempts: 1 } });
  await database.db.$transaction((tx) => queue.enqueue(tx, name, {}));
  queue.notify();
  await finished;
  return out;
}

describe.runIf(sqlite)('SQLite lockedWithJob', () => {
  it('writes the steps and the job together; a step that changes no row undoes every step and queues nothing', async () => {
    const target = `target-${randomUUID().slice(0, 8)}`;
    expect(await queue.lockedWithJob([step('shop-locked', 'first')], target, { n: 1 })).toBe(true);
    expect(await scope()).toBe('first');
    expect(await jobsOf(target)).toHaveLength(1);

    expect(await queue.lockedWithJob([step('shop-locked', 'second'), step('no-such-shop', 'x')], target, { n: 2 })).toBeNull();
    expect(await scope()).toBe('first');
    expect(await jobsOf(target)).toHaveLength(1);
  });

  it('completes the running job it settles in the same transaction: the queue stores no outcome of its own', async () => {
    const target = `target-${randomUUID().slice(0, 8)}`;
    const { result, job } = await asJob(async (j) => {
      const r = await queue.lockedWithJob([step('shop-locked', 'settled')], target, {}, {}, j);
      // Completed before the handler returns: by the handler's own transaction.
      const state = (await database.db.$queryRawUnsafe<Array<{ state: string }>>(`SELECT "state" FROM "Job" WHERE "id" = ?`, j.id))[0]!.state;
      return { r, state };
    });
    expect(result).toEqual({ r: true, state: 'completed' });
    await new Promise((r) => setTimeout(r, 100));
    expect(completions).not.toContain(job.id);
    expect(await scope()).toBe('settled');

    // Without `settles`, the queue completes the job itself.
    const { job: plain } = await asJob(() => queue.lockedWithJob([step('shop-locked', 'plain')], target, {}));
    await new Promise((r) => setTimeout(r, 100));
    expect(completions).toContain(plain.id);
  });

  it('a job given back while its handler ran is not completed by it: the whole run is undone', async () => {
    const target = `target-${randomUUID().slice(0, 8)}`;
    const before = await scope();
    const { result } = await asJob(async (j) => {
      // What a sweep of expired leases does to it.
      await database.db.$executeRawUnsafe(`UPDATE "Job" SET "state" = 'retry', "lockedBy" = NULL WHERE "id" = ?`, j.id);
      return queue.lockedWithJob([step('shop-locked', 'given-back')], target, {}, {}, j);
    });
    expect(result).toBeNull();
    expect(await scope()).toBe(before);
    expect(await jobsOf(target)).toHaveLength(0);
  });
});

describe.skipIf(sqlite)('lockedWithJob elsewhere', () => {
  it('does nothing and answers null', async () => {
    const target = `target-${randomUUID().slice(0, 8)}`;
    expect(await queue.lockedWithJob([step('shop-locked', 'never')], target, {})).toBeNull();
    expect((await scope()) === 'never').toBe(false);
  });
});

/** In one transaction: the step (the shop's scope), then completeIn; what it answered and the job's state after the commit. */
async function stepAndCompleteIn(job: Job, value: string) {
  const r = await database.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(step('shop-locked', value).sql, ...step('shop-locked', value).values);
    return queue.completeIn(tx, job);
  });
  const state = (await database.db.$queryRawUnsafe<Array<{ state: string }>>(`SELECT "state" FROM "Job" WHERE "id" = ?`, job.id))[0]!.state;
  return { r, state };
}

describe.runIf(sqlite)('SQLite completeIn', () => {
  it("completes the running job in the caller's transaction: the queue stores no outcome of its own", async () => {
    const { result, job } = await asJob((j) => stepAndCompleteIn(j, 'completed-in'));
    expect(result).toEqual({ r: true, state: 'completed' });
    await new Promise((r) => setTimeout(r, 100));
    expect(completions).not.toContain(job.id);
    expect(await scope()).toBe('completed-in');
  });

  it('a transaction that fails after completing its job leaves the job to its outcome: it runs again', async () => {
    const name = `locked-${randomUUID().slice(0, 8)}`;
    const attempts: number[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await queue.work(name, async (j) => {
      attempts.push(j.attempt);
      if (j.attempt === 2) return void setImmediate(done);
      await database.db.$transaction(async (tx) => {
        expect(await queue.completeIn(tx, j)).toBe(true);
        throw new Error('the work after the completion failed');
      });
    }, { concurrency: 1, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 } });
    const id = await database.db.$transaction((tx) => queue.enqueue(tx, name, {}));
    queue.notify();
    await finished;
    await new Promise((r) => setTimeout(r, 100));
    expect(attempts).toEqual([1, 2]);
    expect(await queue.getJob(name, id!)).toMatchObject({ state: 'completed', attempts: 2 });
  });

  it("a job given back meanwhile is not completed, and the caller's work still commits", async () => {
    const { result } = await asJob(async (j) => {
      await database.db.$executeRawUnsafe(`UPDATE "Job" SET "state" = 'retry', "lockedBy" = NULL WHERE "id" = ?`, j.id);
      return stepAndCompleteIn(j, 'given-back-in');
    });
    expect(result).toEqual({ r: false, state: 'retry' });
    expect(await scope()).toBe('given-back-in');
  });
});

describe.skipIf(sqlite)('completeIn elsewhere', () => {
  it('completes nothing and answers false: the queue stores the outcome', async () => {
    const { result, job } = await asJob((j) => database.db.$transaction((tx) => queue.completeIn(tx, j)));
    expect(result).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(await queue.getJob(job.name, job.id)).toMatchObject({ state: 'completed' });
  });
});
