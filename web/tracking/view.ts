// What the tracking page shows, from the stored delivery. Pure. Personal data:
// the recipient's first name and the suburb only, and neither once the
// delivery's personal data was erased (redactedAt).
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { customerSteps, headline, type Step, type TimelineRow } from './labels.ts';

export interface TrackingView {
  headline: string;
  steps: Step[];
  courierName: string;
  lastUpdate: Date;
  firstName: string | null;
  suburb: string | null;
  shopName: string;
  orderName: string | null;
  final: boolean;
  /** IANA zone the times are shown in: the shop's, or UTC when unknown. */
  timeZone: string;
}

export interface TrackedDelivery {
  status: DeliveryStatus;
  createdAt: Date;
  generation: number;
  orderName: string | null;
  redactedAt: Date | null;
  /** The order snapshot's shipping address (read only when not redacted). */
  shippingAddress: () => { first_name?: string | null; city?: string | null } | null | undefined;
}

export function trackingView(d: TrackedDelivery, rows: TimelineRow[], opts: { courierName: string; shopName: string; final: boolean; timeZone: string }): TrackingView {
  const steps = customerSteps(d, rows);
  const address = d.redactedAt ? null : d.shippingAddress();
  return {
    headline: headline(d.status, steps),
    steps,
    courierName: opts.courierName,
    lastUpdate: steps.at(-1)!.at,
    firstName: address?.first_name ?? null,
    suburb: address?.city ?? null,
    shopName: opts.shopName,
    orderName: d.orderName,
    final: opts.final,
    timeZone: opts.timeZone,
  };
}
