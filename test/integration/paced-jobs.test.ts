// workPaced() (web/shopify/paced-jobs.ts) over the real job queue and pacer: a background job whose
// shop's budget is spent is parked, and the queue holds its group until the pacer's wake, so the
// group's later jobs are queued parked from the start instead of being claimed only to defer.
// SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { createJobQueue, type JobQueue } from '../../web/jobs/index.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { MAX_PARK_MS, workPaced } from '../../web/shopify/paced-jobs.ts';
import { MemoryBudgetStore, ShopifyPacer } from '../../web/shopify/pacer.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';
import { waitFor } from '../support/process.ts';

const pg = testProvider() === 'postgres';
const log = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let url: string;
let database: Database;
let queue: JobQueue | undefined;

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
});
afterEach(async () => {
  await queue?.stop({ graceMs: 0 });
  queue = undefined;
});
afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

describe(`paced jobs on ${testProvider()}`, () => {
  it("a parked background job holds its group: the group's later jobs wait for the wake without running, then each writes once", async () => {
    const shop = 'a.myshopify.com';
    let t = 0;
    const timers: Array<{ at: number; fn: () => void }> = [];
    // The clock moves only when the test or a pacer's sleep moves it.
    const pacer = new ShopifyPacer({ store: new MemoryBudgetStore(), now: () => t, sleep: async (ms) => void (t += ms), costs: { Write: 10 }, timer: (fn, ms) => void timers.push({ at: t + ms, fn }) });
    pacer.noteMaximum(shop, 2000);
    await pacer.settle(shop, 'Write', { requested: 0, actual: null, status: { currentlyAvailable: 0, maximumAvailable: 2000, restoreRate: 100 } });
    const runs: string[] = [];
    const wrote: string[] = [];
    const q = (queue = await createJobQueue(database, { log, pollIntervalMs: pg ? 500 : 50 }));
    await workPaced<{ n: string }>({ db: database.db, queue: q, log }, 'paced-writes', async (job) => {
      runs.push(job.data.n);
      await pacer.acquire(shop, 'Write', { priority: 'background', deferAfterMs: 0 });
      wrote.push(job.data.n);
    }, { concurrency: 3 });
    await q.start();
    const enqueue = async (n: string) => {
      await database.db.$transaction((tx) => q.enqueue(tx, 'paced-writes', { n }, { group: shop }));
      q.notify();
    };

    await enqueue('1');
    // Its deferral is stored and the pacer will look at the budget when it could pay.
    await waitFor(async () => timers.length === 1, 'the first job to be parked', 10_000);
    await enqueue('2');
    await enqueue('3');
    await sleep(pg ? 1_500 : 300);
    expect(runs).toEqual(['1']);
    expect(wrote).toEqual([]);

    // The budget has refilled by then: the look wakes the group, and every job of it runs once.
    const look = timers.shift()!;
    t = look.at + 1_000;
    look.fn();
    await waitFor(async () => wrote.length === 3, 'the parked and the held jobs to write', 10_000);
    expect(wrote.sort()).toEqual(['1', '2', '3']);
    expect(runs.sort()).toEqual(['1', '1', '2', '3']);
    expect(timers).toEqual([]);
  });

  it('a job parked by a process that stopped runs at the next start-up, not after MAX_PARK_MS; a job planned for its time keeps it', async () => {
    const shop = 'b.myshopify.com';
    let t = 0;
    // The clock moves only when a pacer's sleep moves it; the first process's wake never comes (it stops).
    const spent = new ShopifyPacer({ store: new MemoryBudgetStore(), now: () => t, sleep: async (ms) => void (t += ms), costs: { Write: 10 }, timer: () => {} });
    spent.noteMaximum(shop, 2000);
    await spent.settle(shop, 'Write', { requested: 0, actual: null, status: { currentlyAvailable: 0, maximumAvailable: 2000, restoreRate: 100 } });
    const wrote: string[] = [];
    let runs = 0;
    const worker = (q: JobQueue, pacer: ShopifyPacer) => workPaced<{ n: string }>({ db: database.db, queue: q, log }, 'paced-restart', async (job) => {
      runs++;
      await pacer.acquire(shop, 'Write', { priority: 'background', deferAfterMs: 0 });
      wrote.push(job.data.n);
    });
    const first = (queue = await createJobQueue(database, { log, pollIntervalMs: 50 }));
    await worker(first, spent);
    await first.start();
    await database.db.$transaction(async (tx) => {
      await first.enqueue(tx, 'paced-restart', { n: 'parked' }, { group: shop });
      await first.enqueue(tx, 'paced-restart', { n: 'planned' }, { group: shop, startAfterMs: MAX_PARK_MS, keepTime: true });
    });
    first.notify();
    await waitFor(async () => runs === 1, 'the first job to run and be parked', 10_000);
    await first.stop({ graceMs: 10_000 });

    // The next process: a fresh pacer, which knows no budget yet.
    const fresh = new ShopifyPacer({ store: new MemoryBudgetStore(), now: () => t, sleep: async (ms) => void (t += ms), costs: { Write: 10 } });
    const second = (queue = await createJobQueue(database, { log, pollIntervalMs: 50 }));
    await worker(second, fresh);
    // start() wakes it (workPaced registers the queue with wakeAtStart); its own time is 10 minutes away.
    await second.start();
    await waitFor(async () => wrote.length === 1, 'the parked job to write after the start-up', 10_000);
    await sleep(pg ? 1_500 : 300);
    expect(wrote).toEqual(['parked']);
  });
});
