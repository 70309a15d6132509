// The write-back job's read: the delivery and its shop's domain in ONE raw
// statement. A findUnique with `include: { shop: true }` is two statements and
// a query-compiler run (issue 18: the time is in the number of statements).
// Same Prisma client; quoted identifiers work on SQLite and PostgreSQL alike.
// A raw read skips web/db/protected-data.ts, so the order snapshot is opened here.
import type { Tx } from '../db/client.ts';
import { isEncrypted, type SecretBox } from '../security/crypto.ts';
import { forProvider, placeholders } from '../db/raw-sql.ts';
import { providerOf } from '../db/raw-rows.ts';

export interface WritebackRow {
  id: string;
  shopifyOrderId: string;
  courierOrderId: string | null;
  status: string;
  courierStatus: string | null;
  courierOrderStatus: string | null;
  dispatchJobId: string | null;
  deliveryPrice: string | null;
  currency: string | null;
  orderJson: string;
  redactedAt: unknown;
  /** A boolean on both databases (web/db/direct-values.ts reads SQLite's BOOLEAN columns as Prisma does). */
  writebackPending: boolean;
  shopDomain: string;
}

const COLUMNS = `d."id", d."shopifyOrderId", d."courierOrderId", d."status", d."courierStatus", d."courierOrderStatus",
           d."dispatchJobId", d."deliveryPrice", d."currency", d."orderJson", d."redactedAt", d."writebackPending", s."domain" AS "shopDomain"`;

export async function readForWriteback(db: Tx, box: SecretBox, deliveryId: string): Promise<WritebackRow | null> {
  return (await readForWritebacks(db, box, [deliveryId])).get(deliveryId) ?? null;
}

/** Several deliveries in one statement (a shop's write-backs together), by id. */
export async function readForWritebacks(db: Tx, box: SecretBox, deliveryIds: readonly string[]): Promise<Map<string, WritebackRow>> {
  const sql = `SELECT ${COLUMNS} FROM "Delivery" d JOIN "Shop" s ON s."id" = d."shopId" WHERE d."id" IN (${placeholders(1, deliveryIds.length)})`;
  const rows = await db.$queryRawUnsafe<WritebackRow[]>(forProvider(providerOf(db), sql), ...deliveryIds);
  return new Map(rows.map((r) => [r.id, opened(box, r)]));
}

function opened(box: SecretBox, row: WritebackRow): WritebackRow {
  return isEncrypted(row.orderJson) ? { ...row, orderJson: box.decrypt(row.orderJson) } : row;
}
