// Opens the database named by DATABASE_URL with the matching driver adapter.
// Both generated clients have the same models (prisma/models.prisma), so the
// rest of the app uses one type, Db, and never branches on the provider except
// where a backend genuinely differs (the job queue).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import { PrismaClient } from '@prisma/client';
import type { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { parseDatabaseUrl, type DatabaseTarget } from './url.ts';
import { cachingPrepare } from './sqlite-statements.ts';
import { startingTransaction, withDirectRaw } from './direct-raw.ts';
import { pgDriver, pgExecute, sqliteDriver, type PgQueryable, type SqliteConnection } from './direct-drivers.ts';
import { forProvider } from './raw-sql.ts';
import { startCheckpointer, type CheckpointerOptions } from './sqlite-checkpointer.ts';

export type Db = PrismaClient;
/** A client or an interactive-transaction client. */
export type Tx = Omit<Db, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export interface Database {
  db: Db;
  target: DatabaseTarget;
  provider: DatabaseTarget['provider'];
  /**
   * One write statement outside Prisma, for the hottest path only (the webhook inbox insert,
   * issue 24): Prisma's request pipeline cost more CPU than the insert. Autocommit: durable when
   * it resolves. SQLite: `?` placeholders, on the adapter's connection under its lock (never
   * inside another flow's open transaction); PostgreSQL: `$n` placeholders, on a small pool.
   * Resolves with the number of rows changed.
   */
  execute(sql: string, args: unknown[]): Promise<number>;
  /**
   * SQLite only: runs fn under the connection's lock, its statements back to back with nothing of
   * this process between them (the job claim, web/jobs/sqlite-claim.ts; a transaction of known
   * statements, SqliteJobQueue.lockedWithJob). `query` returns rows as arrays of column values, `run`
   * the rows a statement changed; both take the driver's values (sqliteArgs). fn must not await.
   */
  sqliteLocked?<T>(fn: (query: (sql: string, args: unknown[]) => unknown[][], run: (sql: string, args: unknown[]) => number) => T): Promise<T>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
/** How long close() waits for the driver to hand back its connections. */
export const DISCONNECT_TIMEOUT_MS = 5_000;

export interface OpenOptions {
  poolSize?: number;
  /** SQLite: WAL checkpoints in a worker thread (web/db/sqlite-checkpointer.ts), for the long-running app. */
  backgroundCheckpoints?: CheckpointerOptions;
}

export async function openDatabase(url: string, opts: OpenOptions = {}): Promise<Database> {
  const target = parseDatabaseUrl(url);
  let db: Db;
  let execute: Database['execute'];
  let sqliteLocked: Database['sqliteLocked'];
  let closeExtra = async () => {};
  if (target.provider === 'sqlite') {
    // Each provider's driver is loaded only when used: memory (idle RSS) matters more than start-up.
    const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3');
    if (target.file !== ':memory:') mkdirSync(dirname(target.file), { recursive: true });
    // busy timeout: the operator CLI and the app may write the same file at once.
    const direct: SqliteDirect = {};
    const prisma = new PrismaClient({ adapter: isolateSqliteTransactions(new PrismaBetterSQLite3({ url: target.file, timeout: 10_000 }), direct) });
    // Raw statements skip Prisma's pipeline once the adapter has connected (the first statement connects it).
    db = withDirectRaw(prisma, sqliteDriver(() => direct.connection), (sql) => forProvider('sqlite', sql));
    // The adapter connects on its first statement; that hands `direct` its run and connection.
    const connected = async () => {
      if (!direct.connection) await db.$queryRawUnsafe('SELECT 1');
    };
    execute = async (sql, args) => {
      await connected();
      return direct.run!(sql, args);
    };
    sqliteLocked = async (fn) => {
      await connected();
      const conn = direct.connection!;
      return conn.locked(() => fn(
        (sql, args) => conn.prepare(sql).bind(args).raw().all() as unknown[][],
        (sql, args) => Number((conn.prepare(sql).bind(args).run() as { changes: number | bigint }).changes),
      ));
    };
    // WAL lets readers (health checks, the CLI) run beside the writer.
    await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL');
    if (opts.backgroundCheckpoints && target.file !== ':memory:') {
      const locked = sqliteLocked;
      const checkpointer = startCheckpointer(target.file, {
        changes: () => locked((query) => Number(query('SELECT total_changes()', [])[0]![0])),
        autocheckpoint: (pages) => locked((query) => void query(`PRAGMA wal_autocheckpoint = ${Math.trunc(pages)}`, [])),
      }, opts.backgroundCheckpoints);
      closeExtra = () => checkpointer.close();
    }
    // Erased personal data is overwritten with zeros, not left in free pages of the file.
    await db.$queryRawUnsafe('PRAGMA secure_delete = ON');
  } else {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    // Generated by prisma/generate.ts to node_modules/.prisma/client-postgres.
    const { PrismaClient: PgPrismaClient } = require('.prisma/client-postgres') as { PrismaClient: new (o: object) => Db };
    const direct: { pool?: PgQueryable } = {};
    const prisma = new PgPrismaClient({
      adapter: trackPgTransactions(new PrismaPg({ ...target.config, max: opts.poolSize ?? 10, connectionTimeoutMillis: 5_000, application_name: 'same-day-dispatch:app' }), direct),
    });
    db = withDirectRaw(prisma, pgDriver(() => direct.pool), (sql) => sql);
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ ...target.config, max: 4, connectionTimeoutMillis: 5_000, application_name: 'same-day-dispatch:intake' });
    pool.on('error', () => {}); // an idle connection dropped by the server: the next query opens another
    execute = pgExecute(pool);
    closeExtra = () => pool.end();
  }
  return {
    db,
    target,
    provider: target.provider,
    execute,
    ...(sqliteLocked ? { sqliteLocked } : {}),
    async close() {
      await closeExtra();
      // Bounded: after PostgreSQL restarted under load, the adapter's pool sometimes kept a client
      // that was never given back, and pool.end() waited for it forever (seen in pg-restart.test.ts).
      // Whatever is left is closed by the process exiting.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([db.$disconnect(), new Promise<void>((r) => (timer = setTimeout(r, DISCONNECT_TIMEOUT_MS)))]);
      clearTimeout(timer);
    },
  };
}

