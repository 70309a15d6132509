// Delivery windows in the dispatch job (web/dispatch/dispatcher.ts): once the pickup
// location is known, an order outside its window goes to SCHEDULED with the planned
// time and a dispatch job that starts then. When that job runs, the delivery goes back
// to PENDING and the dispatch job decides again with the settings and the window of
// that moment. Status changes only through web/transitions/transition.ts.
import type { AppContext } from '../context.ts';
import { JOBS, type DispatchJobData } from '../jobs/names.ts';
import type { CurrentRow } from '../lifecycle/machine.ts';
import { shopGroup } from '../transitions/effects.ts';
import { transition } from '../transitions/transition.ts';
import type { Settings } from '../settings/schema.ts';
import { decideWindow, formatLocal, REASON_WORDS } from '../windows/schedule.ts';
import { windowFor } from '../windows/settings.ts';

type Row = Omit<CurrentRow, 'status'> & { windowBypass: boolean };

/** Outside the location's window: scheduled (true; this job ends). Open, no window, or bypassed: false. */
export async function holdOutsideWindow(ctx: AppContext, d: Row, settings: Settings, locationId: string | null): Promise<boolean> {
  if (d.windowBypass) return false;
  const config = windowFor(settings.windows, locationId);
  if (!config) return false;
  const now = ctx.now();
  const w = decideWindow(config, now);
  if (w.kind === 'now') return false;
  const message = `Scheduled for ${formatLocal(w.at, config.timeZone)}: ${REASON_WORDS[w.reason]}`;
  const applied = await ctx.db.$transaction(async (tx) => {
    const r = await transition(tx, null, { ...d, status: 'PENDING' }, {
      event: 'window_closed', data: { scheduledFor: new Date(w.at), reasonCode: 'outside_window', reason: message }, timeline: { kind: 'scheduled', message },
    });
    // Its own key: the intake's dispatch job is still running (its key is busy until it ends).
    if (r.applied) {
      await ctx.queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId: d.id, generation: d.generation }, {
        singletonKey: `dispatch-window:${d.id}:${d.generation}:${w.at}`, startAfterMs: Math.max(0, w.at - now), keepTime: true, ...(await shopGroup(tx, d.id, d.shopId)),
      });
    }
    return r.applied;
  });
  if (applied) ctx.log.info({ deliveryId: d.id, scheduledFor: new Date(w.at).toISOString(), reason: w.reason }, 'delivery scheduled for the next opening');
  // Not applied: the row changed meanwhile (cancelled, a merchant action); this job has nothing more to do.
  return true;
}

/**
 * A dispatch job found its delivery SCHEDULED. Before the planned time (an earlier
 * schedule's job, or a clock moved back) it does nothing; from then on the delivery
 * goes back to PENDING and true tells the caller to dispatch (re-checking the window).
 */
export async function openScheduled(ctx: AppContext, d: CurrentRow & { scheduledFor: Date | null }): Promise<boolean> {
  if (d.scheduledFor && ctx.now() < d.scheduledFor.getTime()) return false;
  const r = await ctx.db.$transaction((tx) => transition(tx, null, d, {
    event: 'window_opened', data: { reasonCode: null, reason: null }, timeline: { kind: 'window_opened', message: 'Delivery window open: dispatching' },
  }));
  return r.applied;
}

/**
 * How long past its planned time a SCHEDULED delivery waits for its own job (behind a sale's backlog,
 * say) before the periodic sweep queues another: a job can be lost, and until keepTime an early hurry
 * ended it (docs/shopify-rate-limits.md).
 */
export const SCHEDULED_OVERDUE_MS = 5 * 60_000;

/** Queues at once the dispatch of every SCHEDULED delivery due `overdueMs` ago or earlier (0: after a moved clock). */
export async function dispatchDue(ctx: AppContext, overdueMs = 0): Promise<number> {
  const due = await ctx.db.delivery.findMany({
    where: { status: 'SCHEDULED', scheduledFor: { lte: new Date(ctx.now() - overdueMs) } }, select: { id: true, generation: true, shopId: true }, take: 500,
  });
  for (const d of due) {
    await ctx.db.$transaction((tx) => ctx.queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId: d.id, generation: d.generation }, { singletonKey: `dispatch-window-due:${d.id}:${d.generation}`, group: d.shopId }));
  }
  if (due.length) ctx.queue.notify();
  return due.length;
}
