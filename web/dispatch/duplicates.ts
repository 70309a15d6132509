// More than one courier order for one delivery's reference, checked after every
// booking (web/dispatch/booking.ts holds the pure rules: matchReference, liveOrders).
import type { AppContext } from '../context.ts';
import type { CourierOrderView } from '../delivery/types.ts';
import { writeCourierOrders } from '../db/json-columns.ts';
import { addEvent } from '../transitions/timeline.ts';
import { errorMessage } from '../ops/errors.ts';
import { duplicateReason, liveOrders, matchReference, summarise } from './booking.ts';

/**
 * After a booking: does the courier hold more than one order for this reference
 * (an earlier create booked after all)? Best effort: a failed search is logged
 * and recorded on the timeline, never fatal to the booking.
 */
export async function checkReference(
  ctx: AppContext, deliveryId: string, generation: number, client: { findOrdersByReference(r: string): Promise<CourierOrderView[]> },
  reference: string, keepId: string,
): Promise<number> {
  let found;
  try {
    found = matchReference(await client.findOrdersByReference(reference), reference, keepId);
  } catch (e) {
    ctx.log.warn({ deliveryId, err: errorMessage(e) }, 'could not check the courier for other orders with this reference');
    await addEvent(ctx.db, deliveryId, { kind: 'reference_check', message: `Could not check the courier for other orders with reference ${reference}: ${errorMessage(e)}` });
    return 0;
  }
  const live = found ? liveOrders(found) : [];
  if (live.length > 1) await flagDuplicates(ctx, deliveryId, generation, summarise(live));
  return live.length;
}

/** More than one courier order for one delivery: listed for the merchant, nothing kept or dropped silently. */
export async function flagDuplicates(ctx: AppContext, deliveryId: string, generation: number, all: ReturnType<typeof summarise>): Promise<void> {
  const message = duplicateReason(all);
  await ctx.db.$transaction(async (tx) => {
    const n = await tx.delivery.updateMany({
      where: { id: deliveryId, generation },
      data: { reasonCode: 'duplicate_courier_orders', reason: message, courierOrders: writeCourierOrders(all) },
    });
    if (n.count) await addEvent(tx, deliveryId, { kind: 'duplicate_orders', source: 'courier', message });
  });
  ctx.log.warn({ deliveryId, courierOrderIds: all.map((o) => o.orderId) }, 'the courier holds more than one order for one delivery');
}

