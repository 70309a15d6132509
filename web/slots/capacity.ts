// Places per delivery slot (SlotCount). A place is taken by one conditional upsert:
// the row's count rises only while below the capacity, so two instances (or two
// workers) racing for the last place cannot both pass — PostgreSQL re-checks the
// WHERE on the locked row, SQLite has one writer. The same statement runs on both.
import type { Tx } from '../db/client.ts';
import type { WindowsSettings } from '../windows/settings.ts';

/** The window a location's slots (and their capacity) come from: its own, else the shop's default. */
export function windowKey(windows: WindowsSettings, locationId: string | null): string {
  return locationId && windows.locations[locationId] ? locationId : 'default';
}

const keyOf = (start: number) => new Date(start).toISOString();

/** Takes one place in the slot; false when it is full. Null capacity: no limit, still counted. */
export async function claimPlace(tx: Tx, shopId: string, key: string, start: number, capacity: number | null): Promise<boolean> {
  const limit = capacity ?? 2_147_483_647;
  const n = await tx.$executeRaw`
    INSERT INTO "SlotCount" ("shopId", "windowKey", "slotStart", "count") VALUES (${shopId}, ${key}, ${keyOf(start)}, 1)
    ON CONFLICT ("shopId", "windowKey", "slotStart") DO UPDATE SET "count" = "SlotCount"."count" + 1
    WHERE "SlotCount"."count" < ${limit}`;
  return n === 1;
}

/** Gives a place back (the delivery was cancelled before it went out). */
export async function releasePlace(tx: Tx, shopId: string, key: string, start: number): Promise<void> {
  await tx.slotCount.updateMany({ where: { shopId, windowKey: key, slotStart: keyOf(start), count: { gt: 0 } }, data: { count: { decrement: 1 } } });
}

/**
 * The order was cancelled before it was booked: its place goes back, once (slotKey is
 * marked released in the same transaction, so a repeated cancel gives nothing back twice).
 */
export async function releaseFor(tx: Tx, d: { id: string; shopId: string; slotStart: Date | null; slotKey: string | null }): Promise<void> {
  if (!d.slotStart || !d.slotKey || d.slotKey === RELEASED || d.slotKey === SLOT_DECLINED) return;
  const marked = await tx.delivery.updateMany({ where: { id: d.id, slotKey: d.slotKey }, data: { slotKey: RELEASED } });
  if (marked.count === 1) await releasePlace(tx, d.shopId, d.slotKey, d.slotStart.getTime());
}

/** Delivery.slotKey once its place went back (cancelled before booking). */
export const RELEASED = 'released';
/** Delivery.slotKey once a chosen slot was found invalid: decided, never looked at again. */
export const SLOT_DECLINED = 'declined';

/** Places taken per slot start (epoch ms) in [from, to]. */
export async function placesTaken(tx: Tx, shopId: string, key: string, from: number, to: number): Promise<Map<number, number>> {
  const rows = await tx.slotCount.findMany({ where: { shopId, windowKey: key, slotStart: { gte: keyOf(from), lte: keyOf(to) } }, select: { slotStart: true, count: true } });
  return new Map(rows.map((r) => [Date.parse(r.slotStart), r.count]));
}
