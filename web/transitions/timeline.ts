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

/** Writes one line, in the caller's transaction when given one. */
export async function addEvent(tx: Tx, deliveryId: string, e: TimelineEntry): Promise<void> {
  await tx.deliveryEvent.create({
    data: {
      deliveryId,
      kind: e.kind,
      message: e.message ?? null,
      status: e.status ?? null,
      source: e.source ?? 'app',
      applied: e.applied ?? true,
      courierEventId: e.courierEventId ?? null,
      ...(e.generation ? { generation: e.generation } : {}),
      occurredAt: e.occurredAt ?? new Date(),
    },
    select: { id: true },
  });
}
