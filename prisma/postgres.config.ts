// Prisma CLI config for PostgreSQL. The wasm schema engine cannot read columns
// of type `name` (prisma/orm#27403), so the CLI's pg client reports them as
// text. The adapter gets a plain config object (not a URL or a Pool) so that its
// shadow-database override of `database` takes effect, and idle connections
// close at once so the shadow database can be dropped. Runtime queries need
// none of this (web/db/client.ts).
import pg from 'pg';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { parseDatabaseUrl } from '../web/db/url.ts';

const NAME = 19;
const CHAR = 18;
const TEXT = 25;

function retype(result: any) {
  for (const f of result?.fields ?? []) {
    if (f.dataTypeID === NAME || f.dataTypeID === CHAR) f.dataTypeID = TEXT;
  }
  return result;
}

class NameAsTextClient extends pg.Client {
  // pg's query() has promise, callback and config-callback forms; cover all three.
  override query(...args: any[]): any {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => last(err, retype(res));
      return (super.query as any)(...args);
    }
    if (args[0] && typeof args[0] === 'object' && typeof args[0].callback === 'function') {
      const cb = args[0].callback;
      args[0].callback = (err: unknown, res: unknown) => cb(err, retype(res));
      return (super.query as any)(...args);
    }
    const out = (super.query as any)(...args);
    return out && typeof out.then === 'function' ? out.then(retype) : out;
  }
}

// The wasm schema engine arms a 10 s timer on PostgreSQL that keeps the CLI
// alive for 10 s after `migrate deploy` has finished. This file is only loaded
// by the CLI, so unref that timer here: pending I/O still holds the process open.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = function (this: unknown, fn: any, ms?: number, ...args: any[]) {
  const t = (realSetTimeout as any).call(this, fn, ms, ...args);
  if ((ms ?? 0) >= 10_000) t.unref?.();
  return t;
} as typeof setTimeout;

// `prisma generate` only needs the variable to exist; commands that connect
// still require a real one (checked in adapter()).
const configuredUrl = process.env.DATABASE_URL;
process.env.DATABASE_URL ||= 'postgresql://unset/unset';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: './postgres/schema.prisma',
  migrations: { path: './postgres/migrations' },
  async adapter() {
    const url = configuredUrl;
    if (!url) throw new Error('DATABASE_URL must be a postgres:// URL for prisma/postgres.config.ts');
    const target = parseDatabaseUrl(url);
    if (target.provider !== 'postgres') throw new Error('prisma/postgres.config.ts needs a postgres:// DATABASE_URL');
    return new PrismaPg({ ...target.config, Client: NameAsTextClient, idleTimeoutMillis: 1, allowExitOnIdle: true } as pg.PoolConfig);
  },
});
