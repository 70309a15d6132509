// Shared by the benchmarks: an open-loop load generator (requests start on
// schedule whatever the latency, so queueing shows up in the figures), the
// real app on a fresh database, and percentile formatting. Figures are
// printed, never asserted.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { dockerfileEnv } from '../support/dockerfile.ts';
import { scratchDatabase } from '../support/scratch-db.ts';
import { adminPgUrl, ROOT } from '../support/paths.ts';
import { spawnApp, waitFor, type AppProcess } from '../support/process.ts';

export const API_SECRET = 'bench-api-secret-0123456789';

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function summary(latencies: number[]) {
  const s = [...latencies].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? NaN };
}

export const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Starts `fn` `rate` times a second for `durationMs`; resolves with each call's latency. */
export async function openLoop(rate: number, durationMs: number, fn: (i: number) => Promise<void>): Promise<{ latencies: number[]; errors: number; elapsedMs: number }> {
  const total = Math.round((rate * durationMs) / 1000);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    running.push(
      fn(i).then(
        () => void latencies.push(performance.now() - t0),
        () => void errors++,
      ),
    );
  }
  await Promise.all(running);
  return { latencies, errors, elapsedMs: performance.now() - started };
}

export function pool(url: string): Pool {
  return new Pool(url, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
}

/** A fresh database for one benchmark run; null (with a note) when PostgreSQL is not reachable. */
export async function benchDatabase(provider: 'sqlite' | 'postgres') {
  const db = await scratchDatabase(provider, { optional: true });
  if (!db) console.log(`PostgreSQL at ${adminPgUrl()} is not reachable; skipping the PostgreSQL run`);
  return db;
}

export function machine(): string {
  return `Node ${process.version}, ${(globalThis as any).navigator?.hardwareConcurrency ?? '?'} CPUs`;
}

/** The app's real entry point in a child process (its own event loop and CPU), ready to serve. */
export async function startAppProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<{ url: string; env: Record<string, string>; proc: AppProcess; stop(): Promise<void> }> {
  const full = {
    ...dockerfileEnv(),
    NODE_ENV: 'production',
    SHOPIFY_API_KEY: 'bench-api-key',
    SHOPIFY_API_SECRET: API_SECRET,
    SHOPIFY_APP_URL: 'https://bench.example.com',
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'warn',
    RECONCILE_INTERVAL_SECONDS: '0',
    // e.g. --cpu-prof --cpu-prof-dir=test-output/profiles (the profile is written when the app exits)
    ...(process.env.BENCH_APP_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_APP_NODE_OPTIONS } : {}),
    ...env,
  };
  const proc = spawnApp({ ...full, LOG_LEVEL: 'info' });
  // Never leave the app running behind a benchmark that failed half-way.
  process.once('exit', () => proc.child.kill('SIGKILL'));
  const url = await proc.url();
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'the app to be ready', 60_000);
  return {
    url,
    env: full,
    proc,
    async stop() {
      proc.child.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/** Runs the operator CLI against the app's database; throws with its one-line error. */
export function cli(env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'web/cli/main.ts'), ...args], { env: { PATH: process.env.PATH, ...env, LOG_LEVEL: 'error' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cli ${args[0]} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

// ---- options, CPU, load and the summary block -------------------------------------------

/** `--quick` (tiny sizes, for the smoke test) and the databases: `--db=sqlite,postgres` or BENCH_DB (default sqlite). */
export function benchArgs(argv = process.argv.slice(2)) {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const dbs = (flag('db') ?? process.env.BENCH_DB ?? process.env.BENCH_PROVIDERS ?? 'sqlite').split(',').map((s) => s.trim());
  for (const d of dbs) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`--db: ${d} is neither sqlite nor postgres`);
  return { quick: argv.includes('--quick') || process.env.BENCH_QUICK === '1', providers: dbs as Array<'sqlite' | 'postgres'> };
}

/** User + system CPU of a process so far, in ms, from /proc (Linux; NaN elsewhere). */
export function cpuMsOf(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS; // utime, stime (fields 14 and 15)
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100;

/**
 * CPU of the whole PostgreSQL server so far, in ms: every process named postgres (its backends and
 * its own writers, checkpointer and autovacuum), from /proc. Backends that exit are no longer
 * counted, so it is read around a run whose connections stay open (pooled). NaN when none is readable.
 */
export function postgresCpuMs(): number {
  let total = 0;
  let seen = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const ms = cpuMsOf(Number(d));
    if (Number.isFinite(ms)) (total += ms), seen++;
  }
  return seen ? total : NaN;
}

/**
 * Statements (PostgreSQL: round trips) each app process has sent so far, read from
 * test/bench/count-statements.ts preloaded in it: SIGUSR2 makes it write `file(pid)`, whose first
 * line is the total. NaN for a process that did not answer within 5 s.
 */
export async function statementsSentBy(pids: number[], file: (pid: number) => string): Promise<number[]> {
  return Promise.all(
    pids.map(async (pid) => {
      rmSync(file(pid), { force: true });
      try {
        process.kill(pid, 'SIGUSR2');
      } catch {
        return NaN;
      }
      for (const until = Date.now() + 5_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        if (!existsSync(file(pid))) continue;
        return Number(/^\s*(\d+)/.exec(readFileSync(file(pid), 'utf8'))?.[1] ?? NaN);
      }
      return NaN;
    }),
  );
}

/** Resident set size of a process in MB, from /proc. */
export function rssMbOf(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Our child processes running `entry` (the stack starts the app without telling its pid). */
export function childPidsRunning(entry: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').some((a) => a.endsWith(entry))) pids.push(Number(d));
    } catch {}
  }
  return pids;
}

export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** e.g. { op: '>=', limit: 1000 }; none for a figure printed without a target. */
  target?: { op: '>=' | '<=' | '<' | '=='; limit: number };
}

