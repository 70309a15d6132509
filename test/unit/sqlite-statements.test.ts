// The prepared-statement cache of the SQLite adapter (web/db/sqlite-statements.ts), on a real
// in-memory better-sqlite3 database, used the way the Prisma adapter uses `prepare`.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cachingPrepare } from '../../web/db/sqlite-statements.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as new (f: string) => { prepare(sql: string): unknown; exec(sql: string): void };

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
    expect(prepared).toEqual(['INSERT INTO t (id, v) VALUES (?, ?)', 'SELECT id, v FROM t WHERE id >= ?', 'BEGIN', 'COMMIT']);
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
