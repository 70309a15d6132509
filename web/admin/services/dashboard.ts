// GET /api/dashboard: the home page's figures. Three cheap reads, each bounded
// by an index (prisma/models.prisma): the deliveries created since
// readSince() (Delivery [shopId, createdAt]), the attention count (Delivery
// [shopId, status]), and the unmatched courier events (CourierEvent [state, receivedAt]).
// The figures themselves are the pure ../dashboard.ts.
import type { AppContext } from '../../context.ts';
import { countUnmatched } from '../../fulfillment/unmatched.ts';
import { findShop } from '../../settings/store.ts';
import { readSince, summarize } from '../dashboard.ts';
import { shopProfile } from '../../shopify/shop-profile.ts';

/** What the home page's "needs attention" link filters the Deliveries page by. */
export const ATTENTION_STATUSES = ['NEEDS_ATTENTION', 'FAILED'];

export async function homeDashboard(ctx: AppContext, domain: string) {
  const now = ctx.now();
  const shop = await findShop(ctx.db, domain);
  // The shop's zone from the cached shop profile (an hour per shop; a minute of UTC when Shopify cannot answer).
  const zone = await shopProfile(ctx, domain);
  const [rows, attention, unmatched] = shop
    ? await Promise.all([
        ctx.db.delivery.findMany({
          where: { shopId: shop.id, createdAt: { gte: readSince(now) } },
          select: { createdAt: true, dispatchedAt: true, status: true, deliveryPrice: true, currency: true, courierStatusAt: true },
        }),
        ctx.db.delivery.count({ where: { shopId: shop.id, status: { in: ATTENTION_STATUSES } } }),
        countUnmatched(ctx, domain),
      ])
    : [[], 0, 0];
  return { ...summarize({ rows, now, timeZone: zone.timeZone, attention, unmatched }), timeZoneSource: zone.source };
}
