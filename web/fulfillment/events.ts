// Stored courier events → delivery status. Never drops an event: one that
// matches no delivery yet stays UNMATCHED and is matched again later (when a
// create response is stored, and by reconciliation).
//
// Matching: the spec does not say how data.delivery_id relates to order.id or
// dispatch.id, so every courier id we hold is a CourierRef (order, dispatch,
// delivery), and when nothing matches we ask the courier (GET /v1/orders/:id)
// about our recent bookings whose delivery id we have not learned yet.
import type { AppContext } from '../context.ts';
import { sqlStateOf, type Tx } from '../db/client.ts';
import { addCourierRefs } from './refs.ts';
import { appliedEventStatement, claimEvent, claimStatement, EventReader, findRef, lockedEventSteps, STALE_ROW_SQLSTATE, type EventToProcess, type RefMatch } from './event-sql.ts';
import { errorMessage } from '../ops/errors.ts';
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { addEventAndSync, syncOptions } from '../transitions/effects.ts';
import { noFlowUsage } from '../transitions/flow-outbox.ts';
import type { Job, JobQueue } from '../jobs/queue.ts';
import { addEvent, timelineInsert, type TimelineEntry } from '../transitions/timeline.ts';
import { planned, transitionLatest, type DeliveryRow, type Plan } from '../transitions/transition.ts';
import { updateStatement, writableRaw } from '../db/raw-rows.ts';
import { JOBS, type CourierEventJobData, type DeliveryJobData, type RematchJobData } from '../jobs/names.ts';
import { courierAccessFromRow } from '../settings/store.ts';
import { courierEventFor, decideEvent, normaliseStatus, type EventDecision } from '../lifecycle/progress.ts';
import {
  eventRetryDelayMs, idsOfEvent, isRequestedTest, learnDelayMs, READS_PER_EVENT, READS_PER_PASS, RECENT_REFS_MS, RETRY_FOR_MS, EVENTS_PER_PASS,
} from './rematch-policy.ts';
import { readTestWebhooks, readTriedIds, writeTriedIds } from '../db/json-columns.ts';


const WHY_TEXT = {
  unknown_status: 'unknown courier status: recorded, not applied',
  stale: 'arrived after a later status: recorded, not applied',
  duplicate: 'same step as the current status: recorded, not applied',
  after_terminal: 'arrived after a final status: recorded, not applied',
  earlier_booking: 'from an earlier booking of this order (re-dispatched since): recorded, not applied',
} as const;

export interface StatusInput {
  status: string;
  occurredAt: Date;
  source: 'webhook' | 'reconcile';
  courierEventId?: string | null;
  /** The generation whose courier order the event names, when known: an earlier one is history only. */
  generation?: number;
}

/** One courier status decided on a delivery row (pure): the plan that applies it, or null (recorded only). */
export function decideStatus(d: DeliveryRow, input: StatusInput, now: Date): { earlier: boolean; decision?: EventDecision; plan: Plan | null } {
  const earlier = input.generation !== undefined && input.generation < d.generation;
  if (earlier) return { earlier, plan: null };
  const decision = decideEvent({ status: d.status as DeliveryStatus, courierStatus: d.courierStatus, courierStatusRank: d.courierStatusRank }, normaliseStatus(input.status));
  if (!decision.apply) return { earlier, decision, plan: null };
  return {
    earlier,
    decision,
    plan: {
      event: courierEventFor(decision.courierStatus),
      // Every field the decision read (beyond id, generation and status): a row read before this
      // transaction (`known`) that changed since matches nothing, and is read again.
      where: { courierStatusRank: d.courierStatusRank, reasonCode: d.reasonCode, courierOrderId: d.courierOrderId, tries: d.tries },
      data: {
        courierStatus: decision.courierStatus,
        courierStatusRank: decision.rank,
        courierStatusAt: input.occurredAt,
        lastEventAt: now,
        ...(decision.attention ? { reasonCode: decision.attention.code, reason: decision.attention.message } : {}),
      },
    },
  };
}

