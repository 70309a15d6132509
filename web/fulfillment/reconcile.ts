// Reconciliation: a lost webhook must be caught up. Periodically, for each
// booked, non-final delivery that has been quiet longer than the shop's
// staleAfterMinutes, read GET /v1/orders/:id and apply its status as if an
// event had arrived. Also retries matching of UNMATCHED events.
import type { AppContext } from '../context.ts';
import { addCourierRefs } from '../dispatch/refs.ts';
import { errorMessage } from '../ops/errors.ts';
import { parseStoredSettings, type EnvironmentName } from '../settings/schema.ts';
import { courierAccess } from '../settings/store.ts';
import { applyCourierStatus, enqueueSync, processCourierEvent } from './events.ts';
import { TERMINAL_RANK } from './progress.ts';

export interface ReconcileReport {
  checked: number;
  changed: number;
  failed: number;
  rematched: number;
}

export async function reconcileOnce(ctx: AppContext, opts: { now?: number; shopDomain?: string; batch?: number } = {}): Promise<ReconcileReport> {
  const now = opts.now ?? ctx.now();
  const report: ReconcileReport = { checked: 0, changed: 0, failed: 0, rematched: 0 };
  const candidates = await ctx.db.delivery.findMany({
    where: {
      status: { in: ['CREATED', 'IN_PROGRESS', 'CANCEL_REQUESTED_IN_SHOPIFY'] },
      courierOrderId: { not: null },
      courierStatusRank: { lt: TERMINAL_RANK },
      ...(opts.shopDomain ? { shop: { domain: opts.shopDomain } } : {}),
    },
    include: { shop: true },
    orderBy: [{ reconciledAt: 'asc' }, { dispatchedAt: 'asc' }],
    take: opts.batch ?? 200,
  });
  for (const d of candidates) {
    const settings = parseStoredSettings(d.shop.settings);
    const quietSince = Math.max(...[d.lastEventAt, d.dispatchedAt, d.reconciledAt].map((t) => t?.getTime() ?? 0));
    if (now - quietSince < settings.reconcile.staleAfterMinutes * 60_000) continue;
    report.checked++;
    const env = (d.environment ?? 'test') as EnvironmentName;
    try {
      const access = await courierAccess(ctx.db, ctx.box, d.shopId, env, ctx.config.courierBaseUrls);
      const view = await ctx.courier.for(d.shop.domain, access).getOrder(d.courierOrderId!);
      await addCourierRefs(ctx.db, d.id, d.shopId, env, d.generation, [['delivery', view.deliveryId], ['dispatch', view.dispatchId]]);
      const applied = await ctx.db.$transaction(async (tx) => {
        await tx.delivery.update({ where: { id: d.id }, data: { reconciledAt: new Date(now) } });
        if (!view.deliveryStatus) return false;
        const ok = await applyCourierStatus(tx, d.id, { status: view.deliveryStatus, occurredAt: new Date(now), source: 'reconcile' }, new Date(now));
        if (ok) await enqueueSync(ctx, tx, d.id);
        return ok;
      });
      if (applied) report.changed++;
    } catch (e) {
      report.failed++;
      await ctx.db.delivery.update({ where: { id: d.id }, data: { reconciledAt: new Date(now) } });
      ctx.log.warn({ deliveryId: d.id, err: errorMessage(e) }, 'reconciliation could not read the courier order');
    }
  }
  const unmatched = await ctx.db.courierEvent.findMany({
    where: { state: 'UNMATCHED', receivedAt: { gt: new Date(now - 7 * 24 * 3600_000) }, ...(opts.shopDomain ? { environment: { shop: { domain: opts.shopDomain } } } : {}) },
    orderBy: { receivedAt: 'asc' },
    take: 100,
  });
  for (const e of unmatched) {
    await processCourierEvent(ctx, { eventId: e.id });
    report.rematched++;
  }
  if (report.changed) ctx.queue.notify();
  if (report.checked || report.rematched) ctx.log.info(report, 'reconciliation pass');
  return report;
}
