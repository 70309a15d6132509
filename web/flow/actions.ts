// Shopify Flow actions ("Dispatch this order with Same-Day Dispatch",
// "Re-dispatch this order"): one FlowActionRun per action_run_id, worked by
// the `flow-action` job through the same services as the admin buttons and
// the CLI (web/dispatch/actions.ts).
//
// Guarantees:
// - A run is recorded once (unique action_run_id). A replay changes nothing
//   and gets the run's answer: 202 while its job runs, then 200 or the refusal.
// - The merchant action and the run's outcome commit in one transaction, so a
//   job that crashed and runs again finds the run done and does nothing.
// - A run that failed for a passing reason (Shopify unreachable) is queued
//   again when Flow calls again with the same action_run_id.
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { isUniqueViolation } from '../db/client.ts';
import { dispatchOrder, DONE, refusalOf, runAction } from '../dispatch/actions.ts';
import { JOBS, type FlowActionJobData } from '../jobs/names.ts';
import { errorMessage } from '../ops/errors.ts';
import { FLOW_ACTION_INFO } from './catalogue.ts';
import { refusalFor, type ActionRequest } from './requests.ts';

export interface ActionAnswer {
  status: number;
  body: { message: string; code?: string | null; action_run_id: string };
}

type RunRow = { id: string; actionRunId: string; state: string; httpStatus: number | null; code: string | null; message: string | null };

const ACCEPTED = 'Accepted: Same-Day Dispatch is working on it';

export function answerOf(run: RunRow): ActionAnswer {
  if (run.state === 'received' || run.state === 'error') return { status: 202, body: { message: ACCEPTED, action_run_id: run.actionRunId } };
  return { status: run.httpStatus ?? 200, body: { message: run.message ?? '', code: run.code, action_run_id: run.actionRunId } };
}

async function enqueueRun(ctx: AppContext, tx: Tx, runId: string): Promise<void> {
  await ctx.queue.enqueue<FlowActionJobData>(tx, JOBS.flowAction, { runId }, { singletonKey: `flow-action:${runId}` });
}

/** Records a new run (or finds the replayed one) and answers for it: the lifecycle table's quick refusal, or 202 with its job queued. */
export async function acceptAction(ctx: AppContext, shopId: string, req: ActionRequest): Promise<ActionAnswer> {
  const known = await ctx.db.flowActionRun.findUnique({ where: { actionRunId: req.actionRunId } });
  if (known) return replay(ctx, known);
  const d = await ctx.db.delivery.findFirst({ where: { shopId, shopifyOrderId: req.orderId } });
  const refused = refusalFor(req.action.action, d);
  try {
    const run = await ctx.db.$transaction(async (tx) => {
      const r = await tx.flowActionRun.create({
        data: {
          actionRunId: req.actionRunId, shopId, handle: req.action.handle, orderId: req.orderId, deliveryId: d?.id ?? null,
          ...(refused ? { state: 'refused', httpStatus: refused.status, code: refused.code, message: refused.message } : {}),
        },
      });
      if (!refused) await enqueueRun(ctx, tx, r.id);
      return r;
    });
    if (!refused) ctx.queue.notify();
    return answerOf(run);
  } catch (e) {
    // The same run delivered twice at once: the other request recorded it.
    if (!isUniqueViolation(e)) throw e;
    return replay(ctx, await ctx.db.flowActionRun.findUniqueOrThrow({ where: { actionRunId: req.actionRunId } }));
  }
}

async function replay(ctx: AppContext, run: RunRow): Promise<ActionAnswer> {
  if (run.state === 'error') {
    await ctx.db.$transaction(async (tx) => {
      const again = await tx.flowActionRun.updateMany({ where: { id: run.id, state: 'error' }, data: { state: 'received' } });
      if (again.count) await enqueueRun(ctx, tx, run.id);
    });
    ctx.queue.notify();
  }
  return answerOf(run);
}

/** Thrown inside the action's transaction when the run was decided meanwhile: the action rolls back. */
class RunAlreadyDecided extends Error {}

/** The `flow-action` job: performs the run's merchant action and records its outcome with it. */
export async function performRun(ctx: AppContext, runId: string): Promise<void> {
  const run = await ctx.db.flowActionRun.findUnique({ where: { id: runId }, include: { shop: { select: { domain: true, uninstalledAt: true } } } });
  if (!run || run.state !== 'received') return;
  const info = FLOW_ACTION_INFO.find((a) => a.handle === run.handle)!;
  const decided = (state: 'done' | 'refused', httpStatus: number, code: string | null, message: string) => async (tx: Tx, deliveryId: string | null) => {
    const n = await tx.flowActionRun.updateMany({ where: { id: run.id, state: 'received' }, data: { state, httpStatus, code, message, deliveryId } });
    if (!n.count) throw new RunAlreadyDecided();
  };
  const refuse = (status: number, code: string | null, message: string) => ctx.db.$transaction((tx) => decided('refused', status, code, message)(tx, run.deliveryId));
  if (run.shop.uninstalledAt) return void (await refuse(410, 'not_installed', 'Same-Day Dispatch is uninstalled from this shop'));
  try {
    const done = decided('done', 200, null, info.action === 'dispatch' ? DONE.dispatch : DONE.redispatch);
    if (info.action === 'dispatch') {
      const known = await ctx.db.delivery.findFirst({ where: { shopId: run.shopId, shopifyOrderId: run.orderId }, select: { id: true } });
      const r = await dispatchOrder(ctx, run.shop.domain, run.orderId, known?.id ?? null, done);
      if (!r) await refuse(404, 'not_found', `Shopify has no order ${run.orderId} on this shop`);
    } else {
      const known = await ctx.db.delivery.findFirst({ where: { shopId: run.shopId, shopifyOrderId: run.orderId }, select: { id: true } });
      if (!known) await refuse(404, 'not_found', 'Same-Day Dispatch has no delivery for this order to re-dispatch; use "Dispatch this order with Same-Day Dispatch" instead');
      else await runAction(ctx, run.shop.domain, known.id, 'redispatch', undefined, done);
    }
  } catch (e) {
    if (e instanceof RunAlreadyDecided) return;
    const outcome = refusalOf(e);
    // A refusal (the lifecycle table, eligibility, the courier's or Shopify's answer) is the run's answer.
    if (outcome && !(outcome.code === 'shopify_error' && (e as { retryable?: boolean }).retryable)) {
      const status = outcome.outcome === 'not_found' ? 404 : outcome.code === 'not_allowed' ? 409 : 422;
      await refuse(status, outcome.code ?? 'refused', outcome.message).catch((x) => (x instanceof RunAlreadyDecided ? undefined : Promise.reject(x)));
      return;
    }
    throw e; // retried by the queue; exhausted → 'error', queued again by Flow's next call
  }
}

export async function registerFlowActionJobs(ctx: AppContext): Promise<void> {
  await ctx.queue.work<FlowActionJobData>(JOBS.flowAction, (job) => performRun(ctx, job.data.runId), {
    concurrency: 4,
    retry: { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 30_000 },
    onExhausted: async (job, error) => {
      await ctx.db.flowActionRun.updateMany({ where: { id: job.data.runId, state: 'received' }, data: { state: 'error', message: errorMessage(error) } });
      ctx.log.warn({ component: 'flow', runId: job.data.runId, err: errorMessage(error) }, 'flow action could not be done yet; Flow\'s next call queues it again');
    },
  });
}
