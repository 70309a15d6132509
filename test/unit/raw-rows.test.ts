// The raw conditional update (web/db/raw-rows.ts): the statement each Prisma updateMany shape becomes.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { columnsOf, DEFAULT_NOW, insertStatement, UPDATED_AT, updateStatement, writableRaw } from '../../web/db/raw-rows.ts';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');

describe('raw row statements', () => {
  it.each([
    [
      'equality, a rank guard and the @updatedAt column (sqlite)', 'sqlite',
      { id: 'd1', generation: 2, status: 'CREATED', courierStatusRank: { lt: 3 } },
      { courierStatus: 'in_transit', courierStatusRank: 3, status: 'IN_PROGRESS' },
      'UPDATE "Delivery" SET "courierStatus" = ?, "courierStatusRank" = ?, "status" = ?, "updatedAt" = ? WHERE "id" = ? AND "generation" = ? AND "status" = ? AND "courierStatusRank" < ?',
      ['in_transit', 3, 'IN_PROGRESS', '2026-11-28T12:00:00.000+00:00', 'd1', 2, 'CREATED', 3],
    ],
    [
      'the same on postgres, with its placeholders; by id, the other conditions in a form no index answers', 'postgres',
      { id: 'd1', courierStatusRank: { lt: 3 } },
      { courierStatusRank: 3 },
      'UPDATE "Delivery" SET "courierStatusRank" = $1, "updatedAt" = $2::timestamp(3) WHERE "id" = $3 AND ("courierStatusRank" < $4) IS TRUE',
      [3, '2026-11-28T12:00:00.000', 'd1', 3],
    ],
    [
      'null matches IS NULL; dates are bound as each provider stores them', 'postgres',
      { id: 'd1', reasonCode: null, dispatchedAt: new Date('2026-11-28T09:15:30.123Z') },
      { reasonCode: null, lastEventAt: new Date('2026-11-28T10:00:00.000Z'), writebackPending: true },
      'UPDATE "Delivery" SET "reasonCode" = $1, "lastEventAt" = $2::timestamp(3), "writebackPending" = $3, "updatedAt" = $4::timestamp(3) WHERE "id" = $5 AND ("reasonCode" IS NULL) IS TRUE AND ("dispatchedAt" = $6::timestamp(3)) IS TRUE',
      [null, '2026-11-28T10:00:00.000', true, '2026-11-28T12:00:00.000', 'd1', '2026-11-28T09:15:30.123'],
    ],
    [
      'increment, every comparison, undefined left out, updatedAt given', 'sqlite',
      { id: 'd1', tries: { gte: 1, lte: 4 }, shopifyRank: { gt: 0 }, reason: undefined },
      { tries: { increment: 1 }, updatedAt: new Date(NOW - 1000), lastError: undefined },
      'UPDATE "Delivery" SET "tries" = "tries" + ?, "updatedAt" = ? WHERE "id" = ? AND "tries" >= ? AND "tries" <= ? AND "shopifyRank" > ?',
      [1, '2026-11-28T11:59:59.000+00:00', 'd1', 1, 4, 0],
    ],
    [
      'postgres without an id: conditions as they are', 'postgres',
      { shopId: 's1', status: 'CREATED', OR: [{ reasonCode: null }, { tries: { lt: 2 } }] },
      { status: 'NEW' },
      'UPDATE "Delivery" SET "status" = $1, "updatedAt" = $2::timestamp(3) WHERE "shopId" = $3 AND "status" = $4 AND ("reasonCode" IS NULL OR "tries" < $5)',
      ['NEW', '2026-11-28T12:00:00.000', 's1', 'CREATED', 2],
    ],
    [
      'postgres by id with an OR', 'postgres',
      { id: 'd1', OR: [{ reasonCode: null }, { tries: { lt: 2 } }] },
      { status: 'NEW' },
      'UPDATE "Delivery" SET "status" = $1, "updatedAt" = $2::timestamp(3) WHERE "id" = $3 AND (("reasonCode" IS NULL OR "tries" < $4)) IS TRUE',
      ['NEW', '2026-11-28T12:00:00.000', 'd1', 2],
    ],
  ] as const)('%s', (_name, provider, where, data, text, values) => {
    expect(updateStatement(provider, 'Delivery', where, data, NOW)).toEqual({ text, values });
  });

  it.each([
    ['a field the schema does not have', { id: 'd1' }, { nope: 1 }, /Delivery\.nope is not a column/],
    ['a relation filter', { shop: { domain: 'x' } }, { status: 'NEW' }, /Delivery\.shop is not a column/],
    ['a protected field', { id: 'd1' }, { orderJson: '{}' }, /Delivery\.orderJson is not a column/],
    ['an operator it does not know', { id: { in: ['a'] } }, { status: 'NEW' }, /only equality, lt, lte, gt and gte/],
    ['a comparison with null', { courierStatusRank: { lt: null } }, { status: 'NEW' }, /only equality, lt, lte, gt and gte/],
    ['a write other than a value or increment', { id: 'd1' }, { tries: { multiply: 2 } }, /only a value or \{ increment \}/],
    ['no condition', {}, { status: 'NEW' }, /needs a condition/],
  ])('refuses %s', (_name, where, data, message) => {
    expect(() => updateStatement('sqlite', 'Delivery', where, data, NOW)).toThrow(message);
  });

  it('leaves the protected personal data to Prisma, which seals it', () => {
    expect([...columnsOf('Delivery').keys()]).not.toContain('orderJson');
    expect(columnsOf('Delivery').get('courierStatusAt')).toEqual({ type: 'DateTime', isUpdatedAt: false });
    expect(columnsOf('Delivery').get('updatedAt')).toEqual({ type: 'DateTime', isUpdatedAt: true });
    expect(writableRaw('Delivery', { id: 'd1' }, { status: 'NEW' })).toBe(true);
    expect(writableRaw('Delivery', { id: 'd1' }, { responseBody: 'x' })).toBe(false);
    expect(writableRaw('Delivery', { requestBody: null }, { status: 'NEW' })).toBe(false);
  });

  it('writes protected fields only when told their values are sealed, and matches them only with null', () => {
    expect([...columnsOf('Delivery', true).keys()]).toEqual(expect.arrayContaining(['orderJson', 'requestBody', 'responseBody', 'overridesJson', 'status']));
    expect(updateStatement('sqlite', 'Delivery', { id: 'd1', requestBody: null }, { requestBody: 'v1:k:sealed', tries: { increment: 1 } }, NOW, true)).toEqual({
      text: 'UPDATE "Delivery" SET "requestBody" = ?, "tries" = "tries" + ?, "updatedAt" = ? WHERE "id" = ? AND "requestBody" IS NULL',
      values: ['v1:k:sealed', 1, '2026-11-28T12:00:00.000+00:00', 'd1'],
    });
    expect(() => updateStatement('sqlite', 'Delivery', { id: 'd1', requestBody: 'x' }, { status: 'NEW' }, NOW, true)).toThrow(/Delivery\.requestBody: a protected field can only be matched with null/);
    expect(() => updateStatement('sqlite', 'Delivery', { id: 'd1', requestBody: null }, { status: 'NEW' }, NOW)).toThrow(/Delivery\.requestBody is not a column/);
  });
});

