// Preload for the app under a benchmark: counts the SQL statements the app runs on SQLite
// (every run of a better-sqlite3 Statement: the Prisma adapter's statements, cached or not)
// and the time each spends in SQLite, and on PostgreSQL (every pg Client query: Prisma's adapter,
// the direct driver, pg-boss; time is the round trip, waits included), and writes them, grouped by their first words (most time first),
// to $COUNT_STATEMENTS_FILE (default test-output/statements.txt: benchmarks start the app with a clean
// environment; "{pid}" in it becomes the process id) when the app exits, and when it gets SIGUSR2.
//   BENCH_APP_NODE_OPTIONS="--import $PWD/test/bench/count-statements.ts" npm run bench:dispatch
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';

type Stmt = { source: string; run(...a: unknown[]): unknown; all(...a: unknown[]): unknown; get(...a: unknown[]): unknown };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { prepare(sql: string): Stmt; close(): void };
const probe = new Database(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Stmt;
probe.close();
const counts = new Map<string, { n: number; ms: number }>();
for (const m of ['run', 'all', 'get'] as const) {
  const original = Statement[m];
  Statement[m] = function (this: Stmt, ...args: unknown[]) {
    const key = this.source.replace(/\s+/g, ' ').trim().slice(0, 100);
    const c = counts.get(key) ?? { n: 0, ms: 0 };
    counts.set(key, c);
    c.n += 1;
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      c.ms += performance.now() - started;
    }
  };
}
type PgQuery = (this: unknown, q: unknown, ...rest: unknown[]) => unknown;
const PgClient = (createRequire(import.meta.url)('pg') as { Client: { prototype: { query: PgQuery } } }).Client;
const pgQuery = PgClient.prototype.query;
PgClient.prototype.query = function (this: unknown, q: unknown, ...rest: unknown[]) {
  const text = typeof q === 'string' ? q : (q as { text?: string } | null)?.text;
  if (typeof text !== 'string') return pgQuery.call(this, q, ...rest);
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 100);
  const c = counts.get(key) ?? { n: 0, ms: 0 };
  counts.set(key, c);
  c.n += 1;
  const started = performance.now();
  const done = () => void (c.ms += performance.now() - started);
  // pg's Pool passes a callback; Prisma's adapter awaits the promise.
  const last = rest.length - 1;
  if (typeof rest[last] === 'function') {
    const cb = rest[last] as (...a: unknown[]) => unknown;
    rest[last] = (...a: unknown[]) => (done(), cb(...a));
  }
  const result = pgQuery.call(this, q, ...rest);
  return result instanceof Promise ? result.finally(done) : result;
};
/** The counts so far, written to $COUNT_STATEMENTS_FILE ("{pid}" in it becomes this process's id). */
function write(): void {
  const file = resolve((process.env.COUNT_STATEMENTS_FILE ?? 'test-output/statements.txt').replaceAll('{pid}', String(process.pid)));
  mkdirSync(dirname(file), { recursive: true });
  const rows = [...counts].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((t, [, c]) => ({ n: t.n + c.n, ms: t.ms + c.ms }), { n: 0, ms: 0 });
  const line = (k: string, c: { n: number; ms: number }) => `${String(c.n).padStart(7)}  ${c.ms.toFixed(0).padStart(6)} ms  ${(c.ms / c.n).toFixed(3).padStart(6)} ms each  ${k}`;
  // Renamed into place: a reader polling for the file never sees half of it.
  writeFileSync(`${file}.tmp`, [line('(all statements)', total), ...rows.map(([k, c]) => line(k, c))].join('\n') + '\n');
  renameSync(`${file}.tmp`, file);
}
process.on('exit', write);
// A snapshot on demand, without stopping the app: bench:scale reads each instance's count before and after its run.
process.on('SIGUSR2', write);
