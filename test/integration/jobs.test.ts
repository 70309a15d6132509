// The durable job queue (web/jobs) on a real database: SQLite (in-process
// worker over the Job table) or PostgreSQL (pg-boss), per the test project.
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Database, Db, Tx } from '../../web/db/client.ts';
import { dbTime, forProvider, TS } from '../../web/db/raw-sql.ts';
import { createJobQueue, type Job, type JobQueue, type JobQueueOptions } from '../../web/jobs/index.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';
import { hangingWorkerScript } from '../support/job-worker.ts';
import { ROOT } from '../support/paths.ts';
import { waitFor } from '../support/process.ts';

const provider = testProvider();
const pg = provider === 'postgres';
const log = createLogger({ level: process.env.JOBS_TEST_LOG ?? 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Small numbers so retries and crash recovery take seconds. pg-boss counts
// retry delays in whole seconds (at least 1 s) and polls at least every 0.5 s.
const FAST: Omit<JobQueueOptions, 'log'> = {
  pollIntervalMs: pg ? 500 : 50,
  leaseMs: 2_000,
  defaults: { baseDelayMs: 100, maxDelayMs: 2_000 },
  pgboss: { expireInSeconds: 3, superviseIntervalSeconds: 1 },
};

let url: string;
let database: Database;
const open: JobQueue[] = [];

async function newQueue(db: Database = database, extra: Partial<JobQueueOptions> = {}): Promise<JobQueue> {
  const q = await createJobQueue(db, { log, ...FAST, ...extra });
  open.push(q);
  return q;
}

/** A started queue with no workers, for reading job rows. */
async function inspector(): Promise<JobQueue> {
  const q = await newQueue();
  await q.start();
  return q;
}

function enqueueCommitted<T>(q: JobQueue, name: string, data: T, opts?: Parameters<JobQueue['enqueue']>[3]) {
  return database.db.$transaction((tx) => q.enqueue(tx, name, data, opts));
}

async function stateOf(q: JobQueue, name: string, id: string) {
  return (await q.getJob(name, id))?.state;
}

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((q) => q.stop({ graceMs: 0 })));
});

afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