const holds = (f: Figure) => {
  if (!f.target) return null;
  const { op, limit } = f.target;
  return op === '>=' ? f.value >= limit : op === '<=' ? f.value <= limit : op === '<' ? f.value < limit : f.value === limit;
};

/**
 * The summary block every benchmark ends with: one line per figure, its target and PASS/MISS,
 * the load average, then one machine-readable BENCH_RESULT line (the smoke test reads it).
 */
export function printSummary(bench: string, figures: Figure[], extra: Record<string, unknown> = {}): void {
  console.log(`\n==== ${bench} summary (load average ${loadavg()}; ${machine()}) ====`);
  for (const f of figures) {
    const v = Number.isFinite(f.value) ? (Number.isInteger(f.value) ? String(f.value) : f.value.toFixed(f.value < 10 ? 2 : 1)) : 'n/a';
    const ok = holds(f);
    const target = f.target ? `target ${f.target.op} ${f.target.limit} ${f.unit}` : '';
    console.log(`${f.name.padEnd(48)} ${`${v} ${f.unit}`.padStart(16)}   ${target.padEnd(24)} ${ok === null ? '' : ok ? 'PASS' : 'MISS'}`);
  }
  console.log(`BENCH_RESULT ${JSON.stringify({ bench, load: loadavg(), figures: Object.fromEntries(figures.map((f) => [f.name, Number.isFinite(f.value) ? f.value : null])), ...extra })}`);
}

/** Exactly-once at the courier: references with more than one order, and how many references have one. */
export function courierCounts(byReference: Record<string, number>) {
  const counts = Object.values(byReference);
  return { references: counts.length, duplicated: counts.filter((n) => n > 1).length };
}

/** `concurrency` callers, each starting its next call when the last ends, for `durationMs`: the saturation throughput. */
export async function closedLoop(concurrency: number, durationMs: number, fn: (i: number) => Promise<void>): Promise<{ done: number; errors: number; elapsedMs: number; perSecond: number }> {
  let done = 0;
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const end = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        try {
          await fn(next++);
          done++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  return { done, errors, elapsedMs, perSecond: (done / elapsedMs) * 1000 };
}
