// The prepared-statement cache of the SQLite adapter (web/db/sqlite-statements.ts), on a real
// in-memory better-sqlite3 database, used the way the Prisma adapter uses `prepare`.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cachingPrepare, planOnce } from '../../web/db/sqlite-statements.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as new (f: string) => { prepare(sql: string): any; exec(sql: string): void };

function setup(max?: number) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const prepared: string[] = [];
  const prepare = cachingPrepare((sql) => {
    prepared.push(sql);
    return db.prepare(sql);
  }, max);
  return { prepare, prepared };
}

describe('cachingPrepare', () => {
  it('prepares a statement once and runs it with each call’s own arguments', () => {
    const { prepare, prepared } = setup();
    for (let i = 1; i <= 3; i++) expect(prepare('INSERT INTO t (id, v) VALUES (?, ?)').bind([i, `v${i}`]).run()).toMatchObject({ changes: 1 });
    const read = (id: number) => {
      const s = prepare('SELECT id, v FROM t WHERE id >= ?').bind([id]);
      expect(s.reader).toBe(true);
      expect(s.columns()).toHaveLength(2);
      return s.raw().all();
    };
    expect(read(2)).toEqual([[2, 'v2'], [3, 'v3']]);
    expect(read(3)).toEqual([[3, 'v3']]);
    prepare('BEGIN').run();
    prepare('COMMIT').run();
    expect(prepared).toEqual(['INSERT INTO t (id, v) VALUES (?, ?)', 'SELECT id, v FROM t WHERE id >= +?', 'BEGIN', 'COMMIT']);
  });

  it("reads a statement's columns once (the adapter asks on every read)", () => {
    const { prepare } = setup();
    const first = prepare('SELECT id, v FROM t WHERE id = ?').bind([1]).columns();
    expect(first).toMatchObject([{ name: 'id' }, { name: 'v', type: 'TEXT' }]);
    expect(prepare('SELECT id, v FROM t WHERE id = ?').bind([2]).columns()).toBe(first);
    expect(prepare('SELECT v FROM t').bind([]).columns()).toMatchObject([{ name: 'v' }]);
  });

  it('a failed run (constraint) leaves the statement usable', () => {
    const { prepare } = setup();
    const insert = (id: number) => prepare('INSERT INTO t (id, v) VALUES (?, ?)').bind([id, 'x']).run();
    insert(1);
    expect(() => insert(1)).toThrow(/UNIQUE/);
    expect(insert(2)).toMatchObject({ changes: 1 });
  });

  it('keeps at most `max` statements, dropping the least recently used', () => {
    const { prepare, prepared } = setup(2);
    prepare('SELECT 1').run();
    prepare('SELECT 2').run();
    prepare('SELECT 1').run();
    prepare('SELECT 3').run(); // drops SELECT 2
    prepare('SELECT 1').run();
    prepare('SELECT 2').run();
    expect(prepared).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3', 'SELECT 2']);
  });
});

