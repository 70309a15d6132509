// Applies pending migrations with `prisma migrate deploy` (the committed SQL in
// prisma/<provider>/migrations). PostgreSQL takes an advisory lock, so several
// instances starting at once apply each migration once.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { prismaCommand, root } from '../../prisma/cli.ts';
import { openDatabase, type Database, type Db, type OpenOptions } from './client.ts';
import { parseDatabaseUrl } from './url.ts';

export class MigrationError extends Error {}

export function committedMigrations(provider: 'sqlite' | 'postgres'): string[] {
  return readdirSync(join(root, 'prisma', provider, 'migrations'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/**
 * Committed migrations the database has not finished applying. Lets start-up
 * skip the Prisma CLI (about 1.5 s) when nothing is pending. Throws when the
 * database cannot be reached.
 */
export async function pendingMigrations(db: Db, provider: 'sqlite' | 'postgres'): Promise<string[]> {
  const committed = committedMigrations(provider);
  let applied: Array<{ migration_name: string }>;
  try {
    applied = await db.$queryRawUnsafe(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
  } catch (e) {
    if (/_prisma_migrations|no such table|does not exist/i.test(String((e as Error).message))) return committed;
    throw e;
  }
  const done = new Set(applied.map((r) => r.migration_name));
  return committed.filter((m) => !done.has(m));
}

export function migrateDatabase(url: string, opts: { timeoutMs?: number } = {}): Promise<{ applied: string[] }> {
  const target = parseDatabaseUrl(url);
  // The CLI runs in the project root; hand it the file resolved against our cwd.
  const cliUrl = target.provider === 'sqlite' && target.file !== ':memory:' ? `file:${target.file}` : url;
  const c = prismaCommand(target.provider, ['migrate', 'deploy'], { DATABASE_URL: cliUrl });
  return new Promise((resolve, reject) => {
    const child = spawn(c.command, c.args, { ...c.options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new MigrationError(`could not run prisma migrate deploy: ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) {
        const applied = [...out.matchAll(/└─ (\S+)\//g)].map((m) => m[1]!);
        resolve({ applied: out.includes('No pending migrations') ? [] : applied });
      } else reject(new MigrationError(summarise(out)));
    });
  });
}

/** The one informative line of Prisma's output, e.g. "P1001: Can't reach database server at ...". */
function summarise(out: string): string {
  const lines = out.split('\n').map((l) => l.trim()).filter(Boolean);
  const err = lines.find((l) => /^Error: P\d{4}/.test(l) || /^P\d{4}/.test(l)) ?? lines.find((l) => /error/i.test(l) && !/WARNING/.test(l));
  const idx = err ? lines.indexOf(err) : -1;
  const detail = idx >= 0 && /^Error: P\d{4}$/.test(err!) ? `${err} ${lines[idx + 1] ?? ''}` : err;
  return (detail ?? lines.at(-1) ?? 'prisma migrate deploy failed').replace(/^Error:\s*/, '').slice(0, 300);
}

/**
 * Opens the database and applies pending migrations. On SQLite our own open
 * connection would hold the file's lock against the migrating CLI, so it is
 * closed for the migration and reopened. Throws (with nothing left open) when
 * the database is unreachable or a migration fails.
 */
export async function openMigratedDatabase(url: string, opts: OpenOptions = {}): Promise<{ database: Database; applied: string[] }> {
  let database = await openDatabase(url, opts);
  try {
    const pending = await pendingMigrations(database.db, database.provider);
    if (!pending.length) return { database, applied: [] };
    if (database.provider === 'sqlite') await database.close();
    const { applied } = await migrateDatabase(url);
    if (database.provider === 'sqlite') database = await openDatabase(url, opts);
    return { database, applied };
  } catch (e) {
    await database.close().catch(() => {});
    throw e;
  }
}
