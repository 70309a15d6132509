// SQL that the committed migrations of a provider lack compared with its
// schema. '' means they match. Used by check.ts (CI) and new-migration.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prisma, type Provider } from './cli.ts';

function run(provider: Provider, args: string[], env: NodeJS.ProcessEnv, what: string): string {
  const r = prisma(provider, args, { env, capture: true });
  // migrate diff --exit-code: 0 = no difference, 2 = difference.
  if (r.status !== 0 && r.status !== 2) throw new Error(`${provider}: ${what} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

export function pendingSql(provider: Provider, pgUrl?: string): string {
  const schema = `prisma/${provider}/schema.prisma`;
  const diffArgs = ['--to-schema-datamodel', schema, '--script', '--exit-code'];
  if (provider === 'postgres') {
    if (!pgUrl) throw new Error('a PostgreSQL URL is needed for the shadow database');
    const out = run(provider, ['migrate', 'diff', '--from-migrations', 'prisma/postgres/migrations', ...diffArgs], { DATABASE_URL: pgUrl }, 'migrate diff');
    return clean(out);
  }
  // SQLite: `--from-migrations` hits the wasm engine's shadow-database bug, so
  // apply the migrations to a scratch file, introspect it, and diff that.
  const dir = mkdtempSync(join(tmpdir(), 'sdd-migrations-'));
  try {
    const env = { DATABASE_URL: `file:${join(dir, 'scratch.db')}` };
    run(provider, ['migrate', 'deploy'], env, 'migrate deploy');
    const pulled = run(provider, ['db', 'pull', '--print'], env, 'db pull');
    const pulledFile = join(dir, 'pulled.prisma');
    writeFileSync(pulledFile, pulled.slice(pulled.indexOf('generator client')));
    return clean(run(provider, ['migrate', 'diff', '--from-schema-datamodel', pulledFile, ...diffArgs], env, 'migrate diff'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function clean(sql: string): string {
  return /^\s*(-- This is an empty migration\.)?\s*$/.test(sql) ? '' : sql;
}