/** The timeline line of a courier status, applied or recorded only (pure). */
export function statusLine(input: StatusInput, applied: boolean, generation: number, decided: { earlier: boolean; decision?: EventDecision }): TimelineEntry {
  const { earlier, decision } = decided;
  return {
    kind: 'courier_status',
    status: normaliseStatus(input.status),
    applied,
    source: input.source === 'webhook' ? 'courier' : 'reconcile',
    courierEventId: input.courierEventId ?? null,
    generation: earlier ? input.generation : generation,
    occurredAt: input.occurredAt,
    message: applied ? (decision!.apply && decision!.attention ? decision!.attention.message : null) : WHY_TEXT[earlier ? 'earlier_booking' : decision!.apply ? 'stale' : decision!.why],
  };
}

/**
 * Records one courier status on the delivery's timeline and applies it when it
 * moves the delivery forward. The rank guard in the UPDATE makes concurrent
 * events safe: a lower rank can never overwrite a higher one.
 */
export async function applyCourierStatus(
  tx: Tx, deliveryId: string, input: StatusInput, now: Date, known?: DeliveryRow, sync?: { queue: JobQueue; shopId?: string },
): Promise<boolean> {
  let decided: ReturnType<typeof decideStatus> = { earlier: false, plan: null };
  // The where names what the decision read, with the lifecycle's status guard: after a concurrent change the event is decided again.
  const r = await transitionLatest(tx, null, deliveryId, (d) => (decided = decideStatus(d, input, now)).plan, { known });
  if (!r.row) throw new Error(`delivery ${deliveryId} not found`);
  const applied = r.applied;
  if (!applied) await tx.delivery.update({ where: { id: deliveryId }, data: { lastEventAt: now }, select: { id: true } });
  // A read that reports the status we already hold is not news: no timeline line per reconcile pass.
  if (!applied && !decided.earlier && input.source === 'reconcile' && !decided.decision!.apply && decided.decision!.why === 'duplicate') return false;
  const line = statusLine(input, applied, r.row.generation, decided);
  // Applied with `sync`: the line and the fulfillment sync it calls for, together.
  if (applied && sync) await addEventAndSync(sync, tx, deliveryId, line, sync.shopId);
  else await addEvent(tx, deliveryId, line);
  return applied;
}

const LEARN_STATUSES = ['CREATED', 'IN_PROGRESS', 'CANCEL_REQUESTED_IN_SHOPIFY', 'NEEDS_ATTENTION'];

function lookupRef(ctx: AppContext, env: { shopId: string; environment: string }, ids: string[]): Promise<RefMatch | null> {
  return findRef(ctx.db, ctx.database.provider, env, ids);
}

/**
 * Reads up to `budget` of our bookings whose delivery id we have not learned
 * (newest first, only those whose backoff has expired) and stores the ids each
 * read reveals. Each read first claims the booking by moving its learnAfter, so
 * concurrent passes never read the same courier order twice. Returns the ids read.
 */
