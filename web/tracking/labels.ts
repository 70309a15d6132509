// Courier statuses and delivery statuses in the customer's words: message keys
// of web/i18n/messages/tracking/ (status.*). Pure: table-tested in
// test/unit/tracking.test.ts. Synonyms come from the courier status ranks
// (web/lifecycle/progress.ts), so a status that ranks is labelled.
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { isSuccess, normaliseStatus, rankOf, TERMINAL_RANK } from '../lifecycle/progress.ts';

/** A status message key (status.* in web/i18n/messages/tracking/en.json). */
export type StatusKey =
  | 'status.orderReceived' | 'status.preparing' | 'status.booked' | 'status.driverAssigned' | 'status.driverToStore'
  | 'status.pickedUp' | 'status.onTheWay' | 'status.runningLate' | 'status.outForDelivery' | 'status.attempted'
  | 'status.delivered' | 'status.returned' | 'status.cancelled' | 'status.unsuccessful' | 'status.notSent';

const BY_RANK: ReadonlyArray<[maxRank: number, key: StatusKey]> = [
  [10, 'status.booked'],
  [20, 'status.driverAssigned'],
  [25, 'status.driverToStore'],
  [30, 'status.pickedUp'],
  [40, 'status.onTheWay'],
  [45, 'status.runningLate'],
  [50, 'status.outForDelivery'],
  [60, 'status.attempted'],
];

/** The customer label of a courier status; null for one we do not know (never shown raw). */
export function courierStatusLabel(status: string): StatusKey | null {
  const rank = rankOf(status);
  if (rank === null) return null;
  if (rank >= TERMINAL_RANK) {
    if (isSuccess(status)) return 'status.delivered';
    const s = normaliseStatus(status);
    if (s === 'returned') return 'status.returned';
    if (s === 'cancelled' || s === 'canceled') return 'status.cancelled';
    return 'status.unsuccessful';
  }
  return BY_RANK.find(([max]) => rank <= max)?.[1] ?? null;
}

/** The labels of a courier's final statuses: nothing is left to expect after one. */
export const FINAL_LABELS: ReadonlySet<StatusKey> = new Set(['status.delivered', 'status.returned', 'status.cancelled', 'status.unsuccessful']);

export const ORDER_RECEIVED: StatusKey = 'status.orderReceived';

/** What to say before (or instead of) a courier status. */
export function deliveryStatusLabel(status: DeliveryStatus): StatusKey {
  switch (status) {
    case 'CANCEL_REQUESTED_IN_SHOPIFY':
      return 'status.cancelled';
    case 'FAILED':
    case 'SKIPPED':
      return 'status.notSent';
    case 'DELIVERED':
      return 'status.delivered';
    case 'CREATED':
    case 'IN_PROGRESS':
      return 'status.booked';
    default:
      return 'status.preparing';
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
  label: StatusKey;
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
export function headline(status: DeliveryStatus, steps: Step[]): StatusKey {
  if (status === 'CANCEL_REQUESTED_IN_SHOPIFY' || status === 'FAILED' || status === 'SKIPPED') return deliveryStatusLabel(status);
  const last = steps.at(-1)!;
  return last.label === ORDER_RECEIVED ? deliveryStatusLabel(status) : last.label;
}
