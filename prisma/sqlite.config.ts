// Prisma CLI config for SQLite: runs the bundled wasm schema engine through the
// better-sqlite3 driver adapter, so no engine binary is downloaded.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from '../web/db/url.ts';

// The schema reads env("DATABASE_URL"); give it the app's default when unset.
process.env.DATABASE_URL ||= DEFAULT_DATABASE_URL;

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: './sqlite/schema.prisma',
  migrations: { path: './sqlite/migrations' },
  async adapter() {
    const target = parseDatabaseUrl(process.env.DATABASE_URL!);
    if (target.provider !== 'sqlite') throw new Error('prisma/sqlite.config.ts needs a file: DATABASE_URL');
    if (target.file !== ':memory:') mkdirSync(dirname(target.file), { recursive: true });
    return new PrismaBetterSQLite3({ url: target.file });
  },
});
