// Parses DATABASE_URL into what a driver adapter needs. Shared by the app and
// the Prisma CLI configs so both open the same database.
import { resolve } from 'node:path';
import { parse } from 'pg-connection-string';

export const DEFAULT_DATABASE_URL = 'file:data/same-day-dispatch.db';

export type DatabaseTarget =
  | { provider: 'sqlite'; url: string; file: string }
  | { provider: 'postgres'; url: string; config: PgConfig };

export interface PgConfig {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  ssl?: boolean | { rejectUnauthorized?: boolean };
  options?: string;
}

/** Throws an Error whose message names what is wrong with the URL. */
export function parseDatabaseUrl(url: string, cwd = process.cwd()): DatabaseTarget {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '').split('?')[0] ?? '';
    if (!path) throw new Error('a file: URL needs a path, e.g. file:data/app.db');
    // Relative paths are relative to the working directory (the project root
    // for npm scripts), not to the schema file as Prisma's own engines assume.
    return { provider: 'sqlite', url, file: path === ':memory:' ? path : resolve(cwd, path) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const p = parse(url);
    const config: PgConfig = {
      host: p.host ?? undefined,
      port: p.port ? Number(p.port) : undefined,
      user: p.user ?? undefined,
      password: p.password ?? undefined,
      database: p.database ?? undefined,
    };
    if (p.ssl) config.ssl = typeof p.ssl === 'object' ? p.ssl : true;
    if (p.options) config.options = p.options;
    return { provider: 'postgres', url, config };
  }
  throw new Error('expected a file: URL (SQLite) or a postgres:// / postgresql:// URL');
}

/** The URL with any password replaced, for logs and messages. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
