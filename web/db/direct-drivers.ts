// The two drivers under web/db/direct-raw.ts: how a raw statement runs on the adapter's own
// connection, plain or inside the open transaction, and what is left to Prisma's path.
import type { DirectDriver, HeldTransaction, Kind } from './direct-raw.ts';
import { PG_TEXT_TYPES, pgArgs, pgRows, sqliteArgs, sqliteRows, type Column } from './direct-values.ts';

/** Only a SELECT may run again through Prisma after its result was refused: a write must not run twice. */
function rereadable(sql: string): boolean {
  return /^\s*select\b/i.test(sql);
}

function refused(sql: string): never {
  throw new Error(`a raw statement's result has a column type only Prisma converts; run it through Prisma: ${sql.slice(0, 80)}`);
}

interface SqliteStatement {
  readonly reader: boolean;
  run(): unknown;
  columns(): unknown[];
  raw(): { all(): unknown[] };
}

/** SQLite's one connection: `prepare` is the adapter's statement cache, `locked` its lock (web/db/client.ts). */
export interface SqliteConnection {
  prepare(sql: string): { bind(args: unknown[]): SqliteStatement };
  locked<T>(fn: () => T): Promise<T>;
}

/**
 * Synchronous on the connection. A failed statement changed nothing: it runs again through Prisma,
 * which gives its error in Prisma's shape (inside a transaction too: SQLite keeps the transaction).
 */
export function sqliteDriver(connection: () => SqliteConnection | undefined): DirectDriver {
  const once = (conn: SqliteConnection, kind: Kind, sql: string, values: unknown[]): unknown => {
    const args = sqliteArgs(values);
    if (!args) return undefined;
    let stmt: SqliteStatement;
    let rows: unknown[][];
    try {
      stmt = conn.prepare(sql).bind(args);
      if (kind === 'execute') return Number((stmt.run() as { changes: number | bigint }).changes);
      if (!stmt.reader) {
        stmt.run();
        return [];
      }
      rows = stmt.raw().all() as unknown[][];
    } catch {
      return undefined;
    }
    return sqliteRows(stmt.columns() as Column[], rows) ?? (rereadable(sql) ? undefined : refused(sql));
  };
  return {
    plain(kind, sql, values) {
      const conn = connection();
      return conn?.locked(() => once(conn, kind, sql, values));
    },
    inTransaction: (held: HeldTransaction) => (kind, sql, values) => {
      const conn = connection();
      if (!held.open || !conn) return undefined;
      try {
        return Promise.resolve(once(conn, kind, sql, values));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}

interface PgResult {
  fields: Array<{ name: string; dataTypeID: number }>;
  rows: unknown[][];
  rowCount: number | null;
}
export interface PgQueryable {
  query(config: { text: string; values: unknown[]; rowMode: 'array'; types: typeof PG_TEXT_TYPES }): Promise<PgResult>;
}

/**
 * Plain statements on the adapter's pool; a transaction's on its connection. A plain statement the
 * server refused runs again through Prisma for Prisma's error; inside a transaction PostgreSQL has
 * aborted the transaction, so the driver's error is thrown as it is (isUniqueViolation knows it).
 */
export function pgDriver(pool: () => PgQueryable | undefined): DirectDriver {
  const result = (kind: Kind, sql: string, r: PgResult): unknown =>
    kind === 'execute' ? (r.rowCount ?? 0) : (pgRows(r.fields, r.rows) ?? (rereadable(sql) ? undefined : refused(sql)));
  const query = (on: PgQueryable, sql: string, args: unknown[]) => on.query({ text: sql, values: args, rowMode: 'array', types: PG_TEXT_TYPES });
  return {
    plain(kind, sql, values) {
      const on = pool();
      const args = pgArgs(values);
      if (!on || !args) return undefined;
      // The server refused the statement (an SQLSTATE): it changed nothing. A lost connection may have
      // lost the answer to a statement that ran, so that error is not a reason to run it again.
      return query(on, sql, args).then(
        (r) => result(kind, sql, r),
        (e: { code?: unknown }) => {
          if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return undefined;
          throw e;
        },
      );
    },
    inTransaction: (held: HeldTransaction) => (kind, sql, values) => {
      const args = pgArgs(values);
      if (!held.open || !held.connection || !args) return undefined;
      return query(held.connection as PgQueryable, sql, args).then((r) => result(kind, sql, r));
    },
  };
}
