// Shared by the benchmarks: an open-loop load generator (requests start on
// schedule whatever the latency, so queueing shows up in the figures), the
// real app on a fresh database, and percentile formatting. Figures are
// printed, never asserted.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Pool } from 'undici';
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
    NODE_ENV: 'production',
    SHOPIFY_API_KEY: 'bench-api-key',
    SHOPIFY_API_SECRET: API_SECRET,
    SHOPIFY_APP_URL: 'https://bench.example.com',
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'warn',
    RECONCILE_INTERVAL_SECONDS: '0',
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
