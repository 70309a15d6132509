// Courier statuses and delivery statuses in the customer's words. Pure:
// table-tested in test/unit/tracking-labels.test.ts. Synonyms come from the
// courier status ranks (web/fulfillment/progress.ts), so a status that ranks is labelled.
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { isSuccess, normaliseStatus, rankOf, TERMINAL_RANK } from '../fulfillment/progress.ts';

const BY_RANK: ReadonlyArray<[maxRank: number, label: string]> = [
  [10, 'Booked with the courier'],
  [20, 'Driver assigned'],
  [25, 'Driver heading to the store'],
  [30, 'Picked up'],
  [40, 'On the way'],
  [45, 'Running late'],
  [50, 'Out for delivery'],
  [60, 'Delivery attempted'],
];

/** The customer label of a courier status; null for one we do not know (never shown raw). */
export function courierStatusLabel(status: string): string | null {
  const rank = rankOf(status);
  if (rank === null) return null;
  if (rank >= TERMINAL_RANK) {
    if (isSuccess(status)) return 'Delivered';
    const s = normaliseStatus(status);
    if (s === 'returned') return 'Returned to the store';
    if (s === 'cancelled' || s === 'canceled') return 'Delivery cancelled';
    return 'Delivery unsuccessful';
  }
  return BY_RANK.find(([max]) => rank <= max)?.[1] ?? null;
}

export const ORDER_RECEIVED = 'Order received';

/** What to say before (or instead of) a courier status. */
export function deliveryStatusLabel(status: DeliveryStatus): string {
  switch (status) {
    case 'CANCEL_REQUESTED_IN_SHOPIFY':
      return 'Delivery cancelled';
    case 'FAILED':
    case 'SKIPPED':
      return 'Not sent by same-day delivery';
    case 'DELIVERED':
      return 'Delivered';
    case 'CREATED':
    case 'IN_PROGRESS':
      return 'Booked with the courier';
    default:
      return 'Preparing your delivery';
  }
}

export interface TimelineRow {
  kind: string;
  status: string | null;
  applied: boolean;
  generation: number;
  occurredAt: Date;
}

export interface Step {
  label: string;
  at: Date;
}

/**
 * The customer's timeline, oldest first: the order, then the current booking's
 * applied courier statuses (late ones and earlier bookings are the merchant's
 * history, not the customer's), repeats of one label folded into the first.
 */
export function customerSteps(d: { createdAt: Date; generation: number }, rows: TimelineRow[]): Step[] {
  const steps: Step[] = [{ label: ORDER_RECEIVED, at: d.createdAt }];
  const courier = rows
    .filter((r) => r.kind === 'courier_status' && r.applied && r.generation === d.generation && r.status)
    // Statuses sent in one burst can share a timestamp: the courier's progress order breaks the tie.
    .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (rankOf(a.status!) ?? 0) - (rankOf(b.status!) ?? 0));
  for (const r of courier) {
    const label = courierStatusLabel(r.status!);
    if (label && steps.at(-1)!.label !== label) steps.push({ label, at: r.occurredAt });
  }
  return steps;
}

/** The headline: the delivery's own status where it says more (cancelled, not sent), else the latest step. */
export function headline(status: DeliveryStatus, steps: Step[]): string {
  if (status === 'CANCEL_REQUESTED_IN_SHOPIFY' || status === 'FAILED' || status === 'SKIPPED') return deliveryStatusLabel(status);
  const last = steps.at(-1)!;
  return last.label === ORDER_RECEIVED ? deliveryStatusLabel(status) : last.label;
}