/**
 * A unique violation from a Prisma model query (P2002), a raw one (P2010, the driver adapter's kind),
 * or a raw one run directly inside a PostgreSQL transaction (the driver's SQLSTATE 23505), by code so
 * it works for both clients.
 */
/** A PostgreSQL error's SQLSTATE: the driver's, or the one inside Prisma's raw-query error (P2010). */
export function sqlStateOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  const code = e.code === 'P2010' ? e.meta?.driverAdapterError?.cause?.originalCode : e.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return e.code === 'P2002' || e.code === '23505' || (e.code === 'P2010' && e.meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation');
}

type PgAdapterFactory = InstanceType<typeof import('@prisma/adapter-pg').PrismaPg>;

/**
 * Hands web/db/direct-raw.ts the adapter's pool, and each transaction's connection while it is open
 * (from BEGIN until its commit or rollback gives the connection back to the pool).
 */
function trackPgTransactions(factory: PgAdapterFactory, direct: { pool?: PgQueryable }): AdapterFactory {
  return onConnect(factory, (a) => {
    direct.pool = a.client as PgQueryable;
    const start = a.startTransaction.bind(a);
    a.startTransaction = async (isolation?: unknown) => {
      const store = startingTransaction.getStore();
      const held = store && !store.started ? store : undefined;
      if (held) held.started = true;
      const tx = await start(isolation);
      if (held) {
        held.connection = tx.client;
        held.open = true;
        for (const m of ['commit', 'rollback'] as const) {
          const end = tx[m].bind(tx);
          tx[m] = async () => {
            held.open = false;
            return end();
          };
        }
      }
      return tx;
    };
  });
}

