// Values in and out of raw statements run without Prisma (web/db/direct-values.ts), as tables: what
// each driver is given and what the app is handed back, and what is left to Prisma. Their agreement
// with Prisma's own output is checked against real databases in test/integration/direct-raw.test.ts.
import { describe, expect, it } from 'vitest';
import { PG_TEXT_TYPES, pgArgs, pgRows, readerFor, sqliteArgs, sqliteRows } from '../../web/db/direct-values.ts';
import { templateSql } from '../../web/db/direct-raw.ts';

const AT = new Date(Date.UTC(2026, 10, 28, 12, 30, 45, 67));
const WHOLE = new Date(Date.UTC(2026, 10, 28, 12, 30, 45));

describe('arguments', () => {
  it.each([
    ['text', 'x', 'x', 'x'],
    ['integer', 7, 7, 7],
    ['fraction', 1.25, 1.25, 1.25],
    ['null', null, null, null],
    ['true', true, 1, true],
    ['false', false, 0, false],
    ['bigint', 2n ** 60n, 2n ** 60n, '1152921504606846976'],
    ['time with ms', AT, '2026-11-28T12:30:45.067+00:00', '2026-11-28 12:30:45.067'],
    ['time without ms', WHOLE, '2026-11-28T12:30:45.000+00:00', '2026-11-28 12:30:45'],
  ])('%s', (_, value, sqlite, postgres) => {
    expect(sqliteArgs([value])).toStrictEqual([sqlite]);
    expect(pgArgs([value])).toStrictEqual([postgres]);
  });

  it('passes bytes as a Buffer', () => {
    expect(sqliteArgs([new Uint8Array([1, 2])])).toStrictEqual([Buffer.from([1, 2])]);
    expect(pgArgs([new Uint8Array([1, 2])])).toStrictEqual([Buffer.from([1, 2])]);
  });

  it.each([
    ['undefined', undefined],
    ['an object', { a: 1 }],
    ['an array', [1]],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an invalid date', new Date(Number.NaN)],
  ])('leaves %s to Prisma', (_, value) => {
    expect(sqliteArgs(['ok', value])).toBeUndefined();
    expect(pgArgs(['ok', value])).toBeUndefined();
  });

  it('leaves a year PostgreSQL cannot take to Prisma, and takes the first and the last it can', () => {
    expect(pgArgs([new Date(Date.UTC(10000, 0, 1))])).toBeUndefined();
    expect(pgArgs([new Date('0000-12-31T23:59:59.000Z')])).toBeUndefined();
    expect(pgArgs([new Date('0001-01-01T00:00:00.000Z'), new Date('9999-12-31T23:59:59.999Z')])).toStrictEqual(['0001-01-01 00:00:00', '9999-12-31 23:59:59.999']);
  });
});

describe('SQLite results', () => {
  const cols = (...types: Array<string | null>) => types.map((type, i) => ({ name: `c${i}`, type }));

  it.each([
    ['INTEGER', 5n, 5],
    ['INT', -3n, -3],
    ['INTEGER', 2.7, 2],
    ['BIGINT', 2n ** 60n, 2n ** 60n],
    ['BIGINT', 4, 4n],
    ['BOOLEAN', 1n, true],
    ['BOOLEAN', 0n, false],
    ['BOOLEAN', 1, true],
    ['DATETIME', '2026-11-28T12:30:45.067+00:00', AT],
    ['DATETIME', '2026-11-28T12:30:45.067Z', AT],
    ['DATETIME', BigInt(AT.getTime()), AT],
    ['DATETIME', AT.getTime(), AT],
    ['TEXT', 'x', 'x'],
    ['REAL', 1.5, 1.5],
    ['BLOB', Buffer.from([1, 2]), new Uint8Array([1, 2])],
    [null, 2n, 2n],
    [null, 1.5, 1.5],
    [null, 'lit', 'lit'],
  ])('%s column: %s', (type, stored, read) => {
    expect(sqliteRows(cols(type), [[stored]])).toStrictEqual([{ c0: read }]);
  });

  it('keeps null and names each column', () => {
    expect(sqliteRows(cols('TEXT', 'INTEGER'), [[null, 1n], ['a', null]])).toStrictEqual([{ c0: null, c1: 1 }, { c0: 'a', c1: null }]);
  });

  it('infers an expression from its first value that is not null', () => {
    expect(sqliteRows(cols(null), [[null], ['x']])).toStrictEqual([{ c0: null }, { c0: 'x' }]);
    expect(sqliteRows(cols(null), [[null], [null]])).toStrictEqual([{ c0: null }, { c0: null }]);
    expect(sqliteRows(cols(null), [[1.5], [2n]])).toBeUndefined();
  });

  it.each([
    ['a DECIMAL column', cols('DECIMAL'), [[1.5]]],
    ['a JSONB column', cols('JSONB'), [['{}']]],
    ['an integer in a REAL column', cols('REAL'), [[2n]]],
    ['a time without its zone', cols('DATETIME'), [['2026-11-28 12:30:45']]],
    ['a number in a TEXT column', cols('TEXT'), [[5n]]],
    ['text in an INTEGER column', cols('INTEGER'), [['5']]],
    ['text in a BIGINT column', cols('BIGINT'), [['5']]],
    ['a fraction in a BIGINT column', cols('BIGINT'), [[1.5]]],
    ['text in a BOOLEAN column', cols('BOOLEAN'), [['true']]],
    ['bytes in a DATETIME column', cols('DATETIME'), [[Buffer.from([1])]]],
    ['an expression whose values change type', cols(null), [['a'], [1n]]],
    ['bytes from an expression', cols(null), [[Buffer.from([1])]]],
  ])('leaves %s to Prisma', (_, columns, rows) => {
    expect(sqliteRows(columns, rows)).toBeUndefined();
  });

  it('maps declared types as the adapter does (case-insensitive; unknown ones inferred)', () => {
    expect(readerFor('integer')).toBe(readerFor('INTEGER'));
    expect(readerFor('VARCHAR(20)')).toBe('infer');
    expect(readerFor(null)).toBe('infer');
    expect(readerFor('DATE')).toBeUndefined();
  });
});

