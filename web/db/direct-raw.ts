// Raw statements without Prisma's request pipeline (issue 24). Every `$queryRawUnsafe` and
// `$executeRawUnsafe` (and a tagged `$queryRaw`/`$executeRaw` without nested fragments) runs on the
// driver the adapter itself uses: Prisma's pipeline (its wasm compiler runs even for raw SQL, then
// its interpreter and result mapping) cost ~0.15 ms of CPU per statement, several times the
// statement itself. Results are the ones Prisma gives (web/db/direct-values.ts), held to Prisma's
// own output by test/integration/direct-raw.test.ts on both providers. Whatever this path does not
// know how to convert goes through Prisma, and so does a failed plain statement (it changed
// nothing), so its error keeps Prisma's shape.
import { AsyncLocalStorage } from 'node:async_hooks';
// Prisma's client type, not client.ts's Db: client.ts builds on this module.
import type { PrismaClient as Db } from '@prisma/client';

export type Kind = 'query' | 'execute';
/** A statement's result as Prisma would give it; undefined (or a promise of it) where only Prisma's path knows how. */
export type Run = (kind: Kind, sql: string, values: unknown[]) => Promise<unknown> | undefined;

/** One `$transaction(fn)`: marked open by the adapter wrapper (client.ts) from its BEGIN until its commit or rollback. */
export interface HeldTransaction {
  open: boolean;
  /** Set by the first transaction started in the flow: one Prisma starts for a root-client query inside `fn` is not this one. */
  started?: boolean;
  /** The driver connection the transaction runs on (PostgreSQL; SQLite has only one). */
  connection?: unknown;
}

/** The transaction being started in this async flow: the adapter's startTransaction finds it here. */
export const startingTransaction = new AsyncLocalStorage<HeldTransaction>();

export interface DirectDriver {
  /** A statement outside any transaction. */
  plain: Run;
  /** A statement of the open transaction `held`. */
  inTransaction(held: HeldTransaction): Run;
}

type RawMethods = Pick<Db, '$queryRawUnsafe' | '$executeRawUnsafe' | '$queryRaw' | '$executeRaw'>;

/** A tagged template as SQL with `$n` placeholders; undefined for a Prisma.Sql or nested fragments. */
export function templateSql(strings: unknown, values: unknown[]): string | undefined {
  if (!Array.isArray(strings) || !('raw' in strings)) return undefined;
  if (values.some((v) => v !== null && typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array))) return undefined;
  return (strings as string[]).reduce((sql, part, i) => (i === 0 ? part : `${sql}$${i}${part}`), '');
}

function rawMethods(prisma: RawMethods, run: Run, placeholders: (sql: string) => string): RawMethods {
  const attempt = (kind: Kind, sql: string | undefined, values: unknown[], slow: () => Promise<unknown>): Promise<unknown> => {
    const fast = sql === undefined ? undefined : run(kind, sql, values);
    if (!fast) return slow();
    return fast.then((r) => (r === undefined ? slow() : r));
  };
  const tagged = (strings: unknown, values: unknown[]) => {
    const sql = templateSql(strings, values);
    return sql === undefined ? undefined : placeholders(sql);
  };
  return {
    $queryRawUnsafe: ((sql: string, ...values: unknown[]) => attempt('query', sql, values, () => prisma.$queryRawUnsafe(sql, ...values))) as Db['$queryRawUnsafe'],
    $executeRawUnsafe: ((sql: string, ...values: unknown[]) => attempt('execute', sql, values, () => prisma.$executeRawUnsafe(sql, ...values))) as Db['$executeRawUnsafe'],
    $queryRaw: ((strings: unknown, ...values: unknown[]) => attempt('query', tagged(strings, values), values, () => (prisma.$queryRaw as any)(strings, ...values))) as Db['$queryRaw'],
    $executeRaw: ((strings: unknown, ...values: unknown[]) => attempt('execute', tagged(strings, values), values, () => (prisma.$executeRaw as any)(strings, ...values))) as Db['$executeRaw'],
  };
}

/** `target` with `own`'s members in front; the rest are the target's, methods bound to it (it may keep private state). */
function overlay<T extends object>(target: T, own: Record<PropertyKey, unknown>): T {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, p) {
      if (p in own) return own[p];
      const v = Reflect.get(t, p);
      if (typeof v !== 'function') return v;
      let b = bound.get(p);
      if (!b) bound.set(p, (b = v.bind(t)));
      return b;
    },
  });
}

/**
 * `db` with its raw statements run directly. Inside `db.$transaction(fn)`, `fn`'s client runs them
 * on the transaction's connection while it is open (after a timeout has closed it, Prisma's path
 * gives Prisma's error). The array form of `$transaction` is Prisma's own; a client made by
 * `$extends` runs its raw statements directly too. `placeholders`: the provider's form of `$n`.
 */
export function withDirectRaw(db: Db, driver: DirectDriver, placeholders: (sql: string) => string): Db {
  const $transaction = (arg: unknown, ...rest: unknown[]) => {
    if (typeof arg !== 'function') return (db.$transaction as any)(arg, ...rest);
    const held: HeldTransaction = { open: false };
    return startingTransaction.run(held, () =>
      (db.$transaction as any)((tx: Db) => arg(overlay(tx, rawMethods(tx, driver.inTransaction(held), placeholders))), ...rest),
    );
  };
  const $extends = (...a: unknown[]) => withDirectRaw((db.$extends as any)(...a), driver, placeholders);
  return overlay(db, { ...rawMethods(db, driver.plain, placeholders), $transaction, $extends });
}