describe('planOnce', () => {
  it.each([
    ['SELECT a FROM t WHERE a = ? AND b >= ? AND c <> ? AND d != ? AND e < ? AND f > ? AND g <= ?', 'SELECT a FROM t WHERE a = +? AND b >= +? AND c <> +? AND d != +? AND e < +? AND f > +? AND g <= +?'],
    ['UPDATE t SET v = ? WHERE id=?', 'UPDATE t SET v = +? WHERE id=+?'],
    ['SELECT a FROM t WHERE a=?1 AND b == ?2', 'SELECT a FROM t WHERE a=+?1 AND b == +?2'],
    // Not compared: left as they are (a value list, a limit, a select list, a function's argument).
    ['INSERT INTO t (a, b) VALUES (?, ?)', 'INSERT INTO t (a, b) VALUES (?, ?)'],
    ['SELECT ?, json(?) FROM t WHERE a IN (?, ?) LIMIT ? OFFSET ?', 'SELECT ?, json(?) FROM t WHERE a IN (?, ?) LIMIT ? OFFSET ?'],
    ['SELECT a FROM t WHERE ? = a', 'SELECT a FROM t WHERE ? = a'],
    // Quoted text, identifiers and comments are not SQL.
    [`SELECT 'a = ?', "b=?", \`c=?\`, [d=?] FROM t WHERE x = ? -- y = ?\n AND z = ? /* w = ? */`, `SELECT 'a = ?', "b=?", \`c=?\`, [d=?] FROM t WHERE x = +? -- y = ?\n AND z = +? /* w = ? */`],
    [`SELECT 'it''s = ?' FROM t WHERE v = ?`, `SELECT 'it''s = ?' FROM t WHERE v = +?`],
  ])('%s', (sql, expected) => {
    expect(planOnce(sql)).toBe(expected);
  });

  it('compares exactly as the bare parameter does, affinities included', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE a (id TEXT PRIMARY KEY, n INTEGER, r REAL, at DATETIME, t TEXT, b BLOB);
      CREATE INDEX a_n ON a (n); CREATE INDEX a_at ON a (at); CREATE INDEX a_t ON a (t);
      CREATE TABLE c (id TEXT PRIMARY KEY, aid TEXT);
      INSERT INTO a VALUES ('x', 1, 1.5, '2026-12-01 10:00:00.000', '1', x'01'), ('y', 2, 2.0, 1764583200000, 'b', NULL), ('z', NULL, NULL, NULL, NULL, x'02');
      INSERT INTO c VALUES ('c1', 'x'), ('c2', 'y'), ('c3', 'z');`);
    const cases: Array<[string, unknown[]]> = [
      ['SELECT id FROM a WHERE n = ? ORDER BY id', ['1']],
      ['SELECT id FROM a WHERE n = ? ORDER BY id', [1]],
      ['SELECT id FROM a WHERE n >= ? ORDER BY id', ['1.5']],
      ['SELECT id FROM a WHERE r = ? ORDER BY id', ['2']],
      ['SELECT id FROM a WHERE t = ? ORDER BY id', [1]],
      ['SELECT id FROM a WHERE t <> ? ORDER BY id', ['b']],
      ['SELECT id FROM a WHERE at <= ? ORDER BY id', ['2026-12-01 10:00:00.000']],
      ['SELECT id FROM a WHERE at < ? ORDER BY id', [1764583200001]],
      ['SELECT id FROM a WHERE b = ? ORDER BY id', [Buffer.from([1])]],
      ['SELECT id FROM a WHERE n = ? ORDER BY id', [null]],
      ['SELECT c.id FROM c JOIN a ON a.id = c.aid WHERE a.t = ? AND c.id <> ? ORDER BY c.id', ['1', 'c2']],
      ['SELECT typeof(x), x FROM (SELECT n = ? AS x FROM a WHERE id = ?)', ['1', 'x']],
    ];
    for (const [sql, args] of cases) {
      const plain = db.prepare(sql).raw(true).all(...args);
      expect(planOnce(sql), sql).not.toBe(sql);
      expect(db.prepare(planOnce(sql)).raw(true).all(...args), `${sql} ${JSON.stringify(args)}`).toEqual(plain);
    }
    // And a write: the stored value and its type are the same.
    const update = 'UPDATE a SET n = ?, t = ?, r = ? WHERE id = ?';
    db.prepare(update).run('7', 8, '3', 'y');
    db.prepare(planOnce(update)).run('7', 8, '3', 'z');
    const stored = (id: string) => db.prepare('SELECT n, typeof(n), t, typeof(t), r, typeof(r) FROM a WHERE id = ?').raw(true).all(id);
    expect(stored('z')).toEqual(stored('y'));
    expect(stored('z')).toEqual([[7, 'integer', '8.0', 'text', 3, 'real']]);
  });
});