describe('PostgreSQL results', () => {
  const fields = (...ids: number[]) => ids.map((dataTypeID, i) => ({ name: `c${i}`, dataTypeID }));

  it.each([
    [16, 't', true],
    [16, 'f', false],
    [20, '9007199254740993', 9007199254740993n],
    [21, '-2', -2],
    [23, '5', 5],
    [25, 'x', 'x'],
    [1043, 'v', 'v'],
    [701, '1.5', 1.5],
    [1114, '2026-11-28 12:30:45.067', AT],
    [1114, '2026-11-28 12:30:45', WHOLE],
    [1184, '2026-11-28 12:30:45.067+00', AT],
    [1184, '2026-11-28 12:30:45.067+05:30', AT],
    [17, '\\x0102ff', new Uint8Array([1, 2, 255])],
    [114, '[1]', [1]],
    [3802, '{"a":{"b":null}}', { a: { b: null } }],
    [3802, 'null', null],
    [2950, '00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000001'],
    [16400, 'created', 'created'],
  ])('type %i: %s', (id, text, read) => {
    expect(pgRows(fields(id), [[text]])).toStrictEqual([{ c0: read }]);
  });

  it('keeps null, and asks the driver for every value as text', () => {
    expect(pgRows(fields(23, 25), [[null, null]])).toStrictEqual([{ c0: null, c1: null }]);
    expect(PG_TEXT_TYPES.getTypeParser()('2026-11-28 12:30:45')).toBe('2026-11-28 12:30:45');
  });

  it('reads a type of the database\'s own as text, from its first id on', () => {
    expect(pgRows(fields(16384), [['sad']])).toStrictEqual([{ c0: 'sad' }]);
    expect(pgRows(fields(16383), [['sad']])).toBeUndefined();
  });

  it('throws what is not a refusal: text that is not what its type says', () => {
    expect(() => pgRows(fields(20), [['not a number']])).toThrow(SyntaxError);
    expect(() => pgRows(fields(3802), [['{']])).toThrow(SyntaxError);
  });

  it.each([
    ['numeric', 1700, '1.50'],
    ['date', 1082, '2026-11-28'],
    ['interval', 1186, '01:00:00'],
    ['an infinite timestamp', 1114, 'infinity'],
  ])('leaves %s to Prisma', (_, id, text) => {
    expect(pgRows(fields(23, id), [['1', text]])).toBeUndefined();
  });
});

describe('tagged templates', () => {
  const tag = (strings: TemplateStringsArray, ...values: unknown[]) => templateSql(strings, values);
  it('numbers the placeholders', () => {
    expect(tag`SELECT ${1} AS a, ${'x'} AS b`).toBe('SELECT $1 AS a, $2 AS b');
    expect(tag`SELECT 1`).toBe('SELECT 1');
  });
  it('leaves nested fragments and Prisma.Sql to Prisma', () => {
    expect(tag`SELECT ${{ sql: 'x' }}`).toBeUndefined();
    expect(templateSql({ sql: 'SELECT 1', values: [] }, [])).toBeUndefined();
  });
});
