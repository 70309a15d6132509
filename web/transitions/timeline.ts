// The delivery timeline (DeliveryEvent rows): what happened to a delivery, in
// the merchant's words, oldest first. Append-only: nothing here updates or
// deletes a row (privacy/erase.ts scrubs messages of personal data).
import type { Tx } from '../db/client.ts';

export interface TimelineEntry {
  kind: string;
  message?: string | null;
  status?: string | null;
  source?: string;
  applied?: boolean;
  courierEventId?: string | null;
  occurredAt?: Date;
  /** The delivery's generation (courier statuses need it: the fulfillment sync reads the current generation's). */
  generation?: number;
}

function rowOf(deliveryId: string, e: TimelineEntry) {
  return {
    deliveryId,
    kind: e.kind,
    message: e.message ?? null,
    status: e.status ?? null,
    source: e.source ?? 'app',
    applied: e.applied ?? true,
    courierEventId: e.courierEventId ?? null,
    ...(e.generation ? { generation: e.generation } : {}),
    occurredAt: e.occurredAt ?? new Date(),
  };
}

/** Writes one line, in the caller's transaction when given one. */
export async function addEvent(tx: Tx, deliveryId: string, e: TimelineEntry): Promise<void> {
  await tx.deliveryEvent.create({ data: rowOf(deliveryId, e), select: { id: true } });
}

/** Writes many lines in one insert (the courier event worker's batch). */
export async function addEvents(tx: Tx, lines: Array<{ deliveryId: string; entry: TimelineEntry }>): Promise<void> {
  if (lines.length) await tx.deliveryEvent.createMany({ data: lines.map((l) => rowOf(l.deliveryId, l.entry)) });
}
