// Delivery slots in the dispatch job (web/dispatch/dispatcher.ts), once the pickup location is
// known. An order whose customer chose a slot on the cart is SCHEDULED to be booked at the
// slot's start minus the courier's lead time, and takes a place in the slot in the same
// transaction (capacity.ts). A slot no longer valid (full, past, closed) is never moved
// silently: the shop's setting books it as soon as possible (with a timeline entry) or puts
// it in NEEDS_ATTENTION with the reason. An order without a slot takes the usual path.
import type { AppContext } from '../context.ts';
import { JOBS, type DispatchJobData } from '../jobs/names.ts';
import type { CurrentRow } from '../lifecycle/machine.ts';
import { addEvent } from '../transitions/timeline.ts';
import { transition } from '../transitions/transition.ts';
import type { Settings } from '../settings/schema.ts';
import { formatLocal, wallClock } from '../windows/schedule.ts';
import { windowFor } from '../windows/settings.ts';
import { choiceFrom } from './attributes.ts';
import { claimPlace, RELEASED, SLOT_DECLINED, windowKey } from './capacity.ts';
import { bookAt, checkSlot, type Slot } from './generate.ts';

type Row = Omit<CurrentRow, 'status'> & { windowBypass: boolean; slotStart: Date | null; slotEnd: Date | null; slotKey: string | null };


/**
 * hold: this job ends (scheduled for the slot, or needs attention). book: the slot's booking
 * time has come, book now (the slot already kept to the window). none: no slot, the usual path.
 */
export type SlotStep = 'hold' | 'book' | 'none';

class SlotFull extends Error {}

export async function holdForSlot(
  ctx: AppContext, d: Row, shopId: string, settings: Settings, attributes: ReadonlyArray<{ name: string; value: string | null }>, locationId: string | null,
  attention: (message: string) => Promise<void>,
): Promise<SlotStep> {
  if (d.slotKey === SLOT_DECLINED || d.slotKey === RELEASED) return 'none';
  if (d.slotStart) return 'book';
  const choice = choiceFrom(attributes);
  if (choice.kind === 'none' || choice.kind === 'asap') return 'none';
  if (d.windowBypass) return 'none';
  if (choice.kind === 'invalid') return decline(ctx, d, settings, `The delivery slot on the order ("${choice.value}") is not one the cart offers`, attention);
  const config = windowFor(settings.windows, locationId ?? choice.locationId);
  const now = ctx.now();
  const label = slotLabel(choice.slot, config?.timeZone ?? 'UTC');
  if (!config || !settings.slots.enabled) return decline(ctx, d, settings, `The chosen delivery slot ${label} is no longer offered (delivery slots are off for this location)`, attention);
  const check = checkSlot(config, settings.slots, choice.slot, now);
  if (!check.ok) {
    const why = check.reason === 'past' ? 'its booking time has passed' : 'the location is closed then';
    return decline(ctx, d, settings, `The chosen delivery slot ${label} is no longer available: ${why}`, attention);
  }
  const key = windowKey(settings.windows, locationId ?? choice.locationId);
  const at = bookAt(choice.slot.start, settings.slots);
  const message = `Delivery slot ${label}: booking with the courier at ${formatLocal(at, config.timeZone)}`;
  try {
    await ctx.db.$transaction(async (tx) => {
      const r = await transition(tx, null, { ...d, status: 'PENDING' }, {
        event: 'slot_scheduled',
        data: { scheduledFor: new Date(at), slotStart: new Date(choice.slot.start), slotEnd: new Date(choice.slot.end), slotKey: key, reasonCode: 'delivery_slot', reason: message },
        timeline: { kind: 'slot_scheduled', message },
      });
      // Not applied: the row changed meanwhile; nothing was taken.
      if (!r.applied) return;
      if (!(await claimPlace(tx, shopId, key, choice.slot.start, settings.slots.capacity))) throw new SlotFull();
      await ctx.queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId: d.id, generation: d.generation }, {
        singletonKey: `dispatch-slot:${d.id}:${d.generation}:${at}`, startAfterMs: Math.max(0, at - now), keepTime: true, group: shopId,
      });
    });
  } catch (e) {
    if (!(e instanceof SlotFull)) throw e;
    return decline(ctx, d, settings, `The chosen delivery slot ${label} is full (${settings.slots.capacity} orders)`, attention);
  }
  ctx.log.info({ deliveryId: d.id, slotStart: new Date(choice.slot.start).toISOString(), bookAt: new Date(at).toISOString() }, 'delivery scheduled for the chosen slot');
  return 'hold';
}

async function decline(ctx: AppContext, d: Row, settings: Settings, message: string, attention: (message: string) => Promise<void>): Promise<SlotStep> {
  // Decided once: a later run of this job, or the merchant's retry, books as soon as possible.
  const marked = await ctx.db.delivery.updateMany({ where: { id: d.id, generation: d.generation, slotKey: null, slotStart: null }, data: { slotKey: SLOT_DECLINED } });
  if (marked.count !== 1) return 'hold';
  if (settings.slots.invalidSlot === 'attention') {
    await attention(`${message}. Retry books it as soon as possible`);
    return 'hold';
  }
  await addEvent(ctx.db, d.id, { kind: 'slot_declined', message: `${message}; booking as soon as possible (the shop's setting)` });
  return 'none';
}

/** "Fri 2026-11-27 10:00–12:00 (Africa/Johannesburg)". */
export function slotLabel(slot: Slot, timeZone: string): string {
  const end = wallClock(slot.end, timeZone).minutes;
  return formatLocal(slot.start, timeZone).replace(/ (\d{2}:\d{2}) \(/, ` $1–${String(Math.floor(end / 60)).padStart(2, '0')}:${String(end % 60).padStart(2, '0')} (`);
}
