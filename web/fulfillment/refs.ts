// Every courier-side id of a delivery (order, dispatch job, delivery) is kept
// as a CourierRef so a webhook can be matched whatever id it carries.
import { isUniqueViolation, type Tx } from '../db/client.ts';

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
