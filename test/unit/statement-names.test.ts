// Which raw statements run as named prepared statements on PostgreSQL (web/db/direct-drivers.ts).
import { describe, expect, it } from 'vitest';
import { NAMED_STATEMENTS_MAX, StatementNames } from '../../web/db/direct-drivers.ts';

describe('StatementNames', () => {
  it('names a text from its second run on, the same name each time; another text another name', () => {
    const names = new StatementNames();
    expect(names.of('SELECT 1')).toBeUndefined();
    const name = names.of('SELECT 1');
    expect(name).toMatch(/^sdd_[\w-]{27}$/);
    expect(name!.length).toBeLessThanOrEqual(63); // PostgreSQL's identifier limit
    expect(names.of('SELECT 1')).toBe(name);
    names.of('SELECT 2');
    expect(names.of('SELECT 2')).not.toBe(name);
  });

  it('names at most `max` texts; the others run unnamed, the named ones stay named', () => {
    const names = new StatementNames(2);
    for (const t of ['a', 'b', 'c']) names.of(t);
    const named = ['a', 'b', 'c'].map((t) => names.of(t));
    expect(named.map((n) => n === undefined)).toEqual([false, false, true]);
    expect(names.of('a')).toBe(named[0]);
    expect(names.of('c')).toBeUndefined();
    expect(NAMED_STATEMENTS_MAX).toBeGreaterThan(50);
  });

  it('remembers a bounded number of texts seen once', () => {
    const names = new StatementNames(1);
    for (let i = 0; i < 100; i++) names.of(`SELECT ${i}`);
    // 10 × max remembered: a text past that is never named, however often it runs.
    expect(names.of('SELECT 5')).toMatch(/^sdd_/);
    for (let i = 0; i < 3; i++) expect(names.of('SELECT 50')).toBeUndefined();
  });
});
