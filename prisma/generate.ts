// Generates both Prisma clients (npm postinstall and `npm run db:generate`).
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { prisma, root } from './cli.ts';

for (const provider of ['sqlite', 'postgres'] as const) {
  const r = prisma(provider, ['generate'], { capture: true });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    console.error(`prisma generate failed for ${provider}`);
    process.exit(1);
  }
}

// A client generated to a custom output gets its own copy of the runtime, so
// its error classes would differ from @prisma/client's and `instanceof
// Prisma.PrismaClientKnownRequestError` (used by the Shopify session storage)
// would miss PostgreSQL errors. Point it at the shared runtime instead.
const pgDir = join(root, 'node_modules/.prisma/client-postgres');
for (const file of readdirSync(pgDir).filter((f) => /\.(c?js|mjs)$/.test(f))) {
  const path = join(pgDir, file);
  const text = readFileSync(path, 'utf8');
  const patched = text.replaceAll(/(['"])\.\/runtime\/client\.js\1/g, "'@prisma/client/runtime/client.js'");
  if (patched !== text) writeFileSync(path, patched);
}
console.log('Prisma clients generated (sqlite, postgres).');
