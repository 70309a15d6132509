// The write-back job's read: the delivery and its shop's domain in ONE raw
// statement. A findUnique with `include: { shop: true }` is two statements and
// a query-compiler run (issue 18: the time is in the number of statements).
// Same Prisma client; quoted identifiers work on SQLite and PostgreSQL alike.
// A raw read skips web/db/protected-data.ts, so the order snapshot is opened here.
import type { Tx } from '../db/client.ts';
import { isEncrypted, type SecretBox } from '../security/crypto.ts';

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
  shopDomain: string;
}

export async function readForWriteback(db: Tx, box: SecretBox, deliveryId: string): Promise<WritebackRow | null> {
  const rows = await db.$queryRaw<WritebackRow[]>`
    SELECT d."id", d."shopifyOrderId", d."courierOrderId", d."status", d."courierStatus", d."courierOrderStatus",
           d."dispatchJobId", d."deliveryPrice", d."currency", d."orderJson", d."redactedAt", s."domain" AS "shopDomain"
    FROM "Delivery" d JOIN "Shop" s ON s."id" = d."shopId"
    WHERE d."id" = ${deliveryId}`;
  const row = rows[0];
  if (!row) return null;
  return isEncrypted(row.orderJson) ? { ...row, orderJson: box.decrypt(row.orderJson) } : row;
}
