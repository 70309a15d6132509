// Erasing a delivery's personal data (customers/redact, and the retention
// period for deliveries in a final state). What the merchant needs for
// accounting stays: order name and id, amounts, courier ids, statuses.
import type { Db, Tx } from '../db/client.ts';
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import type { Logger } from '../ops/logger.ts';
import { redactJsonText, scrubText } from './redact.ts';
import { GeocodeCacheStore } from '../geocoding/cache.ts';

type DeliveryWithEvents = NonNullable<Awaited<ReturnType<Tx['delivery']['findFirst']>>> & { events: Array<{ id: string; message: string | null }> };

/** Statuses nothing moves a delivery out of by itself: after the retention period their personal data goes. */
export const FINAL_STATUSES: readonly DeliveryStatus[] = ['DELIVERED', 'CANCEL_REQUESTED_IN_SHOPIFY', 'SKIPPED', 'FAILED'];

export const DAY_MS = 86_400_000;

/** Replaces personal data in the stored order, courier bodies, reasons and event messages. */
export async function eraseDeliveryPersonalData(tx: Tx, d: DeliveryWithEvents, known: Array<string | null | undefined> = []): Promise<void> {
  const order = redactJsonText(d.orderJson);
  const request = redactJsonText(d.requestBody);
  const response = redactJsonText(d.responseBody);
  const overrides = redactJsonText(d.overridesJson);
  const strings = new Set([...order.strings, ...request.strings, ...response.strings, ...overrides.strings]);
  for (const v of known) if (v) strings.add(v);
  await tx.delivery.update({
    where: { id: d.id },
    data: {
      orderJson: order.text!,
      requestBody: request.text,
      responseBody: response.text,
      overridesJson: '{}',
      reason: scrubText(d.reason, strings),
      lastError: scrubText(d.lastError, strings),
      redactedAt: new Date(),
    },
  });
  for (const e of d.events) {
    const message = scrubText(e.message, strings);
    if (message !== e.message) await tx.deliveryEvent.update({ where: { id: e.id }, data: { message } });
  }
}

/**
 * Erases the personal data of deliveries that reached a final state more than
 * `retentionDays` ago (by their last change). Batched; returns how many.
 */
export async function eraseExpiredPersonalData(db: Db, opts: { now: number; retentionDays: number; log?: Logger; batch?: number }): Promise<number> {
  const cutoff = new Date(opts.now - opts.retentionDays * DAY_MS);
  let erased = 0;
  for (;;) {
    const due = await db.delivery.findMany({
      where: { status: { in: [...FINAL_STATUSES] }, redactedAt: null, updatedAt: { lt: cutoff } },
      include: { events: true },
      orderBy: { updatedAt: 'asc' },
      take: opts.batch ?? 100,
    });
    if (!due.length) break;
    for (const d of due) await db.$transaction((tx) => eraseDeliveryPersonalData(tx, d));
    erased += due.length;
  }
  if (erased) opts.log?.info({ erased, retentionDays: opts.retentionDays }, 'personal data of old deliveries erased (retention period)');
  return erased;
}

/** The periodic retention job: old deliveries' personal data, and expired geocoding answers (addresses too). */
export async function retentionSweep(db: Db, opts: { now: number; retentionDays: number; log?: Logger }): Promise<{ erased: number; geocodes: number }> {
  const erased = await eraseExpiredPersonalData(db, opts);
  const geocodes = await new GeocodeCacheStore(db, { now: () => opts.now }).sweep();
  return { erased, geocodes };
}