describe('raw rows and the schema', () => {
  it("UPDATED_AT names exactly the model's @updatedAt fields in prisma/models.prisma", () => {
    const schema = readFileSync(new URL('../../prisma/models.prisma', import.meta.url), 'utf8');
    const model = /model Delivery \{([\s\S]*?)\n\}/.exec(schema)![1]!;
    const fields = [...model.matchAll(/^\s*(\w+)\s+DateTime\??\s+.*@updatedAt/gm)].map((m) => m[1]);
    expect(fields).toEqual([...UPDATED_AT.Delivery]);
  });

  it("DEFAULT_NOW names exactly the model's DateTime fields that default to now() in prisma/models.prisma", () => {
    const schema = readFileSync(new URL('../../prisma/models.prisma', import.meta.url), 'utf8');
    const model = /model Delivery \{([\s\S]*?)\n\}/.exec(schema)![1]!;
    const fields = [...model.matchAll(/^[ \t]*(\w+)[ \t]+DateTime\??[ \t]+[^\n]*@default\(now\(\)\)/gm)].map((m) => m[1]);
    expect(fields).toEqual([...DEFAULT_NOW.Delivery]);
  });
});

describe('raw row statements: OR', () => {
  it("renders Prisma's OR of conditions in parentheses, and checks its fields", () => {
    expect(updateStatement('sqlite', 'Delivery', { id: 'd1', OR: [{ syncLockedUntil: null }, { syncLockedUntil: { lt: new Date(NOW) } }] }, { syncLockedUntil: new Date(NOW + 30_000) }, NOW)).toEqual({
      text: 'UPDATE "Delivery" SET "syncLockedUntil" = ?, "updatedAt" = ? WHERE "id" = ? AND ("syncLockedUntil" IS NULL OR "syncLockedUntil" < ?)',
      values: ['2026-11-28T12:00:30.000+00:00', '2026-11-28T12:00:00.000+00:00', 'd1', '2026-11-28T12:00:00.000+00:00'],
    });
    expect(() => updateStatement('sqlite', 'Delivery', { id: 'd1', OR: [] }, { status: 'NEW' }, NOW)).toThrow(/OR takes a list/);
    expect(() => updateStatement('sqlite', 'Delivery', { OR: [{ nope: 1 }] }, { status: 'NEW' }, NOW)).toThrow(/Delivery\.nope is not a column/);
    expect(writableRaw('Delivery', { OR: [{ requestBody: null }] }, { status: 'NEW' })).toBe(false);
  });
});

