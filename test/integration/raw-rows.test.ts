// Raw rows (web/db/raw-rows.ts) and the raw timeline insert on each provider: what they read and
// write is what Prisma's findUnique, updateMany and create read and wrote, through the app's
// extended client and inside its transactions.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../web/db/client.ts';
import { PROTECTED_FIELDS, protectPersonalData } from '../../web/db/protected-data.ts';
import { insertRow, providerOf, readRow, updateRows, updateStatement } from '../../web/db/raw-rows.ts';
import { isUniqueViolation } from '../../web/db/client.ts';
import { insertCourierRefs } from '../../web/fulfillment/refs.ts';
import { isEncrypted, SecretBox } from '../../web/security/crypto.ts';
import { addEvent } from '../../web/transitions/timeline.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';

let url: string;
let database: Database;
let db: Db;
let shopId: string;
const box = new SecretBox([randomBytes(32)]);

const withoutProtected = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([k]) => !(PROTECTED_FIELDS.delivery as readonly string[]).includes(k)));

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  db = protectPersonalData(database.db, box);
  shopId = (await db.shop.create({ data: { domain: 'raw-rows.myshopify.com' } })).id;
});
afterAll(async () => {
  await database?.close();
  await dropDatabase(url);
});

describe('raw rows', () => {
  it('knows the provider of the client, the extended client and a transaction', async () => {
    const expected = database.provider;
    expect(providerOf(database.db)).toBe(expected);
    expect(providerOf(db)).toBe(expected);
    expect(await db.$transaction(async (tx) => providerOf(tx))).toBe(expected);
    expect(() => providerOf({} as Db)).toThrow(/cannot tell the database provider/);
  });

  it("reads a delivery as Prisma's findUnique does, without its protected fields", async () => {
    await db.delivery.create({
      data: {
        id: 'raw-1', shopId, shopifyOrderId: 'raw-1', orderName: '#1', environment: 'test', status: 'CREATED', orderJson: '{"secret":"address"}',
        generation: 3, courierStatusRank: 2, courierStatusAt: new Date('2026-11-28T09:15:30.123Z'), writebackPending: true, windowBypass: false, deliveryPrice: '12.50',
      },
    });
    const prisma = await db.delivery.findUniqueOrThrow({ where: { id: 'raw-1' } });
    const raw = await db.$transaction((tx) => readRow(tx, 'Delivery', 'raw-1'));
    expect(raw).toEqual(withoutProtected(prisma));
    expect(raw).not.toHaveProperty('orderJson');
    expect(raw!.courierStatusAt).toBeInstanceOf(Date);
    expect(await readRow(db, 'Delivery', 'nope')).toBeNull();
  });

  it("updates as Prisma's updateMany does: the conditions hold or nothing is written", async () => {
    const dispatchedAt = new Date('2026-11-28T10:00:00.250Z');
    await db.delivery.create({ data: { id: 'raw-2', shopId, shopifyOrderId: 'raw-2', status: 'CREATED', orderJson: '{}', dispatchedAt, courierStatusRank: 1 } });
    const before = await db.delivery.findUniqueOrThrow({ where: { id: 'raw-2' } });
    const guard = { id: 'raw-2', status: 'CREATED', reasonCode: null, dispatchedAt, courierStatusRank: { lt: 3 } };
    const at = new Date('2026-11-28T11:00:00.001Z');
    expect(await updateRows(db, 'Delivery', guard, { courierStatus: 'in_transit', courierStatusRank: 3, courierStatusAt: at, writebackPending: true, tries: { increment: 2 } })).toBe(1);
    const after = await db.delivery.findUniqueOrThrow({ where: { id: 'raw-2' } });
    expect(after).toMatchObject({ courierStatus: 'in_transit', courierStatusRank: 3, courierStatusAt: at, writebackPending: true, tries: before.tries + 2, orderJson: '{}' });
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime() - 1);
    // The rank guard now fails, as would a changed date or a reason set meanwhile.
    expect(await updateRows(db, 'Delivery', guard, { courierStatus: 'delivered' })).toBe(0);
    expect(await updateRows(db, 'Delivery', { ...guard, courierStatusRank: { lt: 9 }, dispatchedAt: new Date(dispatchedAt.getTime() + 1) }, { courierStatus: 'delivered' })).toBe(0);
    expect(await updateRows(db, 'Delivery', { ...guard, courierStatusRank: { lt: 9 }, reasonCode: 'x' }, { courierStatus: 'delivered' })).toBe(0);
    expect(await updateRows(db, 'Delivery', { ...guard, courierStatusRank: { lt: 9 } }, { courierStatus: 'delivered' })).toBe(1);
    await expect(updateRows(db, 'Delivery', { id: 'raw-2' }, { orderJson: '{"plain":"text"}' })).rejects.toThrow(/protected fields are written through Prisma/);
  });

  it.runIf(testProvider() === 'postgres')(
    'PostgreSQL: an update by id reads the row by its primary key, even where the statistics say another condition is rarer',
    async () => {
      // Analyzed while every delivery was CREATED, then all moved on: the statistics call IN_PROGRESS rare.
      const ids = Array.from({ length: 400 }, (_, i) => `plan-${i}`);
      await db.delivery.createMany({ data: ids.map((id) => ({ id, shopId, shopifyOrderId: id, status: 'CREATED', orderJson: '{}' })) });
      await database.db.$executeRawUnsafe('ANALYZE "Delivery"');
      await database.db.delivery.updateMany({ where: { id: { in: ids } }, data: { status: 'IN_PROGRESS' } });
      const { text, values } = updateStatement('postgres', 'Delivery', { id: 'plan-7', status: 'IN_PROGRESS', reasonCode: null, courierStatusRank: 0 }, { courierStatusRank: 3 }, Date.now());
      const plan = await database.db.$transaction(async (tx) => {
        const rows = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${text}`, ...values);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toContain('"Delivery_pkey"');
      expect(plan).not.toContain('Delivery_status');
      expect(await updateRows(db, 'Delivery', { id: 'plan-7', status: 'IN_PROGRESS', reasonCode: null, courierStatusRank: 0 }, { courierStatusRank: 3 })).toBe(1);
      expect(await updateRows(db, 'Delivery', { id: 'plan-8', status: 'CREATED' }, { courierStatusRank: 3 })).toBe(0);
    },
  );

  it('with the SecretBox, reads and writes the protected fields sealed at rest, as the extension does', async () => {
    await db.delivery.create({ data: { id: 'raw-4', shopId, shopifyOrderId: 'raw-4', status: 'PENDING', orderJson: '{"name":"Ada"}', overridesJson: '' } });
    expect(await readRow(db, 'Delivery', 'raw-4', box)).toEqual(await db.delivery.findUniqueOrThrow({ where: { id: 'raw-4' } }));
    const guard = { id: 'raw-4', status: 'PENDING', requestBody: null };
    expect(await updateRows(db, 'Delivery', guard, { requestBody: '{"phone":"+27821234567"}', idempotencyKey: 'k-4', tries: { increment: 1 } }, box)).toBe(1);
    // Stored sealed (what the database holds, read past the extension), opened by Prisma and by readRow alike.
    const [stored] = await database.db.$queryRawUnsafe<Array<{ requestBody: string; orderJson: string }>>(`SELECT "requestBody", "orderJson" FROM "Delivery" WHERE "id" = 'raw-4'`);
    expect(isEncrypted(stored!.requestBody)).toBe(true);
    expect(stored!.requestBody).not.toContain('+27821234567');
    const prisma = await db.delivery.findUniqueOrThrow({ where: { id: 'raw-4' } });
    expect(prisma).toMatchObject({ requestBody: '{"phone":"+27821234567"}', idempotencyKey: 'k-4', tries: 1, orderJson: '{"name":"Ada"}', overridesJson: '' });
    expect(await readRow(db, 'Delivery', 'raw-4', box)).toEqual(prisma);
    // The body is stored now: the guard matches nothing and nothing is written.
    expect(await updateRows(db, 'Delivery', guard, { requestBody: '{}' }, box)).toBe(0);
    expect(await readRow(db, 'Delivery', 'nope', box)).toBeNull();
  });

  it("inserts a delivery as Prisma's create does: the schema's defaults, the order sealed at rest, a repeat a unique violation", async () => {
    const createdAt = new Date('2026-11-28T07:30:00.042Z');
    const data = { shopId, shopifyOrderId: 'raw-6', orderName: '#6', environment: 'test', status: 'PENDING', reasonCode: null, orderJson: '{"name":"Thabo"}', customerId: null, createdAt };
    const id = await db.$transaction((tx) => insertRow(tx, 'Delivery', data, box));
    const viaPrisma = await db.delivery.create({ data: { ...data, shopifyOrderId: 'raw-6p' } });
    const row = await db.delivery.findUniqueOrThrow({ where: { id } });
    const same = (r: typeof row) => ({ ...r, id: undefined, shopifyOrderId: undefined, updatedAt: undefined });
    expect(same(row)).toEqual(same(viaPrisma));
    expect(row).toMatchObject({ generation: 1, tries: 0, overridesJson: '{}', writebackPending: false, createdAt, orderJson: '{"name":"Thabo"}' });
    const [stored] = await database.db.$queryRawUnsafe<Array<{ orderJson: string }>>(`SELECT "orderJson" FROM "Delivery" WHERE "id" = '${id}'`);
    expect(isEncrypted(stored!.orderJson)).toBe(true);
    const repeat = await insertRow(db, 'Delivery', data, box).then(() => null, (e: unknown) => e);
    expect(isUniqueViolation(repeat)).toBe(true);
    expect(isUniqueViolation(new Error('P2010'))).toBe(false);
    expect(await db.delivery.count({ where: { shopifyOrderId: 'raw-6' } })).toBe(1);
  });

  it("inserts a booking's courier refs in one statement, as createMany did; a ref another delivery holds writes none", async () => {
    await db.delivery.create({ data: { id: 'raw-5', shopId, shopifyOrderId: 'raw-5', status: 'CREATED', orderJson: '{}' } });
    const ref = { deliveryId: 'raw-5', shopId, environment: 'test', generation: 2 };
    const t0 = Date.now();
    await db.$transaction((tx) => insertCourierRefs(tx, [{ ...ref, kind: 'order', value: 'ord_5' }, { ...ref, kind: 'dispatch', value: 'job_5' }]));
    const rows = await db.courierRef.findMany({ where: { deliveryId: 'raw-5' }, orderBy: { kind: 'asc' } });
    expect(rows.map((r) => [r.kind, r.value, r.generation, r.environment, r.shopId])).toEqual([['dispatch', 'job_5', 2, 'test', shopId], ['order', 'ord_5', 2, 'test', shopId]]);
    for (const r of rows) expect(r.createdAt.getTime()).toBeGreaterThanOrEqual(t0 - 5);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    await expect(db.$transaction((tx) => insertCourierRefs(tx, [{ ...ref, kind: 'delivery', value: 'del_5' }, { ...ref, deliveryId: 'raw-4', kind: 'order', value: 'ord_5' }]))).rejects.toThrow();
    expect(await db.courierRef.count({ where: { value: 'del_5' } })).toBe(0);
    await insertCourierRefs(db, []);
  });

  it('writes a timeline line that Prisma reads back as its create wrote one', async () => {
    await db.delivery.create({ data: { id: 'raw-3', shopId, shopifyOrderId: 'raw-3', status: 'CREATED', orderJson: '{}' } });
    const occurredAt = new Date('2026-11-28T08:00:00.005Z');
    const t0 = Date.now();
    await db.$transaction((tx) => addEvent(tx, 'raw-3', { kind: 'courier_status', status: 'in_transit', applied: false, source: 'courier', courierEventId: 'evt_1', generation: 2, occurredAt, message: 'stale' }));
    await addEvent(db, 'raw-3', { kind: 'note' });
    const rows = await db.deliveryEvent.findMany({ where: { deliveryId: 'raw-3' }, orderBy: { occurredAt: 'asc' } });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ kind: 'courier_status', status: 'in_transit', applied: false, source: 'courier', courierEventId: 'evt_1', generation: 2, occurredAt, message: 'stale' });
    // The schema's defaults: applied, source app, generation 1, occurred and received now.
    expect(rows[1]).toMatchObject({ kind: 'note', status: null, applied: true, source: 'app', courierEventId: null, generation: 1, message: null });
    for (const r of rows) expect(r.receivedAt.getTime()).toBeGreaterThanOrEqual(t0 - 5);
    expect(rows[1]!.occurredAt.getTime()).toBeGreaterThanOrEqual(t0 - 5);
    expect(await db.deliveryEvent.count({ where: { deliveryId: 'raw-3', occurredAt: { gte: occurredAt } } })).toBe(2);
  });
});
