import { describe, expect, it } from 'vitest';
import { dbTime, forProvider, placeholders, rawTime } from '../../web/db/raw-sql.ts';

describe('raw SQL helpers', () => {
  it.each([
    [new Date('2026-11-28T09:15:30.123Z'), '2026-11-28T09:15:30.123Z'],
    ['2026-11-28T09:15:30.123+00:00', '2026-11-28T09:15:30.123Z'],
    ['2026-11-28T10:15:30.123+01:00', '2026-11-28T09:15:30.123Z'],
    ['2026-11-28T09:15:30.123Z', '2026-11-28T09:15:30.123Z'],
    // PostgreSQL's TIMESTAMP(3) as text has no zone: the app stores UTC.
    ['2026-11-28 09:15:30.123', '2026-11-28T09:15:30.123Z'],
    ['2026-11-28T09:15:30.123', '2026-11-28T09:15:30.123Z'],
    [Date.parse('2026-11-28T09:15:30.123Z'), '2026-11-28T09:15:30.123Z'],
  ])('rawTime(%j) is %s', (v, iso) => {
    expect(rawTime(v)!.toISOString()).toBe(iso);
  });

  it('rawTime of no value is null', () => {
    expect(rawTime(null)).toBeNull();
    expect(rawTime(undefined)).toBeNull();
  });

  it('dbTime writes what each provider stores, and rawTime reads both back', () => {
    const ms = Date.parse('2026-11-28T09:15:30.123Z');
    expect(dbTime('sqlite', ms)).toBe('2026-11-28T09:15:30.123+00:00');
    expect(dbTime('postgres', ms)).toBe('2026-11-28T09:15:30.123');
    expect(rawTime(dbTime('sqlite', ms))!.getTime()).toBe(ms);
    expect(rawTime(dbTime('postgres', ms))!.getTime()).toBe(ms);
  });

  it('forProvider turns $n (and its timestamp cast) into ? on SQLite only', () => {
    const text = `UPDATE "T" SET "a" = $1, "at" = $2::timestamp(3) WHERE "id" IN (${placeholders(3, 2)})`;
    expect(text).toBe('UPDATE "T" SET "a" = $1, "at" = $2::timestamp(3) WHERE "id" IN ($3, $4)');
    expect(forProvider('sqlite', text)).toBe('UPDATE "T" SET "a" = ?, "at" = ? WHERE "id" IN (?, ?)');
    expect(forProvider('postgres', text)).toBe(text);
  });
});
