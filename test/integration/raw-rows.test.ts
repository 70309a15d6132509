// Raw rows (web/db/raw-rows.ts) and the raw timeline insert on each provider: what they read and
// write is what Prisma's findUnique, updateMany and create read and wrote, through the app's
// extended client and inside its transactions.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../web/db/client.ts';
import { PROTECTED_FIELDS, protectPersonalData } from '../../web/db/protected-data.ts';
import { providerOf, readRow, updateRows } from '../../web/db/raw-rows.ts';
import { SecretBox } from '../../web/security/crypto.ts';
import { addEvent } from '../../web/transitions/timeline.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase } from '../support/db.ts';

let url: string;
let database: Database;
let db: Db;
let shopId: string;

const withoutProtected = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([k]) => !(PROTECTED_FIELDS.delivery as readonly string[]).includes(k)));

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  db = protectPersonalData(database.db, new SecretBox([randomBytes(32)]));
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