export async function learnCourierIds(ctx: AppContext, envId: string, budget: number, opts: { rematch?: boolean } = {}): Promise<{ read: string[]; learned: string[] }> {
  const learned: string[] = [];
  if (budget <= 0) return { read: [], learned };
  const env = await ctx.db.courierEnvironment.findUniqueOrThrow({ where: { id: envId }, include: { shop: true } });
  const now = ctx.now();
  const candidates = await ctx.db.delivery.findMany({
    where: {
      shopId: env.shopId,
      environment: env.environment,
      courierOrderId: { not: null },
      // A re-dispatched delivery holds an earlier generation's delivery id: it still has to learn its own (filtered below).
      AND: [{ OR: [{ refs: { none: { kind: 'delivery' } } }, { generation: { gt: 1 } }] }, { OR: [{ learnAfter: null }, { learnAfter: { lte: new Date(now) } }] }],
      status: { in: LEARN_STATUSES },
    },
    include: { refs: { where: { kind: 'delivery' }, select: { generation: true } } },
    orderBy: { dispatchedAt: 'desc' },
    take: budget * 2,
  }).then((rows) => rows.filter((d) => !d.refs.some((r) => r.generation === d.generation)).slice(0, budget));
  if (!candidates.length) return { read: [], learned };
  const client = ctx.courier.for(env.shop.domain, courierAccessFromRow(env, ctx.box, ctx.config.courierBaseUrls));
  const read: string[] = [];
  for (const d of candidates) {
    const claim = await ctx.db.delivery.updateMany({
      where: { id: d.id, learnAfter: d.learnAfter },
      data: { learnAfter: new Date(now + learnDelayMs(d.learnReads + 1)), learnReads: { increment: 1 } },
    });
    if (!claim.count) continue;
    read.push(d.courierOrderId!);
    let view;
    try {
      view = await client.getOrder(d.courierOrderId!);
    } catch (e) {
      ctx.log.warn({ deliveryId: d.id, err: errorMessage(e) }, 'could not read a courier order while matching an event');
      continue;
    }
    await addCourierRefs(ctx.db, d.id, env.shopId, env.environment, d.generation, [
      ['delivery', view.deliveryId],
      ['dispatch', view.dispatchId],
    ]);
    learned.push(...[view.deliveryId, view.dispatchId].filter((v): v is string => !!v));
  }
  // Events processed meanwhile could not read these orders (claimed here) and may have been left UNMATCHED.
  if (learned.length && opts.rematch !== false) await enqueueRematch(ctx, ctx.db, envId);
  return { read, learned };
}

export async function matchDelivery(ctx: AppContext, envId: string, ids: string[], readBudget = READS_PER_EVENT): Promise<{ deliveryId: string | null; read: string[] }> {
  const env = await ctx.db.courierEnvironment.findUniqueOrThrow({ where: { id: envId } });
  const known = await lookupRef(ctx, env, ids);
  if (known || readBudget <= 0) return { deliveryId: known?.deliveryId ?? null, read: [] };
  const { read } = await learnCourierIds(ctx, envId, readBudget);
  return { deliveryId: read.length ? ((await lookupRef(ctx, env, ids))?.deliveryId ?? null) : null, read };
}

function isMarkedTest(payload: string): boolean {
  try {
    return JSON.parse(payload)?.data?.test === true;
  } catch {
    return false;
  }
}

const readers = new WeakMap<AppContext['db'], EventReader>();
/** One reader per client: reads started together are one statement (event-sql.ts EventReader). */
const eventReader = (ctx: AppContext): EventReader => {
  let r = readers.get(ctx.db);
  if (!r) readers.set(ctx.db, (r = new EventReader(ctx.db, ctx.database.provider)));
  return r;
};

/**
 * `rematching`: called by a rematch pass, which must not queue another pass for what it leaves unmatched.
 * `running`: the courier-events job this is, completed with the event where it can be (lockedWithJob).
 */