describe('raw row statements: insert', () => {
  it("sets the id, createdAt (the schema's now()) and updatedAt; leaves other defaults to the database", () => {
    expect(insertStatement('postgres', 'Delivery', { shopId: 's1', shopifyOrderId: '1001', status: 'PENDING', reasonCode: null, orderJson: 'enc:v1:k:sealed' }, NOW, 'id-1', true)).toEqual({
      text: 'INSERT INTO "Delivery" ("id", "shopId", "shopifyOrderId", "status", "reasonCode", "orderJson", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7::timestamp(3), $8::timestamp(3))',
      values: ['id-1', 's1', '1001', 'PENDING', null, 'enc:v1:k:sealed', '2026-11-28T12:00:00.000', '2026-11-28T12:00:00.000'],
    });
  });

  it('keeps a createdAt it is given, in SQLite\'s form', () => {
    const createdAt = new Date('2026-11-28T09:00:00.001Z');
    expect(insertStatement('sqlite', 'Delivery', { shopId: 's1', createdAt }, NOW, 'id-2', true)).toEqual({
      text: 'INSERT INTO "Delivery" ("id", "shopId", "createdAt", "updatedAt") VALUES (?, ?, ?, ?)',
      values: ['id-2', 's1', '2026-11-28T09:00:00.001+00:00', '2026-11-28T12:00:00.000+00:00'],
    });
  });

  it.each([
    ['a protected field not sealed', { orderJson: '{}' }, false, /Delivery\.orderJson is not a column/],
    ['a field the schema does not have', { nope: 1 }, true, /Delivery\.nope is not a column/],
    ['a relation or an operation', { shop: { connect: { id: 's1' } } }, true, /Delivery\.shop is not a column/],
    ['an object value', { tries: { increment: 1 } }, true, /only a value can be inserted/],
  ])('refuses %s', (_name, data, sealed, message) => {
    expect(() => insertStatement('sqlite', 'Delivery', data, NOW, 'id-3', sealed)).toThrow(message);
  });
});
