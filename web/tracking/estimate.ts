// The delivery window the tracking page expects, shown as an estimate. Pure:
// table-tested in test/unit/tracking-estimate.test.ts (in the mutation scope).
// The courier's API gives no arrival time, so the window is ours: from when the
// parcel can leave the store (booked, and the store's preparation time over)
// to that plus how long the courier usually takes. A slot the customer chose at
// checkout is the window instead. docs/tracking.md.
import type { DeliveryStatus } from '../lifecycle/machine.ts';

export interface Slot {
  from: Date;
  to: Date;
}

export interface EstimateInput {
  status: DeliveryStatus;
  /** When the paid order reached the app. */
  createdAt: Date;
  /** When the courier booked it; null until booked (and after a re-dispatch, until booked again). */
  dispatchedAt: Date | null;
  /** When a delivery held by the store's opening hours is planned to be booked (opening + preparation). */
  scheduledFor: Date | null;
  /** The slot the customer chose at checkout, when there is one: it is the window. */
  chosenSlot?: Slot | null;
  /** The pickup location's preparation time (Settings.windows prepMinutes; 0 without a window). */
  prepMinutes: number;
  /** How long the courier usually takes from booking to the door (Settings.tracking.estimateMinutes). */
  estimateMinutes: number;
  /** The courier reported a final status (delivered, returned, cancelled, failed). */
  courierEnded: boolean;
  now: number;
}

export type Estimate =
  | { kind: 'window'; from: Date; to: Date; basis: 'slot' | 'booking' }
  /** The window has passed and the delivery is still under way. */
  | { kind: 'late'; basis: 'slot' | 'booking' };

/** Statuses on the way to a delivery: the others (done, cancelled, not sent, waiting on the merchant) have nothing to expect. */
const UNDER_WAY: readonly DeliveryStatus[] = ['PENDING', 'SCHEDULED', 'CREATED', 'IN_PROGRESS'];

const MINUTE = 60_000;

export function estimateDelivery(e: EstimateInput): Estimate | null {
  if (!UNDER_WAY.includes(e.status) || e.courierEnded) return null;
  let window: Slot;
  let basis: 'slot' | 'booking';
  if (e.chosenSlot) {
    window = e.chosenSlot;
    basis = 'slot';
  } else {
    // Booked, or planned to be; an order not yet booked goes out as soon as it is.
    const booking = (e.dispatchedAt ?? e.scheduledFor ?? e.createdAt).getTime();
    const ready = Math.max(booking, e.createdAt.getTime() + e.prepMinutes * MINUTE);
    window = { from: new Date(ready), to: new Date(ready + e.estimateMinutes * MINUTE) };
    basis = 'booking';
  }
  if (e.now >= window.to.getTime()) return { kind: 'late', basis };
  return { kind: 'window', from: window.from, to: window.to, basis };
}
