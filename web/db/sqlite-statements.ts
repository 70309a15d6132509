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
      s = prepare(planOnce(sql)) as Statement;
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

/**
 * `x = ?` becomes `x = +?` (after =, <, >: every comparison operator). The value is the same and so
 * is the comparison: neither a parameter nor `+expr` has an affinity. Why: when SQLite's planner has
 * compared a bare parameter by its value (sqlite3ExprCompare, in every join and in the job queue's
 * claim reads), the statement is marked to be prepared again after any new binding, so it was planned
 * again on every run: 3-13x its cost (a courier event's read: 118 us, 16 us with this; issue 24).
 * `+?` is an expression, not a parameter: planned once. Quoted text and comments are left alone.
 */
export function planOnce(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const close = c === "'" || c === '"' || c === '`' ? c : c === '[' ? ']' : c === '-' && sql[i + 1] === '-' ? '\n' : c === '/' && sql[i + 1] === '*' ? '*/' : null;
    if (close) {
      const end = sql.indexOf(close, i + 1 + (close === '*/' ? 1 : 0));
      const to = end < 0 ? sql.length : end + close.length;
      out += sql.slice(i, to);
      i = to;
      continue;
    }
    if (c === '?' && '=<>'.includes(out.trimEnd().slice(-1) || ' ')) out += '+';
    out += c;
    i += 1;
  }
  return out;
}
