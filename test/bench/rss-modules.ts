// `npm run bench:rss`: where the app's idle memory goes. Imports the app's big dependencies
// and then the app, one after another in one process, and prints the resident set after each
// (printed, never asserted; docs/benchmarks.md "Idle RSS").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const mb = () => process.memoryUsage().rss / 1048576;
let last = mb();
const step = (name: string) => {
  const now = mb();
  console.log(`${name.padEnd(44)} ${now.toFixed(0).padStart(4)} MB  (+${(now - last).toFixed(0)})`);
  last = now;
};

console.log(`idle RSS by module; Node ${process.version}`);
step('node itself');
for (const m of ['express', 'zod', 'pino', 'pg-boss', '@shopify/shopify-api', '@prisma/client']) {
  await import(m);
  step(m);
}
const { openDatabase } = await import('../../web/db/client.ts');
step('web/db/client.ts');
await import('../../web/app.ts');
step('the rest of web/app.ts');
const dir = mkdtempSync(join(tmpdir(), 'rss-'));
const database = await openDatabase(`file:${join(dir, 'rss.db')}`);
await database.db.session.findFirst().catch(() => null); // the first model query loads the query compiler
step('SQLite open + first model query');
await database.close();
rmSync(dir, { recursive: true, force: true });
