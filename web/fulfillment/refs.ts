// Every courier-side id of a delivery (order, dispatch job, delivery) is kept
// as a CourierRef so a webhook can be matched whatever id it carries.
import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Tx } from '../db/client.ts';
import { providerOf } from '../db/raw-rows.ts';
import { dbTime, forProvider, placeholders, TS } from '../db/raw-sql.ts';

export interface NewCourierRef {
  deliveryId: string;
  shopId: string;
  environment: string;
  generation: number;
  kind: string;
  value: string;
}

/**
 * Prisma's createMany as one raw insert (a compiled createMany cost ~1 ms of CPU per booking, issue 24).
 * A ref another delivery holds fails the statement, and the caller's transaction with it, as createMany did.
 */
export async function insertCourierRefs(tx: Tx, refs: readonly NewCourierRef[]): Promise<void> {
  if (!refs.length) return;
  const provider = providerOf(tx);
  const at = dbTime(provider, Date.now());
  const values: unknown[] = [];
  const rows = refs.map((r) => {
    const n = values.push(randomUUID(), r.deliveryId, r.shopId, r.environment, r.generation, r.kind, r.value, at);
    return `(${placeholders(n - 7, 7)}, $${n}${TS})`;
  });
  await tx.$executeRawUnsafe(
    forProvider(provider, `INSERT INTO "CourierRef" ("id", "deliveryId", "shopId", "environment", "generation", "kind", "value", "createdAt") VALUES ${rows.join(', ')}`),
    ...values,
  );
}

/** Outside a transaction a concurrent writer may add the same ref first; that is success. */
export async function addCourierRefs(tx: Tx, deliveryId: string, shopId: string, environment: string, generation: number, refs: Array<[string, string | null | undefined]>) {
  for (const [kind, value] of refs) {
    if (!value) continue;
    const exists = await tx.courierRef.findFirst({ where: { shopId, environment, value, kind } });
    if (exists) continue;
    try {
      await tx.courierRef.create({ data: { deliveryId, shopId, environment, generation, kind, value } });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }
}
