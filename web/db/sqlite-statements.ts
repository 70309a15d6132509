// A prepared-statement cache for the better-sqlite3 adapter. The adapter
// prepares every statement again (`client.prepare(sql).bind(args)`), which was
// the largest single cost in the app's CPU profile (issue 18). A better-sqlite3
// Statement can be bound only once, so the cache hands the adapter a bound view
// that passes the arguments on each run instead.

interface Statement {
  readonly reader: boolean;
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
  columns(): unknown[];
  raw(on?: boolean): Statement;
}

/** What the adapter uses of a prepared statement: `prepare(sql).run()` and `prepare(sql).bind(args)…`. */
export interface CachedStatement {
  run(): unknown;
  bind(args: unknown[]): { reader: boolean; run(): unknown; columns(): unknown[]; raw(): { all(): unknown[] } };
}

/**
 * Wraps `prepare` with an LRU cache of `max` statements, keyed by the SQL text
 * (Prisma sends placeholders, so the texts repeat; IN lists of other lengths
 * only make more keys). Runs are synchronous, so a statement is never busy
 * when it is reused.
 */
export function cachingPrepare(prepare: (sql: string) => unknown, max = 500): (sql: string) => CachedStatement {
  const cache = new Map<string, Statement>();
  // A prepared statement's columns never change; the adapter asks for them on every read (~2 % of
  // the app's CPU applying courier events).
  const columnsOf = new WeakMap<Statement, unknown[]>();
  return (sql) => {
    let s = cache.get(sql);
    if (s) {
      cache.delete(sql);
    } else {
      s = prepare(sql) as Statement;
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, s);
    const stmt = s;
    return {
      run: () => stmt.run(),
      bind: (args) => ({
        reader: stmt.reader,
        run: () => stmt.run(args),
        columns: () => {
          let c = columnsOf.get(stmt);
          if (!c) columnsOf.set(stmt, (c = stmt.columns()));
          return c;
        },
        raw: () => ({ all: () => stmt.raw(true).all(args) }),
      }),
    };
  };
}
