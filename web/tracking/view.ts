// What the tracking page shows, from the stored delivery. Pure. Personal data:
// the recipient's first name and the suburb only, and neither once the
// delivery's personal data was erased (redactedAt).
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { estimateDelivery, type Estimate, type Slot } from './estimate.ts';
import { customerSteps, FINAL_LABELS, headline, type StatusKey, type Step, type TimelineRow } from './labels.ts';
import type { StoreContact } from './shop.ts';

export interface TrackingView {
  headline: StatusKey;
  steps: Step[];
  courierName: string;
  lastUpdate: Date;
  firstName: string | null;
  suburb: string | null;
  store: StoreContact;
  orderName: string | null;
  final: boolean;
  /** IANA zone the times are shown in: the shop's, or UTC when unknown. */
  timeZone: string;
  /** The expected delivery window; null when there is nothing left to expect. */
  estimate: Estimate | null;
}

export interface TrackedDelivery {
  status: DeliveryStatus;
  createdAt: Date;
  dispatchedAt: Date | null;
  scheduledFor: Date | null;
  generation: number;
  orderName: string | null;
  redactedAt: Date | null;
  /** The delivery slot the customer chose at checkout (the slots feature); absent or null when none was chosen. */
  chosenSlot?: Slot | null;
  /** The order snapshot's shipping address (read only when not redacted). */
  shippingAddress: () => { first_name?: string | null; city?: string | null } | null | undefined;
}

export interface ViewOptions {
  courierName: string;
  store: StoreContact;
  final: boolean;
  timeZone: string;
  /** The pickup location's preparation time (Settings.windows); 0 without a window. */
  prepMinutes: number;
  /** Settings.tracking.estimateMinutes. */
  estimateMinutes: number;
  now: number;
}

export function trackingView(d: TrackedDelivery, rows: TimelineRow[], opts: ViewOptions): TrackingView {
  const steps = customerSteps(d, rows);
  const address = d.redactedAt ? null : d.shippingAddress();
  const status = headline(d.status, steps);
  return {
    headline: status,
    steps,
    courierName: opts.courierName,
    lastUpdate: steps.at(-1)!.at,
    firstName: address?.first_name ?? null,
    suburb: address?.city ?? null,
    store: opts.store,
    orderName: d.orderName,
    final: opts.final,
    timeZone: opts.timeZone,
    estimate: estimateDelivery({
      status: d.status, createdAt: d.createdAt, dispatchedAt: d.dispatchedAt, scheduledFor: d.scheduledFor, chosenSlot: d.chosenSlot,
      prepMinutes: opts.prepMinutes, estimateMinutes: opts.estimateMinutes, courierEnded: FINAL_LABELS.has(steps.at(-1)!.label), now: opts.now,
    }),
  };
}
