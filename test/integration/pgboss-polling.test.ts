// pg-boss's idle polling (web/jobs/pgboss.ts startWorker): one worker per queue polls at the
// interval, the others rarely, and a backlog another instance queued still runs on every worker.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { createJobQueue, type JobQueue } from '../../web/jobs/index.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';
import { waitFor } from '../support/process.ts';

const log = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Every fetch pg-boss sends names its queue in the SQL text (`j.name = '<queue>'`), through its Db's executeSql.
const fetches = new Map<string, number>();
function countFetches(q: JobQueue): void {
  const db = (q as unknown as { boss: { getDb(): { executeSql(text: string, values?: unknown[]): Promise<unknown> } } }).boss.getDb();
  const executeSql = db.executeSql.bind(db);
  db.executeSql = (text, values) => {
    const name = /^\s*WITH\s+next AS[\s\S]*?j\.name = '([^']+)'/.exec(String(text))?.[1];
    if (name) fetches.set(name, (fetches.get(name) ?? 0) + 1);
    return executeSql(text, values);
  };
}

describe.runIf(testProvider() === 'postgres')('pg-boss idle polling', () => {
  let url: string;
  let database: Database;
  const open: JobQueue[] = [];
  const newQueue = async () => {
    const q = await createJobQueue(database, { log, pollIntervalMs: 500, pgboss: { expireInSeconds: 30, superviseIntervalSeconds: 30 } });
    open.push(q);
    return q;
  };

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

  it('an idle queue of 6 workers is fetched about once per interval, not 6 times', async () => {
    const q = await newQueue();
    countFetches(q);
    await q.work('idle-six', async () => {}, { concurrency: 6 });
    await q.start();
    await sleep(1_000); // start-up: every worker's first fetch
    const before = fetches.get('idle-six') ?? 0;
    await sleep(3_000);
    const polled = (fetches.get('idle-six') ?? 0) - before;
    // One worker at 500 ms: ~6 in 3 s. Six of them at 500 ms were ~36.
    expect(polled).toBeGreaterThanOrEqual(3);
    expect(polled).toBeLessThanOrEqual(12);
  });

  it("another instance's backlog still runs on every worker at once, without a notify here", async () => {
    const worker = await newQueue();
    const running = new Set<number>();
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await worker.work<{ n: number }>('backlog-six', async (job) => {
      running.add(job.data.n);
      most = Math.max(most, running.size);
      await Promise.race([gate, new Promise((r) => job.signal.addEventListener('abort', r))]);
      running.delete(job.data.n);
    }, { concurrency: 6 });
    await worker.start();
    await sleep(1_000); // the helpers' first fetches are behind them: from here they poll every 15 s
    const other = await newQueue();
    await other.start();
    for (let n = 0; n < 6; n++) await database.db.$transaction((tx) => other.enqueue(tx, 'backlog-six', { n }));
    // The polling worker takes one; each job it starts wakes an idle sibling, which takes the next.
    await waitFor(async () => most === 6, 'six jobs running at once', 5_000);
    release();
  });
});