export async function processCourierEvent(ctx: AppContext, job: CourierEventJobData, opts: { readBudget?: number; rematching?: boolean; running?: Job } = {}): Promise<void> {
  const ev = await eventReader(ctx).read(job.eventId);
  if (!ev || !['RECEIVED', 'UNMATCHED'].includes(ev.state)) return;
  const log = ctx.log.child({ courierEventId: ev.eventId, environmentId: ev.environmentId });
  const now = new Date(ctx.now());
  if (ev.type !== 'delivery.status.updated' || !ev.deliveryRef || !ev.status || isMarkedTest(ev.payload)) {
    await ctx.db.courierEvent.update({ where: { id: ev.id }, data: { state: isMarkedTest(ev.payload) ? 'TEST' : 'IGNORED', processedAt: now } });
    log.info({ type: ev.type }, 'courier event recorded; nothing to apply');
    return;
  }
  const ids = idsOfEvent(ev.payload, ev.deliveryRef);
  // The event's delivery id was looked up with it; other ids it names need findRef (it takes the newest generation of all).
  let ref = ids.length === 1 && ids[0] === ev.deliveryRef ? ev.deliveryRefMatch : await lookupRef(ctx, ev.environment, ids);
  let deliveryId = ref?.deliveryId ?? null;
  // The test webhook we asked for names no booking: recognise it before reading any courier order for it.
  if (!deliveryId && isRequestedTest({ eventId: ev.eventId, ids, receivedAt: ev.receivedAt.getTime() }, readTestWebhooks(ev.environment.testWebhooks))) {
    await ctx.db.courierEvent.update({ where: { id: ev.id }, data: { state: 'TEST', processedAt: now } });
    log.info('the courier test webhook we asked for; recorded, not applied');
    return;
  }
  let read: string[] = [];
  if (!deliveryId) ({ deliveryId, read } = await matchDelivery(ctx, ev.environmentId, ids, opts.readBudget ?? READS_PER_EVENT));
  if (!deliveryId) {
    const attempts = ev.attempts + 1;
    const tried = [...new Set([...(readTriedIds(ev.triedIds) ?? []), ...ids, ...read])].slice(-50);
    await ctx.db.courierEvent.update({
      where: { id: ev.id },
      data: {
        state: 'UNMATCHED', attempts, triedIds: writeTriedIds(tried),
        nextAttemptAt: new Date(now.getTime() + eventRetryDelayMs(attempts)),
        lastError: `no delivery has courier id ${ids.join(' or ')} yet`,
      },
    });
    // A concurrent event may have learned the id while we looked (its rematch runs after this write).
    ref = await lookupRef(ctx, ev.environment, ids);
    if (!ref) {
      log.warn({ deliveryRef: ev.deliveryRef }, 'courier event matches no delivery yet; kept UNMATCHED');
      // A booking storing this id right now checked for waiting events before this write was
      // visible: a pass shortly after it commits matches the event by the booking's fresh refs.
      if (!opts.rematching) await enqueueRematch(ctx, ctx.db, ev.environmentId, { startAfterMs: REMATCH_AFTER_UNMATCHED_MS, known: true });
      return;
    }
    deliveryId = ref.deliveryId;
  }
  // What this job already read is handed on: the event's columns never change after intake.
  const fromRead = ref === ev.deliveryRefMatch && ev.refDelivery?.id === deliveryId;
  await applyEvent(ctx, ev.id, deliveryId, now, {}, {
    event: ev, shopId: ev.environment.shopId, generation: ref?.deliveryId === deliveryId ? ref.generation : undefined, delivery: fromRead ? ev.refDelivery! : undefined,
    job: opts.running,
  });
}

/** What applying an event reads of it. */
type StoredEvent = Pick<EventToProcess, 'eventId' | 'deliveryRef' | 'payload' | 'status' | 'occurredAt' | 'receivedAt'>;

/**
 * Applies a stored event to a delivery, once. `known`: what the caller already read (the event row,
 * the delivery's shop, the generation of the ref that matched, the delivery's row before this
 * transaction), each saving a read on the hot path.
 */
