// CI guard: the provider schemas match prisma/models.prisma, and each
// provider's committed migrations produce exactly that schema.
//   DATABASE_URL_PG=postgresql://... node prisma/check.ts
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './cli.ts';
import { pendingSql } from './pending.ts';

let failed = false;
const schemas = spawnSync(process.execPath, [join(root, 'prisma/schemas.ts'), '--check'], { stdio: 'inherit' });
if (schemas.status !== 0) failed = true;
else console.log('✓ provider schemas match prisma/models.prisma');

for (const provider of ['sqlite', 'postgres'] as const) {
  if (provider === 'postgres' && !process.env.DATABASE_URL_PG) {
    console.error('✗ DATABASE_URL_PG is not set; the PostgreSQL migration check cannot be skipped');
    failed = true;
    continue;
  }
  const sql = pendingSql(provider, process.env.DATABASE_URL_PG);
  if (!sql) console.log(`✓ ${provider} migrations match the schema`);
  else {
    console.error(`✗ ${provider} migrations lag the schema; run \`npm run db:new-migration -- <name>\`. Missing:\n${sql}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
