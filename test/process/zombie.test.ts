// A SIGKILLed worker stays a zombie until its parent reaps it, and
// `kill(pid, 0)` still succeeds on a zombie. Its SQLite jobs must come back
// within seconds, not after the 60 s claim lease. The worker here is a real
// process whose parent (`sleep`, after `exec`) never reaps it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../web/db/client.ts';
import { migrateDatabase } from '../../web/db/migrate.ts';
import { createJobQueue, type JobQueue } from '../../web/jobs/index.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { hangingWorkerScript } from '../support/job-worker.ts';
import { ROOT } from '../support/paths.ts';
import { scratchDatabase } from '../support/scratch-db.ts';
import { waitFor } from '../support/process.ts';

const log = createLogger({ level: 'silent' });
const LEASE_MS = 60_000; // the default lease: recovery must not wait for it

let scratch: { url: string; drop(): Promise<void> };
let database: Database;
beforeAll(async () => {
  scratch = (await scratchDatabase('sqlite'))!;
  await migrateDatabase(scratch.url);
  database = await openDatabase(scratch.url);
});
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
});

function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** A worker process that claims `name` jobs and hangs in the handler; its parent never reaps it. */
function zombieWorker(name: string) {
  const script = hangingWorkerScript(name);
  // `exec sleep` replaces the shell; sleep never calls wait(), so the killed worker stays a zombie.
  const shell = spawn('sh', ['-c', `"$NODE" --input-type=module -e "$SCRIPT" & exec sleep 120`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: scratch.url, NODE: process.execPath, SCRIPT: script, QUEUE_OPTIONS: JSON.stringify({ pollIntervalMs: 50, leaseMs: LEASE_MS }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  shell.stdout!.on('data', (d) => (out += d));
  shell.stderr!.on('data', (d) => (out += d));
  return { shell, output: () => out };
}

async function killZombie(name: string, id: string) {
  const w = zombieWorker(name);
  const started = await waitFor(async () => /STARTED (\S+) (\d+) (\d+)/.exec(w.output()), `the worker to claim the job (${w.output()})`, 30_000);
  expect(started[1]).toBe(id);
  const pid = Number(started[3]);
  process.kill(pid, 'SIGKILL');
  await waitFor(async () => procState(pid) === 'Z', 'the worker to become a zombie');
  expect(() => process.kill(pid, 0)).not.toThrow(); // what fooled the old liveness check
  return { pid, done: () => w.shell.kill('SIGKILL') };
}

const enqueue = (q: JobQueue, name: string) => database.db.$transaction((tx) => q.enqueue(tx, name, {}));

describe.skipIf(process.platform !== 'linux')('SQLite jobs of a SIGKILLed (zombie) worker', () => {
  it('are given back at once by a worker that starts after the kill', async () => {
    const q = await createJobQueue(database, { log, pollIntervalMs: 50, leaseMs: LEASE_MS });
    const attempts: number[] = [];
    const id = await enqueue(q, 'zombie-running');
    const z = await killZombie('zombie-running', id!);
    try {
      await q.work('zombie-running', async (job) => void attempts.push(job.attempt));
      await q.start();
      // Started after the claim: the start-up give-back must see the zombie as dead.
      await waitFor(async () => (await q.getJob('zombie-running', id!))?.state === 'completed', 'the job to run again', 15_000);
      expect(attempts).toEqual([2]);
      expect(procState(z.pid)).toBe('Z'); // still unreaped: recovered without waiting for the parent
    } finally {
      z.done();
      await q.stop({ graceMs: 0 });
    }
  }, 60_000);

  it('are given back by the periodic sweep while the lease still runs', async () => {
    const q = await createJobQueue(database, { log, pollIntervalMs: 50, leaseMs: LEASE_MS });
    const attempts: number[] = [];
    await q.work('zombie-sweep', async (job) => void attempts.push(job.attempt), { concurrency: 1 });
    const producer = await createJobQueue(database, { log });
    await producer.start();
    const id = await enqueue(producer, 'zombie-sweep-other');
    await producer.stop({ graceMs: 0 });
    // The queue runs first (no job of its name is held yet); then the worker is killed.
    await q.start();
    const z = await killZombie('zombie-sweep-other', id!);
    try {
      await q.work('zombie-sweep-other', async (job) => void attempts.push(job.attempt));
      await waitFor(async () => (await q.getJob('zombie-sweep-other', id!))?.state === 'completed', 'the job to run again', 15_000);
      expect(attempts).toEqual([2]);
      expect(procState(z.pid)).toBe('Z');
    } finally {
      z.done();
      await q.stop({ graceMs: 0 });
    }
  }, 60_000);
});