export async function applyEvent(
  ctx: AppContext, eventRowId: string, deliveryId: string, now: Date, extra: { message?: string } = {},
  known: { event?: StoredEvent; shopId?: string; generation?: number; delivery?: DeliveryRow; job?: Job } = {},
): Promise<boolean> {
  if (!extra.message && known.event && known.delivery) {
    const once = await applyInOneStatement(ctx, eventRowId, deliveryId, now, known.event, known.delivery, known.generation, known.job);
    if (once) {
      ctx.queue.notify();
      return true;
    }
  }
  const applied = await ctx.db.$transaction(async (tx) => {
    // Claim first: the live path and a rematch pass may both reach one event; the row lock lets one win.
    if (!(await claimEvent(tx, ctx.database.provider, eventRowId, deliveryId, now))) return false;
    const ev = known.event ?? (await tx.courierEvent.findUniqueOrThrow({ where: { id: eventRowId } }));
    // Which booking the event is about: a re-dispatched order's earlier courier order may still report.
    const generation = known.generation
      ?? (ev.deliveryRef ? (await tx.courierRef.findFirst({ where: { deliveryId, value: { in: idsOfEvent(ev.payload, ev.deliveryRef) } }, orderBy: { generation: 'desc' }, select: { generation: true } }))?.generation : undefined);
    const ok = await applyCourierStatus(tx, deliveryId, webhookStatus(ev, generation), now, known.delivery, { queue: ctx.queue, shopId: known.shopId });
    if (extra.message) await addEvent(tx, deliveryId, { kind: 'event_attached', source: 'merchant', message: extra.message });
    return ok;
  });
  if (applied) ctx.queue.notify();
  return applied;
}

const webhookStatus = (ev: StoredEvent, generation?: number): StatusInput =>
  ({ status: ev.status!, occurredAt: ev.occurredAt ?? ev.receivedAt, source: 'webhook', courierEventId: ev.eventId, generation });

/**
 * The common case (an event that moves the delivery on, from the row the job read): the claim, the
 * delivery's update, the timeline line and its fulfillment sync job without an interactive
 * transaction (issue 24). PostgreSQL: ONE statement, not BEGIN, four or five statements and COMMIT,
 * each a round trip. SQLite: the same statements back to back under the connection's lock, not
 * Prisma's transaction (its hops and bookkeeping cost more than the statements). True: applied;
 * null: not done here (a change with effects, a shop that uses the Flow trigger it fires, a claimed
 * event, a row changed since it was read), and the caller uses the transaction, which tells those apart.
 */
async function applyInOneStatement(
  ctx: AppContext, eventRowId: string, deliveryId: string, now: Date, ev: StoredEvent, d: DeliveryRow, generation: number | undefined, running?: Job,
): Promise<true | null> {
  const provider = ctx.database.provider;
  if (d.id !== deliveryId) return null;
  const input = webhookStatus(ev, generation);
  const decided = decideStatus(d, input, now);
  const p = decided.plan && planned(d, decided.plan);
  // Only a plain update: effects or a protected field go through the transaction; Flow triggers where the shop uses them.
  if (!p || !('write' in p) || !p.write || p.decision.row.effects.length || !writableRaw('Delivery', p.write.where, p.write.set)) return null;
  const { triggers } = p;
  const claim = claimStatement(provider, eventRowId, deliveryId, now);
  const update = updateStatement(provider, 'Delivery', p.write.where, p.write.set, Date.now());
  const unless = triggers.length ? (from: number) => noFlowUsage(from, d.shopId, triggers) : undefined;
  const line = (when?: string) => timelineInsert(provider, deliveryId, statusLine(input, true, d.generation, decided), when);
  const job = [JOBS.fulfillmentSync, { deliveryId }, syncOptions({ group: d.shopId })] as const;
  if (provider === 'sqlite') return ctx.queue.lockedWithJob<DeliveryJobData>(lockedEventSteps(claim, update, line(), unless), ...job, running);
  const row = appliedEventStatement(claim, update, line, unless);
  try {
    return (await ctx.queue.oneStatementWithJob<DeliveryJobData>(ctx.db, row, ...job)) || null;
  } catch (e) {
    if (sqlStateOf(e) === STALE_ROW_SQLSTATE) return null;
    throw e;
  }
}

export interface RematchReport {
  matched: number;
  tried: number;
  reads: number;
}

