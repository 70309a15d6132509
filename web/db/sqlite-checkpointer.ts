// SQLite's WAL checkpoints off the app's thread (issue 24). A checkpoint copies the WAL's pages into
// the database file and syncs both files: blocking I/O that SQLite's autocheckpoint runs inside
// whichever COMMIT takes the WAL past 1,000 pages. In bench:events 67 such commits held the app's
// only thread 1,056 ms of a 7.3 s burst (p50 of a COMMIT 0.09 ms, p99 14.7 ms).
//
// Guarantees:
// - Durability is SQLite's own: a checkpoint from another connection is the same operation, and a
//   commit is in the WAL before its statement returns (synchronous = NORMAL, as before).
// - While the worker runs, the app's connection keeps an autocheckpoint far out (BACKSTOP_PAGES), for
//   when the worker is behind: the WAL never grows without bound. PASSIVE checkpoints never finish
//   while writes keep coming, so under a steady load the backstop is what resets the WAL; its
//   checkpoint then finds nearly every page copied already. Without the worker, SQLite's default.
// - The worker runs only while the app writes: it starts when a watch interval saw `busyChanges` rows
//   written (SQLite's total_changes()), and ends after `idleMs` below that, so an idle app, whose
//   timers write a row now and then, holds no second thread (its heap is ~15 MB of RSS).
// - close() ends the worker between checkpoints, before the app's connection closes (which
//   checkpoints what is left and removes the WAL).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/** The app connection's own autocheckpoint while the worker checkpoints (pages of 4 KiB: 64 MiB). */
export const BACKSTOP_PAGES = 16_000;
/** SQLite's default autocheckpoint, the app connection's own when no worker runs. */
export const DEFAULT_PAGES = 1_000;

/**
 * How often the worker checkpoints while it runs. Not once a second (tried in the thirty-ninth
 * session): it saved the worker's thread ~0.3 ms of CPU per order in a sale, but each checkpoint then
 * copied and synced a second of writes at once, and the app's webhook answers got slower:
 * `bench:intake` SQLite p99 at 50 req/s (the step after saturation, while the inbox drains) went from
 * 14–16 ms to 337–438 ms (docs/benchmarks.md).
 */
export const CHECKPOINT_EVERY_MS = 250;

/** How long close() lets a checkpoint under way finish before it ends the worker. */
const STOP_WAIT_MS = 2_000;

/** What the checkpointer asks of the app's connection. */
export interface AppConnection {
  /** Rows written on it since it opened (SQLite's total_changes()). */
  changes(): Promise<number>;
  /** Sets its own autocheckpoint, in pages. */
  autocheckpoint(pages: number): Promise<void>;
}

export interface CheckpointerOptions {
  /** How often the app's writes are counted. */
  watchMs?: number;
  /** Rows written within one watch interval that start the worker. */
  busyChanges?: number;
  /** How often the worker checkpoints while it runs. */
  everyMs?: number;
  /** The worker ends after this long without a busy interval. */
  idleMs?: number;
  /** Told of a worker that could not start or failed (the app's connection checkpoints itself meanwhile). */
  onError?: (error: unknown) => void;
  /** After a failed worker, how long before another is started (one warning per spell, not per second). */
  retryMs?: number;
}

export interface Checkpointer {
  /** Whether the worker runs now (tests). */
  readonly running: boolean;
  close(): Promise<void>;
}

/** Checkpoints `file`'s WAL from a worker thread while the app writes to it. */
export function startCheckpointer(file: string, app: AppConnection, opts: CheckpointerOptions = {}): Checkpointer {
  const { watchMs = 1_000, busyChanges = 50, everyMs = CHECKPOINT_EVERY_MS, idleMs = 30_000, retryMs = 60_000 } = opts;
  const report = (e: unknown) => opts.onError?.(e);
  let worker: Worker | null = null;
  let closed = false;
  let ticking = false;
  let counted: number | null = null;
  let busyAt = 0;
  let retryAt = 0;
  const start = () => {
    // Plain JavaScript (the function's own source, types stripped): a worker that loads TypeScript
    // needs the type stripper and a heap of more than 8 MB.
    const w = new Worker(`(${checkpointLoop.toString()})(require('node:worker_threads'), require)`, {
      eval: true,
      workerData: { file, everyMs, driver: require.resolve('better-sqlite3') } satisfies LoopData,
      // Only a connection and a timer live here.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
      stdout: false,
      stderr: false,
    });
    w.unref();
    w.on('error', (e) => {
      retryAt = Date.now() + retryMs;
      report(e);
    });
    w.on('exit', () => {
      if (worker !== w) return;
      worker = null;
      if (!closed) app.autocheckpoint(DEFAULT_PAGES).catch(report);
    });
    worker = w;
    return app.autocheckpoint(BACKSTOP_PAGES);
  };
  const stop = async (w: Worker) => {
    const exited = new Promise<void>((r) => w.once('exit', () => r()));
    w.postMessage('stop');
    let timeout: NodeJS.Timeout | undefined;
    const late = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => (timeout = setTimeout(() => r(true), STOP_WAIT_MS)))]);
    clearTimeout(timeout);
    if (late) await w.terminate();
  };
  const tick = async () => {
    const n = await app.changes();
    const busy = counted !== null && n - counted >= busyChanges;
    counted = n;
    const now = Date.now();
    if (busy) busyAt = now;
    if (closed) return;
    if (busy && !worker && now >= retryAt) await start();
    else if (!busy && worker && now - busyAt >= idleMs) await stop(worker);
  };
  const timer = setInterval(() => {
    if (ticking) return;
    ticking = true;
    // A tick still reading when close() came finds the connection closing: nothing to report.
    tick().catch((e) => closed || report(e)).finally(() => (ticking = false));
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
      if (w) await stop(w);
    },
  };
}

interface LoopData {
  file: string;
  everyMs: number;
  /** better-sqlite3's resolved path: the eval'd worker has no module path of its own. */
  driver: string;
}
type Connection = { pragma(sql: string): unknown; close(): void };

/**
 * The worker: its own connection, PASSIVE checkpoints (they never wait for the app's writers or
 * readers, and a busy one is tried at the next tick) until 'stop', which comes between checkpoints,
 * so none is cut off half-way. Runs from its source text: it may use only its arguments.
 */
function checkpointLoop(threads: typeof import('node:worker_threads'), load: (id: string) => unknown): void {
  const { file, everyMs, driver } = threads.workerData as LoopData;
  const Database = load(driver) as new (file: string, o: { timeout: number; fileMustExist: boolean }) => Connection;
  const db = new Database(file, { timeout: 0, fileMustExist: true });
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy: the next tick
    }
  }, everyMs);
  threads.parentPort?.on('message', (m) => {
    if (m !== 'stop') return;
    clearInterval(timer);
    db.close();
    threads.parentPort?.close();
  });
}
