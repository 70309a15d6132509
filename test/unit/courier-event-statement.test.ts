// appliedEventStatement (web/fulfillment/event-sql.ts): an applied courier event's claim, update and
// timeline line composed into one PostgreSQL statement, each part's binds renumbered after the last.
import { describe, expect, it } from 'vitest';
import { appliedEventStatement, shiftBinds } from '../../web/fulfillment/event-sql.ts';
import { noFlowUsage } from '../../web/transitions/flow-outbox.ts';

const claim = { text: 'UPDATE "CourierEvent" SET "x" = $1 WHERE "id" = $2', values: ['x', 'ev'] };
const update = { text: 'UPDATE "Delivery" SET "s" = $1 WHERE "id" = $2', values: ['s', 'd'] };
const line = (when: string) => ({ sql: `INSERT INTO "L" ("a", "b") SELECT $1, $2 WHERE ${when}`, values: ['a', 'b'] });

describe('appliedEventStatement', () => {
  it('claims, then updates only if claimed, then writes the line only if both (claimed and not updated divides by zero)', () => {
    const s = appliedEventStatement(claim, update, line);
    expect(s.with).toBe('claim AS (UPDATE "CourierEvent" SET "x" = $1 WHERE "id" = $2 RETURNING 1), upd AS (UPDATE "Delivery" SET "s" = $3 WHERE "id" = $4 AND EXISTS (SELECT 1 FROM claim) RETURNING 1)');
    expect(s.sql).toBe('INSERT INTO "L" ("a", "b") SELECT $5, $6 WHERE (SELECT CASE WHEN count(*) = 0 THEN false ELSE 1 / (SELECT count(*) FROM upd)::int = 1 END FROM claim)');
    expect(s.values).toEqual(['x', 'ev', 's', 'd', 'a', 'b']);
  });

  it('claims only where the shop uses none of the Flow triggers the change fires', () => {
    const s = appliedEventStatement(claim, update, line, (from) => noFlowUsage(from, 'shop-1', ['delivery-delivered']));
    expect(s.with).toContain(`WHERE "id" = $2 AND NOT EXISTS (SELECT 1 FROM "FlowTriggerUsage" u WHERE u."shopId" = $3 AND u."enabled" IS TRUE AND u."trigger" IN ($4, '*')) RETURNING 1)`);
    expect(s.with).toContain('SET "s" = $5 WHERE "id" = $6 AND EXISTS');
    expect(s.sql).toContain('SELECT $7, $8 WHERE');
    expect(s.values).toEqual(['x', 'ev', 'shop-1', 'delivery-delivered', 's', 'd', 'a', 'b']);
  });

  it.each([
    ['$1, $2', 3, '$4, $5'],
    ['"a" = $10 AND "b" = $1', 2, '"a" = $12 AND "b" = $3'],
    ['$1::timestamp(3)', 1, '$2::timestamp(3)'],
    ['no binds', 5, 'no binds'],
  ])('shiftBinds(%s, %i) = %s', (sql, by, want) => {
    expect(shiftBinds(sql, by)).toBe(want);
  });
});
