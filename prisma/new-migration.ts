// Writes a migration for each provider from the schema change since the last
// committed migration.  DATABASE_URL_PG=... npm run db:new-migration -- add_x
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './cli.ts';
import { pendingSql } from './pending.ts';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:new-migration -- <snake_case_name>');
  process.exit(2);
}
const pgUrl = process.env.DATABASE_URL_PG ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
for (const provider of ['sqlite', 'postgres'] as const) {
  const sql = pendingSql(provider, pgUrl);
  if (!sql) {
    console.log(`${provider}: no changes`);
    continue;
  }
  const dir = join(root, 'prisma', provider, 'migrations', `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  console.log(`${provider}: wrote ${dir}/migration.sql`);
}
