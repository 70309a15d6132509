// Shopify Flow: triggers out (triggers.ts, fed by web/lifecycle/flow-outbox.ts),
// actions and lifecycle callbacks in (routes.ts, actions.ts). docs/flow.md.
import type { AppContext } from '../context.ts';
import { registerFlowActionJobs } from './actions.ts';
import { registerFlowTriggerJobs, startFlowRelay } from './triggers.ts';

export { flowRoutes } from './routes.ts';

/** The job workers and the trigger relay of a worker process; stop() ends the relay. */
export async function startFlowWorkers(ctx: AppContext, opts: { relayIntervalMs?: number } = {}): Promise<{ stop(): Promise<void> }> {
  await registerFlowTriggerJobs(ctx);
  await registerFlowActionJobs(ctx);
  return startFlowRelay(ctx, opts.relayIntervalMs);
}