/**
 * Matches again the UNMATCHED events of one environment, fairly and within a budget:
 * 1. events naming an id of a recent booking (by value: backlog size does not matter);
 * 2. courier orders whose delivery id is unknown are read (at most READS_PER_PASS, each
 *    at most once per its backoff) and events naming what they reveal are matched;
 * 3. events whose own backoff has expired are looked up once more (no courier reads).
 */
export async function rematchEvents(ctx: AppContext, job: RematchJobData, opts: { reads?: number; events?: number } = {}): Promise<RematchReport> {
  const env = await ctx.db.courierEnvironment.findUnique({ where: { id: job.environmentId } });
  if (!env) return { matched: 0, tried: 0, reads: 0 };
  const now = ctx.now();
  const report: RematchReport = { matched: 0, tried: 0, reads: 0 };
  const matchByValues = async (values: string[]) => {
    for (let i = 0; i < values.length; i += 500) {
      const events = await ctx.db.courierEvent.findMany({ where: { environmentId: env.id, state: 'UNMATCHED', deliveryRef: { in: values.slice(i, i + 500) } }, select: { id: true } });
      for (const e of events) {
        report.tried++;
        await processCourierEvent(ctx, { eventId: e.id }, { readBudget: 0, rematching: true });
        if ((await ctx.db.courierEvent.count({ where: { id: e.id, state: 'PROCESSED' } })) > 0) report.matched++;
      }
    }
  };
  if (!(await ctx.db.courierEvent.count({ where: { environmentId: env.id, state: 'UNMATCHED' } }))) return report;
  const recent = await ctx.db.courierRef.findMany({
    where: { shopId: env.shopId, environment: env.environment, createdAt: { gte: new Date(now - RECENT_REFS_MS) } },
    select: { value: true },
    orderBy: { createdAt: 'desc' },
    take: 2_000,
  });
  await matchByValues(recent.map((r) => r.value));
  const { read, learned } = await learnCourierIds(ctx, env.id, opts.reads ?? READS_PER_PASS, { rematch: false });
  report.reads = read.length;
  await matchByValues(learned);
  const due = await ctx.db.courierEvent.findMany({
    where: {
      environmentId: env.id, state: 'UNMATCHED', receivedAt: { gt: new Date(now - RETRY_FOR_MS) },
      OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: new Date(now) } }],
    },
    orderBy: [{ nextAttemptAt: 'asc' }, { receivedAt: 'desc' }],
    take: opts.events ?? EVENTS_PER_PASS,
    select: { id: true },
  });
  for (const e of due) {
    report.tried++;
    await processCourierEvent(ctx, { eventId: e.id }, { readBudget: 0, rematching: true });
    if ((await ctx.db.courierEvent.count({ where: { id: e.id, state: 'PROCESSED' } })) > 0) report.matched++;
  }
  return report;
}

/** How long after an event is kept UNMATCHED a rematch pass looks again (a booking in flight has committed by then). */
export const REMATCH_AFTER_UNMATCHED_MS = 2_000;

/**
 * Queues a rematch pass for the environment if events wait (`known`: the caller just kept one).
 * A singleton key alone loses a wake-up: a pass already running may have read the events
 * before this one was kept. So a second key lets one more pass wait behind the running one.
 */
export async function enqueueRematch(ctx: AppContext, tx: Tx, environmentId: string, opts: { startAfterMs?: number; known?: boolean } = {}): Promise<void> {
  if (!opts.known) {
    // Runs after every booking: one raw EXISTS, not a compiled COUNT (issue 18).
    const pending = await tx.$queryRaw<unknown[]>`SELECT 1 AS "one" FROM "CourierEvent" WHERE "environmentId" = ${environmentId} AND "state" = 'UNMATCHED' LIMIT 1`;
    if (!pending.length) return;
  }
  for (const key of [`rematch:${environmentId}`, `rematch-next:${environmentId}`]) {
    if (await ctx.queue.enqueue<RematchJobData>(tx, JOBS.rematch, { environmentId }, { singletonKey: key, startAfterMs: opts.startAfterMs })) return;
  }
}
