// Preload for the app under a benchmark: counts the SQL statements the app runs on SQLite
// (every run of a better-sqlite3 Statement: the Prisma adapter's statements, cached or not)
// and writes them, grouped by their first words, to $COUNT_STATEMENTS_FILE when the app exits.
//   BENCH_APP_NODE_OPTIONS="--import $PWD/test/bench/count-statements.ts" COUNT_STATEMENTS_FILE=… npm run bench:dispatch
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type Stmt = { source: string; run(...a: unknown[]): unknown; all(...a: unknown[]): unknown; get(...a: unknown[]): unknown };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { prepare(sql: string): Stmt; close(): void };
const probe = new Database(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Stmt;
probe.close();
const counts = new Map<string, number>();
for (const m of ['run', 'all', 'get'] as const) {
  const original = Statement[m];
  Statement[m] = function (this: Stmt, ...args: unknown[]) {
    const key = this.source.replace(/\s+/g, ' ').trim().slice(0, 60);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
}
process.on('exit', () => {
  const file = process.env.COUNT_STATEMENTS_FILE;
  if (!file) return;
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((n, [, c]) => n + c, 0);
  writeFileSync(file, [`${String(total).padStart(7)}  (all statements)`, ...rows.map(([k, n]) => `${String(n).padStart(7)}  ${k}`)].join('\n') + '\n');
});
