// Reconciliation: a lost webhook must be caught up. Periodically, for each
// booked, non-final delivery that has been quiet longer than the shop's
// staleAfterMinutes, read GET /v1/orders/:id and apply its status as if an
// event had arrived. Also retries matching of UNMATCHED events.
import type { AppContext } from '../context.ts';
import { addCourierRefs } from './refs.ts';
import { errorMessage } from '../ops/errors.ts';
import { parseStoredSettings, type EnvironmentName } from '../settings/schema.ts';
import { courierAccess } from '../settings/store.ts';
import { applyCourierStatus, rematchEvents } from './events.ts';
import { TERMINAL_RANK } from '../lifecycle/progress.ts';

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
    const r = await reconcileDelivery(ctx, d, now);
    if (r === 'changed') report.changed++;
    if (r === 'failed') report.failed++;
  }
  // Unmatched events: the same fair, budgeted pass as after a booking, per environment that has any.
  const envs = await ctx.db.courierEnvironment.findMany({
    where: { events: { some: { state: 'UNMATCHED' } }, ...(opts.shopDomain ? { shop: { domain: opts.shopDomain } } : {}) },
    select: { id: true },
  });
  for (const env of envs) report.rematched += (await rematchEvents(ctx, { environmentId: env.id })).tried;
  if (report.changed) ctx.queue.notify();
  if (report.checked || report.rematched) ctx.log.info(report, 'reconciliation pass');
  return report;
}

type Candidate = { id: string; shopId: string; environment: string | null; generation: number; courierOrderId: string | null; dispatchJobId: string | null; shop: { domain: string } };

/** Reads one booked delivery's courier order and applies its status as if an event had arrived. */
export async function reconcileDelivery(ctx: AppContext, d: Candidate, now: number): Promise<'changed' | 'unchanged' | 'failed'> {
  const env = (d.environment ?? 'test') as EnvironmentName;
  try {
    const access = await courierAccess(ctx.db, ctx.box, d.shopId, env, ctx.config.courierBaseUrls);
    const view = await ctx.courier.for(d.shop.domain, access).getOrder(d.courierOrderId!);
    await addCourierRefs(ctx.db, d.id, d.shopId, env, d.generation, [['delivery', view.deliveryId], ['dispatch', view.dispatchId]]);
    const applied = await ctx.db.$transaction(async (tx) => {
      // An order adopted from a read without a job id gets it (the Shopify tracking number) once the courier shows it.
      await tx.delivery.update({ where: { id: d.id }, data: { reconciledAt: new Date(now), ...(!d.dispatchJobId && view.dispatchId ? { dispatchJobId: view.dispatchId } : {}) } });
      if (!view.deliveryStatus) return false;
      return applyCourierStatus(tx, d.id, { status: view.deliveryStatus, occurredAt: new Date(now), source: 'reconcile' }, new Date(now), undefined, { queue: ctx.queue, shopId: d.shopId });
    });
    if (applied) ctx.queue.notify();
    return applied ? 'changed' : 'unchanged';
  } catch (e) {
    await ctx.db.delivery.update({ where: { id: d.id }, data: { reconciledAt: new Date(now) } });
    ctx.log.warn({ deliveryId: d.id, err: errorMessage(e) }, 'reconciliation could not read the courier order');
    return 'failed';
  }
}

export class CheckNowError extends Error {
  readonly status: number;
  constructor(message: string, status = 409) {
    super(message);
    this.status = status;
  }
}

/** "Check status now": read the courier at once for one booked delivery, however recently it was heard from. */
export async function checkDeliveryNow(ctx: AppContext, shopDomain: string, deliveryId: string): Promise<{ result: 'changed' | 'unchanged' | 'failed'; courierStatus: string | null }> {
  const d = await ctx.db.delivery.findFirst({ where: { id: deliveryId, shop: { domain: shopDomain } }, include: { shop: true } });
  if (!d) throw new CheckNowError(`delivery ${deliveryId} not found`, 404);
  if (!d.courierOrderId) throw new CheckNowError(`delivery is ${d.status} and has no courier order to check`);
  const result = await reconcileDelivery(ctx, d, ctx.now());
  const after = await ctx.db.delivery.findUniqueOrThrow({ where: { id: d.id } });
  return { result, courierStatus: after.courierStatus };
}
