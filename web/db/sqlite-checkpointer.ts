// SQLite's WAL checkpoints off the app's thread (issue 24). A checkpoint copies the WAL's pages into
// the database file and syncs both files: blocking I/O that SQLite's autocheckpoint runs inside
// whichever COMMIT takes the WAL past 1,000 pages. In bench:events 67 such commits held the app's
// only thread 1,056 ms of a 7.3 s burst (p50 of a COMMIT 0.09 ms, p99 14.7 ms).
//
// Guarantees:
// - Durability is SQLite's own: a checkpoint from another connection is the same operation, and a
//   commit is in the WAL before its statement returns (synchronous = NORMAL, as before).
// - The app's connection keeps an autocheckpoint, far out (BACKSTOP_PAGES), for when the worker is
//   behind or gone: the WAL never grows without bound. PASSIVE checkpoints never finish while writes
//   keep coming, so under a steady load the backstop is what resets the WAL; its checkpoint then finds
//   nearly every page copied already.
// - The worker runs only while the database is being written: it starts when the WAL changes and ends
//   after IDLE_MS without work, so an idle app holds no second thread (its heap is ~15 MB of RSS).
// - close() ends the worker between checkpoints, before the app's connection closes (which
//   checkpoints what is left and removes the WAL).
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/** The app connection's own autocheckpoint when the worker checkpoints (pages of 4 KiB: 64 MiB). */
export const BACKSTOP_PAGES = 16_000;

/** How long close() lets a checkpoint under way finish before it ends the worker. */
const STOP_WAIT_MS = 2_000;

export interface CheckpointerOptions {
  /** How often the WAL's change time is read, to start the worker. */
  watchMs?: number;
  /** How often the worker checkpoints while it runs. */
  everyMs?: number;
  /** The worker ends after this long with nothing to copy. */
  idleMs?: number;
  /** Told of a worker that could not start or failed (the backstop keeps checkpointing meanwhile). */
  onError?: (error: unknown) => void;
  /** After a failed worker, how long before another is started (one warning per spell, not per second). */
  retryMs?: number;
}

export interface Checkpointer {
  /** Whether the worker runs now (tests). */
  readonly running: boolean;
  close(): Promise<void>;
}

/** Checkpoints `file`'s WAL from a worker thread while the WAL changes. */
export function startCheckpointer(file: string, opts: CheckpointerOptions = {}): Checkpointer {
  const { watchMs = 1_000, everyMs = 250, idleMs = 30_000, retryMs = 60_000 } = opts;
  const wal = `${file}-wal`;
  let worker: Worker | null = null;
  let closed = false;
  let seen = 0;
  let retryAt = 0;
  const start = () => {
    // Plain JavaScript (the function's own source, types stripped): a worker that loads TypeScript
    // needs the type stripper and a heap of more than 8 MB.
    const w = new Worker(`(${checkpointLoop.toString()})(require('node:worker_threads'), require)`, {
      eval: true,
      workerData: { file, everyMs, idleMs, driver: require.resolve('better-sqlite3') } satisfies LoopData,
      // Only a connection and a timer live here.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
      stdout: false,
      stderr: false,
    });
    w.unref();
    w.on('error', (e) => {
      retryAt = Date.now() + retryMs;
      opts.onError?.(e);
    });
    w.on('exit', () => {
      if (worker === w) worker = null;
    });
    worker = w;
  };
  const timer = setInterval(() => {
    const changed = statSync(wal, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (changed === seen) return;
    seen = changed;
    if (!worker && !closed && Date.now() >= retryAt) start();
  }, watchMs);
  timer.unref();
  return {
    get running() {
      return worker !== null;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      const w = worker;
      worker = null;
      if (!w) return;
      const exited = new Promise<void>((r) => w.once('exit', () => r()));
      w.postMessage('stop');
      let timeout: NodeJS.Timeout | undefined;
      const late = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => (timeout = setTimeout(() => r(true), STOP_WAIT_MS)))]);
      clearTimeout(timeout);
      if (late) await w.terminate();
    },
  };
}

interface LoopData {
  file: string;
  everyMs: number;
  idleMs: number;
  /** better-sqlite3's resolved path: the eval'd worker has no module path of its own. */
  driver: string;
}
type Connection = { pragma(sql: string): Array<{ log: number; checkpointed: number }>; close(): void };

/**
 * The worker: its own connection, PASSIVE checkpoints (they never wait for the app's writers or
 * readers, and a busy one is tried at the next tick), ended after a quiet spell or at 'stop'
 * (between checkpoints, so none is cut off half-way). Runs from its source text: it may use only
 * its arguments.
 */
function checkpointLoop(threads: typeof import('node:worker_threads'), load: (id: string) => unknown): void {
  const { file, everyMs, idleMs, driver } = threads.workerData as LoopData;
  const Database = load(driver) as new (file: string, o: { timeout: number; fileMustExist: boolean }) => Connection;
  const db = new Database(file, { timeout: 0, fileMustExist: true });
  let quietSince = Date.now();
  let last = -1;
  const end = () => {
    clearInterval(timer);
    db.close();
    threads.parentPort?.close();
  };
  const timer = setInterval(() => {
    let r: { log: number; checkpointed: number } | undefined;
    try {
      r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    } catch {
      return;
    }
    // Work to do: frames not yet copied, or new ones since the last tick.
    if (r && (r.checkpointed < r.log || r.log !== last)) quietSince = Date.now();
    last = r ? r.log : -1;
    if (Date.now() - quietSince >= idleMs) end();
  }, everyMs);
  threads.parentPort?.on('message', (m) => {
    if (m === 'stop') end();
  });
}
