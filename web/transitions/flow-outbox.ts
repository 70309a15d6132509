// The Shopify Flow triggers' transactional outbox: one FlowTriggerEvent row per
// trigger a transition reports (machine.ts flowTriggersOf), written in the
// transition's own transaction, so the status change and its trigger commit
// together or not at all. web/flow/triggers.ts sends the rows.
//
// Only shops with an enabled workflow using the trigger get a row (Flow's
// lifecycle callback, FlowTriggerUsage): for every other shop this costs one
// small read. A "*" usage row (a trigger Flow named that we could not map)
// counts for every trigger.
import type { Tx } from '../db/client.ts';
import type { FlowTrigger } from '../lifecycle/machine.ts';

/** What the delivery held when the transition happened: the trigger's payload is built from it. */
export interface FlowSnapshot {
  shopifyOrderId: string;
  status: string;
  reasonCode: string | null;
  reason: string | null;
  courierStatus: string | null;
  courierStatusAt: string | null;
  deliveryPrice: string | null;
  currency: string | null;
  dispatchJobId: string | null;
  locationId: string | null;
  environment: string | null;
  /** When the paid order reached the app. */
  paidAt: string;
  courierOrder: boolean;
  tries: number;
}

/**
 * A condition (PostgreSQL binds from `$from`): the shop uses none of `triggers`, as recordFlowTriggers
 * reads it. A statement that writes a transition without the outbox holds it (events.ts one statement).
 */
export function noFlowUsage(from: number, shopId: string, triggers: readonly FlowTrigger[]): { text: string; values: unknown[] } {
  const binds = triggers.map((_, i) => `$${from + 1 + i}`);
  return {
    text: `NOT EXISTS (SELECT 1 FROM "FlowTriggerUsage" u WHERE u."shopId" = $${from} AND u."enabled" IS TRUE AND u."trigger" IN (${[...binds, "'*'"].join(', ')}))`,
    values: [shopId, ...triggers],
  };
}

export async function recordFlowTriggers(tx: Tx, deliveryId: string, triggers: readonly FlowTrigger[]): Promise<number> {
  const used = await tx.$queryRaw<Array<{ trigger: string }>>`
    SELECT u."trigger" FROM "FlowTriggerUsage" u JOIN "Delivery" d ON d."shopId" = u."shopId"
    WHERE d."id" = ${deliveryId} AND u."enabled" IS TRUE`;
  const wanted = triggers.filter((t) => used.some((u) => u.trigger === t || u.trigger === '*'));
  if (!wanted.length) return 0;
  const d = await tx.delivery.findUniqueOrThrow({
    where: { id: deliveryId },
    select: {
      shopId: true, generation: true, shopifyOrderId: true, status: true, reasonCode: true, reason: true, courierStatus: true, courierStatusAt: true,
      deliveryPrice: true, currency: true, dispatchJobId: true, locationId: true, environment: true, createdAt: true, courierOrderId: true, tries: true,
    },
  });
  const snapshot: FlowSnapshot = {
    shopifyOrderId: d.shopifyOrderId, status: d.status, reasonCode: d.reasonCode, reason: d.reason, courierStatus: d.courierStatus,
    courierStatusAt: d.courierStatusAt?.toISOString() ?? null, deliveryPrice: d.deliveryPrice, currency: d.currency, dispatchJobId: d.dispatchJobId,
    locationId: d.locationId, environment: d.environment, paidAt: d.createdAt.toISOString(), courierOrder: d.courierOrderId !== null, tries: d.tries,
  };
  await tx.flowTriggerEvent.createMany({
    data: wanted.map((trigger) => ({ deliveryId, shopId: d.shopId, trigger, generation: d.generation, snapshot: JSON.stringify(snapshot) })),
  });
  return wanted.length;
}