/** `factory`, handing each adapter it connects to `wrap`, which replaces its methods in place. */
function onConnect(factory: { provider: string; adapterName: string; connect(): Promise<unknown> }, wrap: (adapter: any) => void): AdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      wrap(adapter);
      return adapter;
    },
  } as AdapterFactory;
}

// The better-sqlite3 adapter has one connection. Its mutex orders transactions
// against each other, but a plain query issued while another async flow holds
// an open transaction runs on the same connection, inside that transaction: it
// sees uncommitted rows and is rolled back with it. One lock for plain queries
// and whole transactions closes that gap. A plain query holds it only for one
// synchronous statement.
//
// Across processes (the operator CLI beside the app) the adapter's deferred
// BEGIN is the problem: a transaction that reads before it writes cannot
// upgrade its lock once another process has committed, and fails at once with
// "database is locked" whatever the busy timeout. BEGIN IMMEDIATE takes the
// write lock up front, where the busy timeout applies.
type AdapterFactory = ConstructorParameters<typeof PrismaClient>[0] extends { adapter?: infer A } ? NonNullable<A> : never;

interface SqliteDirect {
  run?: Database['execute'];
  connection?: SqliteConnection;
}

function isolateSqliteTransactions(factory: PrismaBetterSQLite3, direct: SqliteDirect): AdapterFactory {
  // Handed from holder to holder through setImmediate, so requests waiting for I/O get in between
  // (better-sqlite3 answers synchronously: a chain of statements never yields on its own). The
  // webhook inbox insert asks with priority: it waits for the holder, not for the whole queue.
  let held = false;
  const queue: Array<() => void> = [];
  const acquire = (priority = false): Promise<() => void> =>
    new Promise((resolve) => {
      let done = false;
      const release = () => {
        if (done) return;
        done = true;
        const next = queue.shift();
        if (next) setImmediate(next);
        else held = false;
      };
      const grant = () => resolve(release);
      if (!held) {
        held = true;
        grant();
      } else if (priority) queue.unshift(grant);
      else queue.push(grant);
    });
  const guarded = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, priority = false) => async (...a: A): Promise<R> => {
    const release = await acquire(priority);
    try {
      return await fn(...a);
    } finally {
      release();
    }
  };
  return onConnect(factory, (a) => {
    const client = a.client as { prepare(sql: string): unknown };
    const prepare = cachingPrepare(client.prepare.bind(client));
    client.prepare = (sql: string) => prepare(sql === 'BEGIN' ? 'BEGIN IMMEDIATE' : sql);
    for (const m of ['queryRaw', 'executeRaw', 'executeScript'] as const) a[m] = guarded(a[m].bind(a));
    direct.run = guarded(async (sql: string, args: unknown[]) => Number((prepare(sql).bind(args).run() as { changes: number | bigint }).changes), true);
    direct.connection = { prepare, locked: (fn) => guarded(async () => fn())() };
    const start = a.startTransaction.bind(a);
    a.startTransaction = async (isolation?: unknown) => {
      // The $transaction being started (web/db/direct-raw.ts): its statements run directly while it holds the lock.
      const store = startingTransaction.getStore();
      const held = store && !store.started ? store : undefined;
      if (held) held.started = true;
      const release = await acquire();
      try {
        const tx = await start(isolation);
        if (held) held.open = true;
        let done = false;
        const finish = (fn: () => Promise<void>) => async () => {
          try {
            await fn();
          } finally {
            if (!done) {
              done = true;
              if (held) held.open = false;
              release();
            }
          }
        };
        tx.commit = finish(tx.commit.bind(tx));
        tx.rollback = finish(tx.rollback.bind(tx));
        return tx;
      } catch (e) {
        release();
        throw e;
      }
    };
  });
}