describe(`job queue on ${provider}`, () => {
  it('uses the backend of the database', async () => {
    const q = await newQueue();
    expect(q.backend).toBe(pg ? 'pg-boss' : 'sqlite');
  });

  it('a claim while the enqueuing transaction is still open does not see its job, which never runs after the rollback', async () => {
    const seen: string[] = [];
    const q = await newQueue();
    await q.work<{ n: number }>('open-tx', async (job) => void seen.push(job.id));
    await q.start();
    await expect(
      database.db.$transaction(async (tx) => {
        await q.enqueue(tx, 'open-tx', { n: 1 });
        q.notify(); // a claim pass now, on SQLite waiting for the connection this transaction holds
        await sleep(300);
        throw new Error('handler failed after the enqueue');
      }, { timeout: 10_000 }),
    ).rejects.toThrow('handler failed after the enqueue');
    q.notify();
    await sleep(pg ? 1_500 : 300);
    expect(seen).toEqual([]);
  });

  it('runs a job enqueued in a committed transaction once, with its data; a rolled-back one never', async () => {
    const seen: Array<{ id: string; data: unknown; attempt: number }> = [];
    const q = await newQueue();
    await q.work<{ deliveryId: string }>('tx-dispatch', async (job) => {
      seen.push({ id: job.id, data: job.data, attempt: job.attempt });
    });
    await q.start();

    // Delivery row + job in one transaction that rolls back: neither exists.
    let rolledBack: string | null = null;
    await expect(
      database.db.$transaction(async (tx) => {
        const shop = await tx.shop.create({ data: { domain: 'rollback.myshopify.com' } });
        const d = await tx.delivery.create({ data: { shopId: shop.id, shopifyOrderId: '1001', status: 'PENDING', orderJson: '{}' } });
        rolledBack = await q.enqueue(tx, 'tx-dispatch', { deliveryId: d.id });
        throw new Error('webhook handler failed');
      }),
    ).rejects.toThrow('webhook handler failed');
    q.notify();
    expect(rolledBack).toMatch(/^[0-9a-f-]{36}$/);

    // The same, committed: both exist and the job runs.
    let deliveryId = '';
    const committed = await database.db.$transaction(async (tx) => {
      const shop = await tx.shop.create({ data: { domain: 'commit.myshopify.com' } });
      const d = await tx.delivery.create({ data: { shopId: shop.id, shopifyOrderId: '1002', status: 'PENDING', orderJson: '{}' } });
      deliveryId = d.id;
      const id = await q.enqueue(tx, 'tx-dispatch', { deliveryId: d.id });
      if (pg) {
        // Not visible to other connections (pg-boss's own pool) before commit.
        expect(await q.getJob('tx-dispatch', id!)).toBeNull();
      }
      return id;
    });
    q.notify();

    await waitFor(async () => (await stateOf(q, 'tx-dispatch', committed!)) === 'completed', 'the committed job to complete');
    await sleep(pg ? 1_200 : 300); // time enough for a wrongly queued job to run too
    expect(seen).toEqual([{ id: committed, data: { deliveryId }, attempt: 1 }]);
    expect(await q.getJob('tx-dispatch', rolledBack!)).toBeNull();
    expect(await database.db.shop.count({ where: { domain: 'rollback.myshopify.com' } })).toBe(0);
    expect(await database.db.delivery.count({ where: { id: deliveryId } })).toBe(1);
  });

  it('insertWithJob: a new row and its job commit together; a row already there queues no job (PostgreSQL: one statement, no transaction); insertWithJobIn: the same in the caller\'s transaction', async () => {
    const seen: unknown[] = [];
    const q = await newQueue();
    await q.work<{ shop: string }>('guarded', async (job) => void seen.push(job.data));
    await q.start();
    const row = (domain: string) => ({
      sql: forProvider(provider, `INSERT INTO "Shop" ("id", "domain", "updatedAt") VALUES ($1, $2, $3${TS}) ON CONFLICT ("domain") DO NOTHING`),
      values: [randomUUID(), domain, dbTime(provider, Date.now())],
    });
    // On PostgreSQL this client opens no transaction: the row and its job must be one statement.
    const db = pg
      ? ({ $queryRawUnsafe: database.db.$queryRawUnsafe.bind(database.db), $transaction: () => Promise.reject(new Error('a transaction was opened')) } as unknown as Db)
      : database.db;
    expect(await q.insertWithJob(db, row('guarded-1.myshopify.com'), 'guarded', { shop: 'guarded-1' })).toBe(true);
    expect(await q.insertWithJob(db, row('guarded-1.myshopify.com'), 'guarded', { shop: 'again' })).toBe(false);
    expect(await q.insertWithJob(db, row('guarded-2.myshopify.com'), 'guarded', { shop: 'guarded-2' }, { orderingKey: 'k' })).toBe(true);
    q.notify();
    await waitFor(async () => seen.length >= 2, 'both jobs to run');
    await sleep(pg ? 1_200 : 300); // time enough for a wrongly queued job to run too
    expect(seen).toEqual(expect.arrayContaining([{ shop: 'guarded-1' }, { shop: 'guarded-2' }]));
    expect(seen).toHaveLength(2);
    expect(await database.db.shop.count({ where: { domain: { startsWith: 'guarded-' } } })).toBe(2);

    // insertWithJobIn: inside the caller's transaction (PostgreSQL: one statement in it), rolled back with it.
    const within = (tx: Tx): Tx => (pg ? ({ $queryRawUnsafe: tx.$queryRawUnsafe.bind(tx), $executeRawUnsafe: () => Promise.reject(new Error('two statements')) } as unknown as Tx) : tx);
    await expect(database.db.$transaction(async (tx) => {
      expect(await q.insertWithJobIn(within(tx), row('guarded-3.myshopify.com'), 'guarded', { shop: 'guarded-3' })).toBe(true);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await database.db.$transaction((tx) => q.insertWithJobIn(within(tx), row('guarded-4.myshopify.com'), 'guarded', { shop: 'guarded-4' }))).toBe(true);
    q.notify();
    await waitFor(async () => seen.length >= 3, 'the committed job to run');
    await sleep(pg ? 1_200 : 300);
    expect(seen.slice(2)).toEqual([{ shop: 'guarded-4' }]);
    expect(await database.db.shop.count({ where: { domain: { in: ['guarded-3.myshopify.com', 'guarded-4.myshopify.com'] } } })).toBe(1);
  });

  it('keeps at most one queued-or-running job per singletonKey', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const q = await newQueue();
    await q.work<{ n: number }>('single', async (job) => {
      ran.push(`${job.data.n}`);
      await gate;
    });
    await q.start();

    // Queued: a second job under the key, even in the same transaction, is not written.
    const [a, b] = await database.db.$transaction(async (tx) => [
      await q.enqueue(tx, 'single', { n: 1 }, { singletonKey: 'order-1' }),
      await q.enqueue(tx, 'single', { n: 2 }, { singletonKey: 'order-1' }),
    ]);
    expect(a).toBeTruthy();
    expect(b).toBeNull();
    expect(await enqueueCommitted(q, 'single', { n: 3 }, { singletonKey: 'order-1' })).toBeNull();
    // Another key, or another queue name with the same key, is independent.
    const other = await enqueueCommitted(q, 'single', { n: 4 }, { singletonKey: 'order-2' });
    expect(other).toBeTruthy();
    expect(await enqueueCommitted(q, 'single-other', { n: 5 }, { singletonKey: 'order-1' })).toBeTruthy();

    // Running: still taken.
    q.notify();
    await waitFor(async () => (await stateOf(q, 'single', a!)) === 'active', 'the first job to start');
    expect(await enqueueCommitted(q, 'single', { n: 6 }, { singletonKey: 'order-1' })).toBeNull();

    // Finished: the key is free again.
    release();
    await waitFor(async () => (await stateOf(q, 'single', a!)) === 'completed', 'the first job to complete');
    const again = await enqueueCommitted(q, 'single', { n: 7 }, { singletonKey: 'order-1' });
    expect(again).toBeTruthy();
    q.notify();
    await waitFor(async () => (await stateOf(q, 'single', again!)) === 'completed', 'the re-enqueued job to complete');
    expect(ran.sort()).toEqual(['1', '4', '7']);

    // A job that is waiting to retry also holds its key.
    let failedOnce = false;
    await q.work('single-retry', async () => {
      if (!failedOnce) {
        failedOnce = true;
        throw new Error('transient');
      }
    }, { retry: { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 2_000 } });
    const r = await enqueueCommitted(q, 'single-retry', {}, { singletonKey: 'k' });
    q.notify();
    await waitFor(async () => (await q.getJob('single-retry', r!))?.state === 'retry', 'the job to wait for its retry');
    expect(await enqueueCommitted(q, 'single-retry', {}, { singletonKey: 'k' })).toBeNull();
    await waitFor(async () => (await stateOf(q, 'single-retry', r!)) === 'completed', 'the retried job to complete');
  });

  // batch 3: pg-boss fetches up to 3 heads of different keys at once (SQLite ignores it).
  it.each([1, 3])('orderingKey (batch %i): one key\'s jobs run one at a time in insert order (a retry holds the key); different keys run side by side', async (batch) => {
    const q = await newQueue();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const perKey = new Map<string, number>();
    let maxPerKey = 0;
    let failedOnce = false;
    let otherKeyStarted!: () => void;
    const otherKey = new Promise<void>((r) => (otherKeyStarted = r));
    await q.work<{ key: string; n: number }>('ordered', async (job) => {
      const { key, n } = job.data;
      running++;
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
      maxRunning = Math.max(maxRunning, running);
      maxPerKey = Math.max(maxPerKey, perKey.get(key)!);
      if (key !== 'a' && perKey.get('a')) otherKeyStarted();
      try {
        // a1 waits (up to 2 s, inside pg-boss's 3 s expiry) for another key's job to start beside it,
        // so a loaded machine cannot hide whether keys run side by side.
        await (key === 'a' && n === 1 ? Promise.race([otherKey, sleep(2_000)]) : sleep(30));
        // The second job of key a fails once: the third must wait for its retry.
        if (key === 'a' && n === 2 && !failedOnce) {
          failedOnce = true;
          throw new Error('transient');
        }
        log.push(`${key}${n}`);
      } finally {
        running--;
        perKey.set(key, perKey.get(key)! - 1);
      }
    }, { concurrency: 6, batch, ordered: true, retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 200 } });
    await q.start();
    const keys = ['a', 'b', 'c', 'd'];
    // Interleaved, one transaction per job, as webhooks arrive (pg-boss orders one transaction's jobs by their random ids).
    for (let n = 1; n <= 4; n++) for (const key of keys) await enqueueCommitted(q, 'ordered', { key, n }, { orderingKey: key });
    for (const n of [5, 6]) await enqueueCommitted(q, 'ordered', { key: 'a', n }, { orderingKey: 'a' });
    q.notify();
    await waitFor(async () => log.length === 18, 'every ordered job to run', 30_000);
    for (const key of keys) expect(log.filter((l) => l.startsWith(key)), key).toEqual(Array.from({ length: key === 'a' ? 6 : 4 }, (_, i) => `${key}${i + 1}`));
    expect(failedOnce).toBe(true);
    expect(maxPerKey).toBe(1);
    expect(maxRunning).toBeGreaterThan(1);
    await expect(enqueueCommitted(q, 'ordered', {}, { orderingKey: 'a', singletonKey: 'a' })).rejects.toThrow(/not both/);
  });

  it.skipIf(!pg)('batch: a pg-boss worker fetches several jobs at once and settles them together, when the slowest is done', async () => {
    const q = await newQueue();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const finished: string[] = [];
    await q.work<{ label: string }>('batched', async (job) => {
      started.push(job.data.label);
      if (job.data.label === 'slow') await Promise.race([gate, new Promise((r) => job.signal.addEventListener('abort', r))]);
      finished.push(job.data.label);
    }, { concurrency: 2, batch: 2 });
    const feeder = await inspector();
    const fast = (await enqueueCommitted(feeder, 'batched', { label: 'fast' }))!;
    const slow = (await enqueueCommitted(feeder, 'batched', { label: 'slow' }))!;
    await q.start();
    q.notify();
    await waitFor(async () => finished.includes('fast') && started.includes('slow'), 'both jobs of the batch to start');
    await sleep(300);
    // One worker took both; the fast one's result waits for its batch (with batch 1 it would be completed).
    expect(await stateOf(feeder, 'batched', fast)).toBe('active');
    release();
    await waitFor(async () => (await stateOf(feeder, 'batched', fast)) === 'completed' && (await stateOf(feeder, 'batched', slow)) === 'completed', 'the batch to be settled');
    await expect(q.work('other', async () => {}, { concurrency: 2, batch: 3 })).rejects.toThrow(/batch must be an integer from 1 to concurrency/);
  });

  /**
   * Shop A's backlog of 10, held in their handlers; shop B's one job enqueued after A's, once A's first
   * has started (or before start: `bBeforeStart`). The handlers' start order.
   */
  async function fairnessRun(name: string, opts: { concurrency: number; groupConcurrency?: number }, bBeforeStart = false): Promise<string[]> {
    const q = await newQueue();
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await q.work<{ label: string }>(name, async (job) => {
      started.push(job.data.label);
      expect(job.group).toBe(job.data.label[0]);
      await Promise.race([gate, new Promise((r) => job.signal.addEventListener('abort', r))]);
    }, opts);
    const feeder = await inspector(); // pg-boss enqueues only once started
    for (let n = 1; n <= 10; n++) await enqueueCommitted(feeder, name, { label: `A${n}` }, { group: 'A' });
    if (bBeforeStart) await enqueueCommitted(feeder, name, { label: 'B1' }, { group: 'B' });
    await q.start();
    q.notify();
    await waitFor(async () => started.length >= 1, "shop A's first job to start");
    if (!bBeforeStart) await enqueueCommitted(q, name, { label: 'B1' }, { group: 'B' });
    q.notify();
    await waitFor(async () => started.length >= opts.concurrency, 'every worker to take a job', 15_000);
    await sleep(pg ? 1_500 : 200); // a worker past its share would have started by now
    release();
    await waitFor(async () => started.length === 11, 'every job to run', 30_000);
    return started;
  }

  it("fairness groups: a shop's backlog holds at most its share of the workers; another shop's later job is among the first 2 started", async () => {
    const started = await fairnessRun('fair-share', { concurrency: 2, groupConcurrency: 1 });
    // SQLite starts A's jobs oldest first; pg-boss may keep A2 and give back A1 (queue.ts, guarantee 9).
    expect(started[0]).toMatch(pg ? /^A\d+$/ : /^A1$/);
    expect(started[1]).toBe('B1');
    expect(started.filter((l) => l.startsWith('A'))).toHaveLength(10);
    await expect(newQueue().then((q) => q.work('bad-share', async () => {}, { concurrency: 2, groupConcurrency: 3 }))).rejects.toThrow(/groupConcurrency/);
  });

  it.skipIf(pg)("fairness groups on SQLite: with no share set, one claim takes shop B's job (enqueued after A's 10) before A's second", async () => {
    const started = await fairnessRun('fair-turns', { concurrency: 2 }, true);
    expect(started.slice(0, 2).sort()).toEqual(['A1', 'B1']);
  });

  it.skipIf(pg)("SQLite: a queue whose due jobs are all held by their group's share is not claimed again on other queues' wake-ups; a freed share or a new group's job is taken at once", async () => {
    // The queues each claim looks at (web/jobs/sqlite-claim.ts asks each wanted queue whether a job is due).
    const claims: string[][] = [];
    const locked = database.sqliteLocked!;
    const sqliteLocked: Database['sqliteLocked'] = (fn) => {
      const named: string[] = [];
      claims.push(named);
      return locked((query, run) => fn((sql, args) => {
        if (sql.startsWith('SELECT 1 FROM "Job" WHERE "state" IN') && (args[0] === 'share-held' || args[0] === 'share-busy')) named.push(args[0] as string);
        return query(sql, args);
      }, run));
    };
    // A long poll interval: only the queues' own events may start a claim during the test.
    const q = await newQueue({ ...database, sqliteLocked } as Database, { pollIntervalMs: 5_000 });
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await q.work<{ label: string }>('share-held', async (job) => {
      started.push(job.data.label);
      if (job.data.label === 'A1') await Promise.race([gate, new Promise((r) => job.signal.addEventListener('abort', r))]);
    }, { concurrency: 3, groupConcurrency: 1 });
    let busyDone = 0;
    await q.work('share-busy', async () => void busyDone++, { concurrency: 1 });
    for (let n = 1; n <= 5; n++) await enqueueCommitted(q, 'share-held', { label: `A${n}` }, { group: 'A' });
    await q.start();
    q.notify();
    await waitFor(async () => started.length === 1, "shop A's first job to start");
    const before = claims.filter((c) => c.includes('share-held')).length;
    for (let n = 0; n < 40; n++) await enqueueCommitted(q, 'share-busy', { n });
    q.notify();
    await waitFor(async () => busyDone === 40, 'the busy queue to drain', 15_000);
    // 40 settles of the busy queue each started a pass; the held queue stayed out of them.
    expect(claims.filter((c) => c.includes('share-held')).length - before).toBeLessThanOrEqual(1);
    expect(started).toEqual(['A1']);
    // A new group's job is claimed at once, beside A's held one.
    await enqueueCommitted(q, 'share-held', { label: 'B1' }, { group: 'B' });
    q.notify();
    await waitFor(async () => started.includes('B1'), "shop B's job to start");
    // A1 ends: A's next job starts without waiting for the poll.
    release();
    await waitFor(async () => started.length === 6, 'every held job to run', 4_000);
    expect(started.slice(0, 3)).toEqual(['A1', 'B1', 'A2']);
  });

  it.skipIf(pg)('SQLite: a delayed job and a retry of this instance run when they come due, however far its idle poll has backed off', async () => {
    // A 5 s poll backs off to 40 s while idle: only the queue's own due times can start these in time.
    const q = await newQueue(database, { pollIntervalMs: 5_000 });
    const ran: string[] = [];
    let failedOnce = false;
    await q.work<{ label: string }>('due-wake', async (job) => {
      if (job.data.label === 'retry' && !failedOnce) {
        failedOnce = true;
        throw new Error('first attempt fails'); // backoff 100 ms (FAST.defaults)
      }
      ran.push(job.data.label);
    });
    await q.start();
    await sleep(300); // a pass or two that found nothing: the idle poll has grown past 5 s
    await enqueueCommitted(q, 'due-wake', { label: 'delayed' }, { startAfterMs: 400 });
    await enqueueCommitted(q, 'due-wake', { label: 'retry' });
    q.notify();
    await waitFor(async () => ran.length === 2, 'the delayed job and the retried one', 3_000);
    expect(ran.sort()).toEqual(['delayed', 'retry']);
  });

  it.skipIf(pg)("SQLite: a job whose outcome could not be stored runs again once its lease runs out, while another job keeps this instance's leases renewed", async () => {
    // The completion of the first attempt fails, as a full disk or a busy database would make it.
    await database.db.$executeRawUnsafe(`CREATE TRIGGER "test_outcome_lost" BEFORE UPDATE OF "state" ON "Job"
      WHEN OLD."queue" = 'outcome-lost' AND NEW."state" = 'completed' AND OLD."attempts" = 1
      BEGIN SELECT RAISE(ABORT, 'outcome write failed (test)'); END`);
    let release = () => {};
    try {
      const gate = new Promise<void>((r) => (release = r));
      const attempts: number[] = [];
      const q = await newQueue();
      await q.work('outcome-long', () => gate); // in flight throughout: the heartbeat keeps running
      await q.work('outcome-lost', async (job) => void attempts.push(job.attempt));
      await q.start();
      const long = await enqueueCommitted(q, 'outcome-long', {});
      const id = await enqueueCommitted(q, 'outcome-lost', {});
      await waitFor(async () => (await stateOf(q, 'outcome-lost', id!)) === 'completed', 'the job completed by a second attempt', 10_000);
      expect(attempts).toEqual([1, 2]);
      expect(await stateOf(q, 'outcome-long', long!)).toBe('active');
    } finally {
      release();
      await database.db.$executeRawUnsafe('DROP TRIGGER IF EXISTS "test_outcome_lost"');
    }
  });

  it.skipIf(pg)("SQLite: a job without a group is not held behind another group's backlog of more than 100 that is at its share", async () => {
    const q = await newQueue();
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await q.work<{ label: string }>('behind-backlog', async (job) => {
      started.push(job.data.label);
      if (job.data.label.startsWith('A')) await Promise.race([gate, new Promise((r) => job.signal.addEventListener('abort', r))]);
    }, { concurrency: 2, groupConcurrency: 1 });
    await database.db.$transaction(async (tx) => {
      for (let n = 1; n <= 120; n++) await q.enqueue(tx, 'behind-backlog', { label: `A${n}` }, { group: 'A' });
      await q.enqueue(tx, 'behind-backlog', { label: 'U' });
    });
    await q.start();
    q.notify();
    await waitFor(async () => started.includes('U'), 'the job without a group to start beside A1', 5_000);
    expect(started).toEqual(['A1', 'U']);
    release();
  });

  it("hurry: a group's jobs waiting for their start time run now, however long the idle poll; another group's and a retry's backoff keep their time", async () => {
    const ran: string[] = [];
    // A 5 s poll: the hurried jobs run within 3 s only if the hurry wakes the workers.
    const q = await newQueue(database, { pollIntervalMs: 5_000 });
    await q.work<{ n: string }>('parked', async (job) => {
      ran.push(job.data.n);
      if (job.data.n === 'A-failing') throw new Error('fails once, then waits a minute');
    }, { retry: { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    await q.start();
    await enqueueCommitted(q, 'parked', { n: 'A-failing' }, { group: 'A' });
    q.notify();
    await waitFor(async () => ran.includes('A-failing'), 'the failing job to run once', 10_000);
    for (const n of ['A1', 'A2']) await enqueueCommitted(q, 'parked', { n }, { group: 'A', startAfterMs: 600_000 });
    await enqueueCommitted(q, 'parked', { n: 'B1' }, { group: 'B', startAfterMs: 600_000 });
    await sleep(pg ? 1_500 : 300);
    expect(ran).toEqual(['A-failing']);

    expect(await q.hurry('parked', 'A')).toBe(2);
    await waitFor(async () => ran.length >= 3, "group A's waiting jobs to run", 3_000);
    await sleep(pg ? 1_500 : 300);
    expect(ran.slice(1).sort()).toEqual(['A1', 'A2']);
    expect(ran).toHaveLength(3);
    expect(await q.hurry('parked', 'A')).toBe(0);
  });

  it("hurry without a group: every waiting job of the queue runs now (another queue's keep their time) and the queue's holds end", async () => {
    const ran: string[] = [];
    const q = await newQueue(database, { pollIntervalMs: 5_000 });
    for (const name of ['woken', 'other']) await q.work<{ n: string }>(name, async (job) => void ran.push(job.data.n));
    await q.start();
    for (const [n, group] of [['A1', 'A'], ['B1', 'B'], ['U1', undefined]] as const) {
      await enqueueCommitted(q, 'woken', { n }, { startAfterMs: 600_000, ...(group ? { group } : {}) });
    }
    await enqueueCommitted(q, 'other', { n: 'O1' }, { group: 'A', startAfterMs: 600_000 });
    q.hold('woken', 'A', 600_000);
    expect(await q.hurry('woken')).toBe(3);
    await waitFor(async () => ran.length >= 3, "the queue's waiting jobs to run", 3_000);
    // The hold ended with the hurry: a new job of group A runs at once.
    await enqueueCommitted(q, 'woken', { n: 'A2' }, { group: 'A' });
    q.notify();
    await waitFor(async () => ran.includes('A2'), 'the new job of the formerly held group to run', 3_000);
    await sleep(pg ? 1_500 : 300);
    expect(ran.sort()).toEqual(['A1', 'A2', 'B1', 'U1']);
  });

  it('wakeAtStart: start() makes due the waiting jobs a stopped process left for its own wakes (a queue without it, and keepTime jobs, keep their time)', async () => {
    const first = await inspector();
    await enqueueCommitted(first, 'woken-at-start', { n: 'parked' }, { group: 'A', startAfterMs: 600_000 });
    const planned = await enqueueCommitted(first, 'woken-at-start', { n: 'planned' }, { group: 'A', startAfterMs: 600_000, keepTime: true });
    await enqueueCommitted(first, 'not-woken', { n: 'other' }, { group: 'A', startAfterMs: 600_000 });
    await first.stop({ graceMs: 0 });
    const ran: string[] = [];
    const q = await newQueue(database, { pollIntervalMs: 5_000 });
    await q.work<{ n: string }>('woken-at-start', async (job) => void ran.push(job.data.n), { wakeAtStart: true });
    await q.work<{ n: string }>('not-woken', async (job) => void ran.push(job.data.n));
    await q.start();
    await waitFor(async () => ran.includes('parked'), 'the waiting job to run at start-up', 3_000);
    await sleep(pg ? 1_500 : 300);
    expect(ran).toEqual(['parked']);
    expect(await stateOf(q, 'woken-at-start', planned!)).toBe('created');
  });

  it('keepTime: a job planned for its time is neither held with its group nor hurried with it', async () => {
    const ran: string[] = [];
    const q = await newQueue();
    await q.work<{ n: string }>('kept', async (job) => void ran.push(job.data.n));
    await q.start();
    q.hold('kept', 'A', 600_000);
    await enqueueCommitted(q, 'kept', { n: 'soon' }, { group: 'A', startAfterMs: 1_000, keepTime: true });
    await enqueueCommitted(q, 'kept', { n: 'held' }, { group: 'A' });
    const later = await enqueueCommitted(q, 'kept', { n: 'later' }, { group: 'A', startAfterMs: 600_000, keepTime: true });
    q.notify();
    await waitFor(async () => ran.includes('soon'), 'the job planned for 1 s to run in its held group', 10_000);
    expect(ran).toEqual(['soon']);
    expect(await q.hurry('kept', 'A')).toBe(1); // the held job only
    await waitFor(async () => ran.includes('held'), 'the held job to run after the hurry', 10_000);
    await sleep(pg ? 1_500 : 300);
    expect(ran).toEqual(['soon', 'held']);
    expect(await stateOf(q, 'kept', later!)).toBe('created');
  });

  it("hold: a held group's new jobs wait for the hurry (another group's do not); a hurry that ran while a held job's transaction was open is repeated at notify()", async () => {
    const ran: string[] = [];
    const q = await newQueue();
    await q.work<{ n: string }>('held', async (job) => void ran.push(job.data.n));
    await q.start();
    q.hold('held', 'A', 600_000);
    await enqueueCommitted(q, 'held', { n: 'A1' }, { group: 'A' });
    await enqueueCommitted(q, 'held', { n: 'B1' }, { group: 'B' });
    q.notify();
    await waitFor(async () => ran.includes('B1'), "the other group's job to run", 10_000);
    await sleep(pg ? 1_500 : 300);
    expect(ran).toEqual(['B1']);

    // The hurry comes while A2's transaction is open: on PostgreSQL it cannot see A2 (on SQLite it waits for the commit).
    let hurried: Promise<number> | undefined;
    await database.db.$transaction(async (tx) => {
      await q.enqueue(tx, 'held', { n: 'A2' }, { group: 'A' });
      hurried = q.hurry('held', 'A');
      if (pg) expect(await hurried).toBe(1);
    });
    await hurried;
    q.notify();
    await waitFor(async () => ran.length >= 3, "group A's held jobs to run", 10_000);
    expect(ran.slice(1).sort()).toEqual(['A1', 'A2']);
    // The hold ended with the hurry.
    await enqueueCommitted(q, 'held', { n: 'A3' }, { group: 'A' });
    q.notify();
    await waitFor(async () => ran.includes('A3'), 'a job enqueued after the hurry to run', 10_000);

    // A hold no hurry ends lasts its ms: a job enqueued after that is due at once (nothing for a hurry to make due).
    q.hold('held', 'C', 1_000);
    await enqueueCommitted(q, 'held', { n: 'C1' }, { group: 'C' });
    expect(await q.hurry('held', 'C')).toBe(1);
    q.hold('held', 'C', 1_000);
    await sleep(1_100);
    await enqueueCommitted(q, 'held', { n: 'C2' }, { group: 'C' });
    expect(await q.hurry('held', 'C')).toBe(0);
    q.notify();
    await waitFor(async () => ran.includes('C1') && ran.includes('C2'), "group C's jobs to run", 10_000);
  });

  it("reserve: jobs taken along are not run, nor hurried, until their taker releases them (at once, or parked for the group's next hurry); completeWaiting ends them; a reservation never given back runs out", async () => {
    const ran: string[] = [];
    const q = await newQueue();
    await q.work<{ n: string }>('taken', async (job) => void ran.push(job.data.n));
    const feeder = await inspector();
    const ids: Record<string, string> = {};
    for (const n of ['A1', 'A2', 'A3', 'A4', 'A5']) ids[n] = (await enqueueCommitted(feeder, 'taken', { n }, { group: 'A' }))!;
    // Another handler takes A1–A3 along for 10 min, and A4 for 1.5 s; A5 is left for the workers.
    const taken = await feeder.reserve<{ n: string }>('taken', 'A', 3, 600_000);
    // The oldest first (PostgreSQL's RETURNING keeps no order).
    expect(taken.map((t) => `${t.data.n} ${t.id}`).sort()).toEqual(['A1', 'A2', 'A3'].map((n) => `${n} ${ids[n]}`));
    expect((await feeder.reserve<{ n: string }>('taken', 'A', 1, 1_500)).map((t) => t.data.n)).toEqual(['A4']);
    await q.start();
    q.notify();
    await waitFor(async () => ran.includes('A5'), 'the job not taken along to run', 10_000);
    // A hurry of the group (the pacer's wake, another handler's give-back) does not take them from their taker.
    expect(await q.hurry('taken', 'A')).toBe(0);
    await sleep(pg ? 700 : 300);
    expect(ran).toEqual(['A5']);
    expect((await q.getJob('taken', ids.A1!))?.lastError).toBeNull();

    // A1's work was stored with its taker's: completed, never run, and not given back.
    expect(await database.db.$transaction((tx) => q.completeWaiting(tx, 'taken', [ids.A1!]))).toBe(1);
    expect(await q.release('taken', [ids.A1!])).toBe(0);
    // A2 is given back at once; A3 parked with its taker's own deferral, due at the group's next hurry.
    expect(await q.release('taken', [ids.A2!])).toBe(1);
    expect(await q.release('taken', [ids.A3!], 600_000)).toBe(1);
    await waitFor(async () => ran.includes('A2'), 'the job given back to run', 10_000);
    // A4 was never given back (its taker crashed): due when its reservation runs out.
    await waitFor(async () => ran.includes('A4'), 'the reservation that ran out to end', 10_000);
    expect(ran).not.toContain('A3');
    expect(await q.hurry('taken', 'A')).toBe(1);
    await waitFor(async () => ran.includes('A3'), 'the parked job to run at the hurry', 10_000);
    expect(ran.sort()).toEqual(['A2', 'A3', 'A4', 'A5']);
    expect(await stateOf(feeder, 'taken', ids.A1!)).toBe('completed');
  });

  it('retries a failing handler with growing delays until it succeeds', async () => {
    const starts: number[] = [];
    const exhausted: unknown[] = [];
    const q = await newQueue();
    await q.work('flaky', async (job) => {
      starts.push(Date.now());
      expect(job.attempt).toBe(starts.length);
      expect(job.maxAttempts).toBe(4);
      if (job.attempt < 3) throw new Error(`courier 503 on attempt ${job.attempt}`);
    }, { retry: { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 }, onExhausted: async (_j, e) => void exhausted.push(e) });
    await q.start();
    const id = await enqueueCommitted(q, 'flaky', { deliveryId: 'd1' });
    q.notify();
    await waitFor(async () => (await stateOf(q, 'flaky', id!)) === 'completed', 'the flaky job to succeed');

    expect(starts).toHaveLength(3);
    // Lower bounds only: attempt n waits at least base·2^(n-1) (pg-boss: base rounded up to 1 s).
    const base = pg ? 1_000 : 200;
    const [t1, t2, t3] = starts as [number, number, number];
    expect(t2 - t1).toBeGreaterThanOrEqual(base - 50);
    expect(t3 - t2).toBeGreaterThanOrEqual(2 * base - 50);
    expect(exhausted).toEqual([]);
    expect(await q.getJob('flaky', id!)).toMatchObject({ state: 'completed', attempts: 3, maxAttempts: null });
  });

  it("runs a job under its worker's policy, wherever it was enqueued, unless it has its own maxAttempts", async () => {
    const producer = await newQueue(); // no workers, default policy (maxAttempts 5)
    await producer.start();
    const byWorker = await enqueueCommitted(producer, 'policy', { n: 1 });
    const own = await enqueueCommitted(producer, 'policy', { n: 2 }, { maxAttempts: 1 });
    await producer.stop();

    const attempts: string[] = [];
    const exhausted: Array<{ n: number; attempt: number; maxAttempts: number }> = [];
    const worker = await newQueue();
    await worker.work<{ n: number }>('policy', async (job) => {
      attempts.push(`${job.data.n}:${job.attempt}/${job.maxAttempts}`);
      throw new Error('always');
    }, {
      retry: { maxAttempts: 2, baseDelayMs: 50, maxDelayMs: 100 },
      onExhausted: async (job) => void exhausted.push({ n: job.data.n, attempt: job.attempt, maxAttempts: job.maxAttempts }),
    });
    await worker.start();
    await waitFor(async () => (await stateOf(worker, 'policy', byWorker!)) === 'failed' && (await stateOf(worker, 'policy', own!)) === 'failed', 'both jobs to fail');
    expect(attempts.sort()).toEqual(['1:1/2', '1:2/2', '2:1/1']);
    expect(exhausted.sort((a, b) => a.n - b.n)).toEqual([{ n: 1, attempt: 2, maxAttempts: 2 }, { n: 2, attempt: 1, maxAttempts: 1 }]);
    expect((await worker.getJob('policy', own!))?.maxAttempts).toBe(1);
  });

  it('calls onExhausted once, with the last error, after the last attempt', async () => {
    const attempts: number[] = [];
    const calls: Array<{ job: Job<{ deliveryId: string }>; error: unknown }> = [];
    const q = await newQueue();
    await q.work<{ deliveryId: string }>('doomed', async (job) => {
      attempts.push(job.attempt);
      throw new Error(`courier down (attempt ${job.attempt})`);
    }, { retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 }, onExhausted: async (job, error) => void calls.push({ job, error }) });
    await q.start();
    const id = await enqueueCommitted(q, 'doomed', { deliveryId: 'd2' });
    q.notify();
    await waitFor(async () => (await stateOf(q, 'doomed', id!)) === 'failed', 'the job to fail for good');
    await sleep(pg ? 1_500 : 300); // nothing runs after that

    expect(attempts).toEqual([1, 2, 3]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.job).toMatchObject({ id, name: 'doomed', data: { deliveryId: 'd2' }, attempt: 3, maxAttempts: 3 });
    expect((calls[0]!.error as Error).message).toBe('courier down (attempt 3)');
    expect((await q.getJob('doomed', id!))?.lastError).toBe('courier down (attempt 3)');
  });

  it('goes straight to onExhausted on an error with retryable: false', async () => {
    let runs = 0;
    const calls: unknown[] = [];
    const permanent = Object.assign(new Error('No shipping address'), { retryable: false });
    const q = await newQueue();
    await q.work('permanent', async () => {
      runs++;
      throw permanent;
    }, { retry: { maxAttempts: 5 }, onExhausted: async (_job, error) => void calls.push(error) });
    await q.start();
    const id = await enqueueCommitted(q, 'permanent', { deliveryId: 'd3' });
    q.notify();
    await waitFor(async () => (await stateOf(q, 'permanent', id!)) === 'failed', 'the job to fail');
    await sleep(pg ? 1_500 : 300);
    expect(runs).toBe(1);
    expect(calls).toEqual([permanent]);
  });

  it('keeps a job that has not run across stop(); a new instance runs it', async () => {
    const first = await newQueue();
    await first.start(); // no worker for 'durable' here
    const id = await enqueueCommitted(first, 'durable', { deliveryId: 'd4' });
    await first.stop();

    const seen: unknown[] = [];
    const second = await newQueue();
    await second.work('durable', async (job) => void seen.push(job.data));
    await second.start();
    await waitFor(async () => seen.length > 0, 'the new instance to run the job');
    expect(seen).toEqual([{ deliveryId: 'd4' }]);
    await waitFor(async () => (await stateOf(second, 'durable', id!)) === 'completed', 'the job to complete');
  });

  it('intakeFirst: a claimed job waits to start while intake holds it back, then runs once; stopped meanwhile, it is given back and runs elsewhere', async () => {
    // The gate's own rule (busy webhooks and a late loop) is tested in test/unit/intake-first.test.ts;
    // here, what the queue does with its answer.
    let held = true;
    const turn = async (signal?: AbortSignal) => {
      while (held && !signal?.aborted) await sleep(10);
    };
    const ran: Array<{ name: string; attempt: number }> = [];
    const first = await newQueue(database, { intakeFirst: { turn } });
    await first.work('held', async (job) => void ran.push({ name: job.name, attempt: job.attempt }));
    await first.work('held-stop', async (job) => void ran.push({ name: job.name, attempt: job.attempt }));
    await first.start();
    const id = await enqueueCommitted(first, 'held', { deliveryId: 'h1' });
    await waitFor(async () => (await stateOf(first, 'held', id!)) === 'active', 'the job to be claimed');
    await sleep(pg ? 1_000 : 200);
    expect(ran).toEqual([]);
    held = false;
    await waitFor(async () => (await stateOf(first, 'held', id!)) === 'completed', 'the job to run once intake lets it');
    expect(ran).toEqual([{ name: 'held', attempt: 1 }]);

    held = true;
    const id2 = await enqueueCommitted(first, 'held-stop', { deliveryId: 'h2' });
    await waitFor(async () => (await stateOf(first, 'held-stop', id2!)) === 'active', 'the second job to be claimed');
    await first.stop({ graceMs: 0 });
    expect(ran).toHaveLength(1);
    const second = await newQueue();
    await second.work('held-stop', async (job) => void ran.push({ name: job.name, attempt: job.attempt }));
    await second.start();
    await waitFor(async () => (await stateOf(second, 'held-stop', id2!)) === 'completed', 'the given-back job to run on another instance');
    expect(ran).toEqual([{ name: 'held', attempt: 1 }, { name: 'held-stop', attempt: 2 }]);
  });

  it('runs again a job whose instance stopped without grace mid-run', async () => {
    let signal: AbortSignal | undefined;
    const first = await newQueue();
    await first.work('hang', (job) => {
      signal = job.signal;
      return new Promise<void>(() => {}); // never settles
    });
    await first.start();
    const id = await enqueueCommitted(first, 'hang', { deliveryId: 'd5' });
    first.notify();
    await waitFor(async () => signal, 'the handler to start');
    await first.stop({ graceMs: 0 });
    expect(signal!.aborted).toBe(true);

    const attempts: number[] = [];
    const second = await newQueue();
    await second.work('hang', async (job) => void attempts.push(job.attempt));
    await second.start();
    await waitFor(async () => (await stateOf(second, 'hang', id!)) === 'completed', 'the job to run again and complete');
    expect(attempts).toEqual([2]);
  });

  it('runs again a job whose worker process was killed (SIGKILL) mid-run', async () => {
    const producer = await newQueue();
    await producer.start();
    const id = await enqueueCommitted(producer, 'crash', { deliveryId: 'd6' });
    await producer.stop();

    // A real process, killed while its handler runs.
    const script = hangingWorkerScript('crash');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, QUEUE_OPTIONS: JSON.stringify(FAST) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise((r) => child.on('exit', r));
    try {
      await waitFor(async () => out.includes(`STARTED ${id} 1`), `the child to start the job (output: ${out})`);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const attempts: number[] = [];
    const q = await newQueue();
    await q.work('crash', async (job) => void attempts.push(job.attempt));
    await q.start();
    // SQLite: given back at start; pg-boss: after expireInSeconds (3 s) and a supervisor pass.
    await waitFor(async () => (await stateOf(q, 'crash', id!)) === 'completed', 'the job to run again after the kill');
    expect(attempts).toEqual([2]);
  });

  it('reports a job whose last attempt was lost to onExhausted', async () => {
    const first = await newQueue();
    let started = false;
    await first.work('lost-last', () => {
      started = true;
      return new Promise<void>(() => {});
    }, { retry: { maxAttempts: 1 } });
    await first.start();
    const id = await enqueueCommitted(first, 'lost-last', { deliveryId: 'd7' });
    first.notify();
    await waitFor(async () => started, 'the only attempt to start');
    await first.stop({ graceMs: 0 });

    let runs = 0;
    const calls: Array<{ job: Job; error: unknown }> = [];
    const second = await newQueue();
    await second.work('lost-last', async () => void runs++, { retry: { maxAttempts: 1 }, onExhausted: async (job, error) => void calls.push({ job, error }) });
    await second.start();
    await waitFor(async () => (await stateOf(second, 'lost-last', id!)) === 'failed', 'the job to be failed');
    expect(runs).toBe(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.job).toMatchObject({ id, attempt: 1, maxAttempts: 1 });
    expect((calls[0]!.error as Error).message).toMatch(/^attempt 1 did not finish: .*(stopped|shut down)/);
  });

  it('stop() waits for a running handler to finish within its grace', async () => {
    let started = false;
    let finished = false;
    const q = await newQueue();
    await q.work('slow', async () => {
      started = true;
      await sleep(800);
      finished = true;
    });
    await q.start();
    const id = await enqueueCommitted(q, 'slow', {});
    q.notify();
    await waitFor(async () => started, 'the handler to start');
    await q.stop({ graceMs: 10_000 });
    expect(finished).toBe(true);
    const reader = await inspector();
    expect(await stateOf(reader, 'slow', id!)).toBe('completed');
  });

  it('every(): each interval bucket runs once across two instances', async () => {
    const interval = pg ? 1_000 : 300;
    const runs: Array<{ at: number; by: string }> = [];
    const a = await newQueue();
    const b = await newQueue();
    await a.every('tick', interval, async ({ scheduledAt }) => void runs.push({ at: scheduledAt.getTime(), by: 'a' }));
    await b.every('tick', interval, async ({ scheduledAt }) => void runs.push({ at: scheduledAt.getTime(), by: 'b' }));
    await Promise.all([a.start(), b.start()]);
    await waitFor(async () => new Set(runs.map((r) => r.at)).size >= 4, 'four buckets to run', 20_000);
    await Promise.all([a.stop({ graceMs: 5_000 }), b.stop({ graceMs: 5_000 })]);

    const perBucket = new Map<number, number>();
    for (const r of runs) perBucket.set(r.at, (perBucket.get(r.at) ?? 0) + 1);
    expect([...perBucket.values()].every((n) => n === 1)).toBe(true);
    for (const at of perBucket.keys()) expect(at % interval).toBe(0);
  });

  it.runIf(pg)('two instances share 200 jobs, each handled exactly once', async () => {
    const handled = new Map<number, number>();
    const by = { a: 0, b: 0 };
    const a = await newQueue();
    const b = await newQueue();
    for (const [q, tag] of [[a, 'a'], [b, 'b']] as const) {
      await q.work<{ n: number }>('bulk', async (job) => {
        handled.set(job.data.n, (handled.get(job.data.n) ?? 0) + 1);
        by[tag]++;
        await sleep(Math.floor(Math.random() * 10));
      }, { concurrency: 5 });
    }
    await Promise.all([a.start(), b.start()]);
    for (let batch = 0; batch < 4; batch++) {
      await database.db.$transaction(async (tx) => {
        for (let i = 0; i < 50; i++) await a.enqueue(tx, 'bulk', { n: batch * 50 + i });
      });
      a.notify();
      b.notify();
    }
    await waitFor(async () => handled.size === 200, `all 200 jobs to run (${handled.size} so far)`, 60_000);
    await sleep(1_500);
    expect(handled.size).toBe(200);
    expect([...handled.values()].filter((n) => n !== 1)).toEqual([]);
    expect(by.a + by.b).toBe(200);
  }, 90_000);

  it.runIf(pg)("the jobs pool plans without bitmap scans (pg-boss's strict-FIFO fetch on a backlog, web/jobs/pgboss.ts), and keeps DATABASE_URL's own options", async () => {
    const withOptions = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c statement_timeout=54321')}`;
    const db = await openTestDatabase(withOptions);
    try {
      const q = await newQueue(db);
      await q.start();
      const boss = (q as unknown as { boss: { getDb(): { executeSql(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, string>> }> } } }).boss;
      const show = async (name: string) => (await boss.getDb().executeSql(`SELECT current_setting('${name}') AS v`)).rows[0]!.v;
      expect(await show('enable_bitmapscan')).toBe('off');
      expect(await show('statement_timeout')).toBe('54321ms');
    } finally {
      await db.close();
    }
  });

  it.runIf(pg)('two instances can install pg-boss on a fresh database at the same time', async () => {
    const freshUrl = await freshDatabaseUrl();
    const fresh = await openTestDatabase(freshUrl);
    try {
      const a = await newQueue(fresh);
      const b = await newQueue(fresh);
      const seen: string[] = [];
      await a.work('hello', async (job) => void seen.push(job.id));
      await Promise.all([a.start(), b.start()]);
      const id = await fresh.db.$transaction((tx) => b.enqueue(tx, 'hello', { x: 1 }));
      a.notify();
      await waitFor(async () => seen.includes(id!), 'the job to run');
      await Promise.all([a.stop({ graceMs: 0 }), b.stop({ graceMs: 0 })]);
    } finally {
      await fresh.close();
      await dropDatabase(freshUrl);
    }
  });
});
