// Preload for the app under a benchmark: counts the Prisma query-compiler runs (one per model
// query; raw statements are cheap ones) and their wall time, grouped by model and action, and
// writes them to $COUNT_COMPILES_FILE (default test-output/compiles.txt) when the app exits.
//   BENCH_APP_NODE_OPTIONS="--import $PWD/test/bench/count-compiles.ts" npm run bench:dispatch
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';

type Compiler = { prototype: { compile(query: string): unknown } };
const { QueryCompiler } = createRequire(resolve('package.json'))('.prisma/client/query_compiler_bg.js') as { QueryCompiler: Compiler };
const original = QueryCompiler.prototype.compile;
const counts = new Map<string, { n: number; ms: number }>();
QueryCompiler.prototype.compile = function (this: unknown, query: string) {
  const started = performance.now();
  try {
    return original.call(this, query);
  } finally {
    const { modelName, action } = JSON.parse(query) as { modelName?: string; action: string };
    const key = `${modelName ?? '(raw)'}.${action}`;
    const c = counts.get(key) ?? { n: 0, ms: 0 };
    c.n += 1;
    c.ms += performance.now() - started;
    counts.set(key, c);
  }
};
process.on('exit', () => {
  const file = resolve(process.env.COUNT_COMPILES_FILE ?? 'test-output/compiles.txt');
  mkdirSync(dirname(file), { recursive: true });
  const rows = [...counts].sort((a, b) => b[1].ms - a[1].ms);
  writeFileSync(file, rows.map(([k, { n, ms }]) => `${String(n).padStart(7)}  ${ms.toFixed(0).padStart(6)} ms  ${(ms / n).toFixed(2).padStart(5)} ms each  ${k}`).join('\n') + '\n');
});
