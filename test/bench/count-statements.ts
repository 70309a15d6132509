// Preload for the app under a benchmark: counts the SQL statements the app runs on SQLite
// (every statement goes through better-sqlite3's prepare in the Prisma adapter) and writes
// them, grouped by their first words, to $COUNT_STATEMENTS_FILE when the app exits.
//   BENCH_APP_NODE_OPTIONS="--import $PWD/test/bench/count-statements.ts" COUNT_STATEMENTS_FILE=… npm run bench:dispatch
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const Database = createRequire(import.meta.url)('better-sqlite3') as { prototype: { prepare(sql: string): unknown } };
const counts = new Map<string, number>();
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: unknown, sql: string) {
  const key = sql.replace(/\s+/g, ' ').trim().slice(0, 60);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  return prepare.call(this, sql);
};
process.on('exit', () => {
  const file = process.env.COUNT_STATEMENTS_FILE;
  if (!file) return;
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  writeFileSync(file, rows.map(([k, n]) => `${String(n).padStart(7)}  ${k}`).join('\n') + '\n');
});
