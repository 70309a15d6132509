// The tracking token's storage: made once per delivery, when its first
// tracking URL is needed (the fulfillment sync, or the demo), and kept.
import type { Db } from '../db/client.ts';
import { newTrackingToken, trackingPageUrl } from './token.ts';

export async function ensureTrackingToken(db: Db, deliveryId: string): Promise<string> {
  const row = await db.delivery.findUnique({ where: { id: deliveryId }, select: { trackingToken: true } });
  if (!row) throw new Error(`delivery ${deliveryId} not found`);
  if (row.trackingToken) return row.trackingToken;
  // Conditional: two syncs racing keep one token, the first written.
  await db.delivery.updateMany({ where: { id: deliveryId, trackingToken: null }, data: { trackingToken: newTrackingToken() } });
  const after = await db.delivery.findUnique({ where: { id: deliveryId }, select: { trackingToken: true } });
  return after!.trackingToken!;
}

export async function trackingUrlFor(db: Db, appUrl: string, deliveryId: string): Promise<string> {
  return trackingPageUrl(appUrl, await ensureTrackingToken(db, deliveryId));
}

/** The delivery behind a token, with what the page needs; null when none. The route refuses one whose shop uninstalled the app. */
export async function findTracked(db: Db, token: string) {
  return db.delivery.findUnique({
    where: { trackingToken: token },
    select: {
      status: true, createdAt: true, updatedAt: true, generation: true, orderName: true, redactedAt: true, orderJson: true,
      dispatchedAt: true, scheduledFor: true, locationId: true, slotStart: true, slotEnd: true,
      shop: { select: { domain: true, settings: true, uninstalledAt: true } },
      events: { select: { kind: true, status: true, applied: true, generation: true, occurredAt: true } },
    },
  });
}
