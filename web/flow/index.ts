// Shopify Flow: triggers out (triggers.ts, fed by web/transitions/flow-outbox.ts),
// actions and lifecycle callbacks in (routes.ts, actions.ts). docs/flow.md.
import type { AppContext } from '../context.ts';
import { JOBS } from '../jobs/names.ts';
import { registerFlowActionJobs } from './actions.ts';
import { registerFlowTriggerJobs, startFlowRelay } from './triggers.ts';

export { flowRoutes } from './routes.ts';

/**
 * Settled triggers and action runs are kept this long (the settings page counts the last 7 days;
 * Flow retries an action run for at most 24 hours), then deleted.
 */
export const FLOW_KEEP_DAYS = 30;
const CLEANUP_EVERY_MS = 6 * 3_600_000;

export async function forgetOldFlowRecords(ctx: AppContext, now = ctx.now()): Promise<{ triggers: number; runs: number }> {
  const before = new Date(now - FLOW_KEEP_DAYS * 86_400_000);
  const triggers = await ctx.db.flowTriggerEvent.deleteMany({ where: { state: { in: ['sent', 'skipped', 'failed'] }, updatedAt: { lt: before } } });
  const runs = await ctx.db.flowActionRun.deleteMany({ where: { state: { in: ['done', 'refused'] }, updatedAt: { lt: before } } });
  return { triggers: triggers.count, runs: runs.count };
}

/** The job workers and the trigger relay of a worker process; stop() ends the relay. */
export async function startFlowWorkers(ctx: AppContext, opts: { relayIntervalMs?: number } = {}): Promise<{ stop(): Promise<void> }> {
  await registerFlowTriggerJobs(ctx);
  await registerFlowActionJobs(ctx);
  await ctx.queue.every(JOBS.flowCleanup, CLEANUP_EVERY_MS, async () => void (await forgetOldFlowRecords(ctx)));
  return startFlowRelay(ctx, opts.relayIntervalMs);
}
