// When a tracking link stops working. Pure, with the clock passed in: tested
// in test/unit/tracking-expiry.test.ts.
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { rankOf, TERMINAL_RANK } from '../lifecycle/progress.ts';
import { DAY_MS, FINAL_STATUSES } from '../privacy/erase.ts';
import type { TimelineRow } from './labels.ts';

export interface ExpiryInput {
  status: DeliveryStatus;
  /** When the delivery ended (the courier's final status, else the row's last change); null = unknown. */
  endedAt: Date | null;
  now: number;
  expiryDays: number;
}

/** A link is live until `expiryDays` after the delivery reached a final state. */
export function isLinkExpired(e: ExpiryInput): boolean {
  if (!FINAL_STATUSES.includes(e.status) || !e.endedAt) return false;
  return e.now >= e.endedAt.getTime() + e.expiryDays * DAY_MS;
}

/** The courier's final status time, else the latest timeline line (the transition to the final state), else the row's last change. */
export function endedAt(d: { updatedAt: Date }, rows: TimelineRow[]): Date {
  const times = (xs: TimelineRow[]) => xs.map((r) => r.occurredAt.getTime());
  const final = rows.filter((r) => r.kind === 'courier_status' && r.applied && r.status && (rankOf(r.status) ?? 0) >= TERMINAL_RANK);
  const pick = final.length ? times(final) : rows.length ? times(rows) : [d.updatedAt.getTime()];
  return new Date(Math.max(...pick));
}
