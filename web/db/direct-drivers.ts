// The two drivers under web/db/direct-raw.ts: how a raw statement runs on the adapter's own
// connection, plain or inside the open transaction, and what is left to Prisma's path.
import { createHash } from 'node:crypto';
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
  query(config: { name?: string; text: string; values: unknown[]; rowMode: 'array'; types: typeof PG_TEXT_TYPES }): Promise<PgResult>;
}

/** The most statement texts one process prepares by name on PostgreSQL (each connection holds its own). */
export const NAMED_STATEMENTS_MAX = 200;

/**
 * Which statements run as named prepared statements: a text from its second run on, up to `max`
 * texts. PostgreSQL then parses and plans it once per connection, not on every run; the courier
 * event's statement spent more of the server's CPU being planned than run (4.6 -> 2.5 ms of
 * PostgreSQL CPU per applied event, issue 24). The bound keeps the server's memory bounded: texts
 * built for one list length (IN lists) stay unnamed once it is reached. A pooler between the app and
 * PostgreSQL in transaction mode must keep prepared statements (PgBouncer 1.21+:
 * max_prepared_statements; docs/operations.md).
 */
export class StatementNames {
  readonly #seen = new Map<string, string | null>();
  readonly #max: number;
  #named = 0;
  constructor(max = NAMED_STATEMENTS_MAX) {
    this.#max = max;
  }

  of(sql: string): string | undefined {
    const known = this.#seen.get(sql);
    if (known) return known;
    if (known === undefined) {
      // First run: remembered (up to a bound of its own), not named.
      if (this.#seen.size < this.#max * 10) this.#seen.set(sql, null);
      return undefined;
    }
    if (this.#named >= this.#max) return undefined;
    this.#named += 1;
    const name = `sdd_${createHash('sha1').update(sql).digest('base64url')}`;
    this.#seen.set(sql, name);
    return name;
  }
}

/**
 * A statement's changed-row count on `pool` (the Shopify intake's own pool, web/db/client.ts), named
 * from its second run like pgDriver's: the intake insert is parsed and planned once per connection,
 * not at every webhook of a sale (PostgreSQL's CPU shares the machine with the app's).
 */
export function pgExecute(pool: { query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rowCount: number | null }> }) {
  const names = new StatementNames();
  return async (sql: string, args: unknown[]): Promise<number> => (await pool.query({ name: names.of(sql), text: sql, values: args })).rowCount ?? 0;
}

/**
 * Plain statements on the adapter's pool; a transaction's on its connection. A plain statement the
 * server refused runs again through Prisma for Prisma's error; inside a transaction PostgreSQL has
 * aborted the transaction, so the driver's error is thrown as it is (isUniqueViolation knows it).
 */
export function pgDriver(pool: () => PgQueryable | undefined): DirectDriver {
  const result = (kind: Kind, sql: string, r: PgResult): unknown =>
    kind === 'execute' ? (r.rowCount ?? 0) : (pgRows(r.fields, r.rows) ?? (rereadable(sql) ? undefined : refused(sql)));
  const names = new StatementNames();
  const query = (on: PgQueryable, sql: string, args: unknown[]) => on.query({ name: names.of(sql), text: sql, values: args, rowMode: 'array', types: PG_TEXT_TYPES });
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
