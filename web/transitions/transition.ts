// Performs what web/lifecycle/machine.ts decides. Every status change of a Delivery goes
// through here (intake creates through createDelivery; the rest through
// transition / transitionLatest / merchantTransition).
//
// Guarantees:
// - A change is ONE conditional UPDATE: where id, generation and the status the
//   decision was made on (plus any extra condition the caller adds, e.g. a rank
//   guard). A concurrent change makes it match nothing, and nothing is written.
//   It and transitionLatest's read are raw SQL (web/db/raw-rows.ts, issue 24) unless
//   the plan writes a protected field without the SecretBox (then Prisma's extension seals it).
// - The timeline entry and the effects' jobs are written in the same
//   transaction, and only when the update matched.
// - An illegal (state, event) pair writes nothing: background callers get
//   `applied: false`, merchant actions an ActionError naming the allowed states.
// - transitionLatest re-reads and decides again after a concurrent change, so
//   a background fact (a courier answer, a cancellation) is never dropped.
import type { Tx } from '../db/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { decide, factsOf, flowTriggersOf, type CurrentRow, type Decision, type DeliveryStatus, type Facts, type LifecycleEvent, type MerchantAction } from '../lifecycle/machine.ts';
import { runEffects } from './effects.ts';
import { addEvent, type TimelineEntry } from './timeline.ts';
import { recordFlowTriggers } from './flow-outbox.ts';
import { readRow, updateRows, writableRaw, type OpenDeliveryRow } from '../db/raw-rows.ts';
import type { SecretBox } from '../security/crypto.ts';

/** A merchant action refused (409 unless said), or a delivery not found (404). */
export class ActionError extends Error {
  readonly status: number;
  constructor(message: string, status = 409) {
    super(message);
    this.status = status;
  }
}

export interface Plan {
  event: LifecycleEvent;
  /** Fields written together with the status. */
  data?: Record<string, unknown>;
  /** Conditions beyond id, generation and status. */
  where?: Record<string, unknown>;
  timeline?: TimelineEntry | null;
  facts?: Partial<Facts>;
  /** The generation the effects' jobs belong to, when the change starts a new one. */
  generation?: number;
  /** Seals the protected fields data writes, so the update stays one raw statement (else Prisma's extension seals them). */
  box?: SecretBox;
}

export type Outcome =
  | { applied: true; to: DeliveryStatus; decision: Extract<Decision, { ok: true }> }
  | { applied: false; conflict: boolean; decision: Decision | null };

/** What `plan` does to row `d`, decided (pure): the conditional update (null: nothing to write) and the Flow triggers. */
export function planned(d: CurrentRow, plan: Plan):
  | { decision: Extract<Decision, { ok: false }> }
  | { decision: Extract<Decision, { ok: true }>; write: { where: Record<string, unknown>; set: Record<string, unknown> } | null; triggers: ReturnType<typeof flowTriggersOf> } {
  const facts = factsOf(d, plan.facts);
  const decision = decide(facts, plan.event);
  if (!decision.ok) return { decision };
  const data = plan.data ?? {};
  // Nothing to write (e.g. a cancellation of a delivered order): only the timeline records it.
  const write = decision.to !== d.status || Object.keys(data).length > 0
    ? { where: { ...plan.where, id: d.id, generation: d.generation, status: d.status }, set: { ...data, status: decision.to } }
    : null;
  return { decision, write, triggers: flowTriggersOf(facts, plan.event, decision.to) };
}

export async function transition(tx: Tx, queue: JobQueue | null, d: CurrentRow, plan: Plan): Promise<Outcome> {
  const p = planned(d, plan);
  const { decision } = p;
  if (!decision.ok || !('write' in p)) return { applied: false, conflict: false, decision };
  if (p.write) {
    const { where, set } = p.write;
    const n = plan.box || writableRaw('Delivery', where, set) ? await updateRows(tx, 'Delivery', where, set, plan.box) : (await tx.delivery.updateMany({ where, data: set })).count;
    if (n !== 1) return { applied: false, conflict: true, decision };
  }
  if (plan.timeline) await addEvent(tx, d.id, plan.timeline);
  await runEffects(tx, queue, decision.row.effects, d.id, plan.generation ?? d.generation, d.shopId);
  // Shopify Flow triggers: an outbox row per trigger, in this transaction (flow-outbox.ts).
  if (p.triggers.length) await recordFlowTriggers(tx, d.id, p.triggers);
  return { applied: true, to: decision.to, decision };
}

/** The delivery as transitionLatest reads it: every column but the protected personal data. */
export type DeliveryRow = OpenDeliveryRow;
/** The whole delivery, personal data opened (Prisma's extension): for plans that decide on the order itself. */
export type FullDeliveryRow = NonNullable<Awaited<ReturnType<Tx['delivery']['findUnique']>>>;
export const readFullDelivery = (tx: Tx, id: string): Promise<FullDeliveryRow | null> => tx.delivery.findUnique({ where: { id } });
const readOpenDelivery = (tx: Tx, id: string) => readRow(tx, 'Delivery', id);

export interface LatestOptions<R> {
  /** Reads and decisions before giving up on a row that keeps changing. */
  attempts?: number;
  /**
   * The row as this job last wrote it, tried first to save the read. Only for plans that put every
   * field they decide on (beyond id, generation and status) into `where` and always write data: a
   * stale row then matches nothing and costs a read, as a concurrent change does.
   */
  known?: R;
  /** How the row is read: by default its open columns, one raw statement; readFullDelivery for the order itself. */
  read?: (tx: Tx, id: string) => Promise<R | null>;
}

/**
 * Reads the delivery, lets `plan` decide on what it holds now (null: nothing to
 * do), and performs it; after a concurrent change, reads and decides again.
 */
export async function transitionLatest<R extends CurrentRow = DeliveryRow>(
  tx: Tx, queue: JobQueue | null, deliveryId: string, plan: (d: R) => Plan | null, opts: LatestOptions<R> = {},
): Promise<Outcome & { row: R | null }> {
  const { attempts = 5, known } = opts;
  const read = (opts.read ?? readOpenDelivery) as (tx: Tx, id: string) => Promise<R | null>;
  if (known) {
    const p = plan(known);
    if (p && p.where && Object.keys(p.data ?? {}).length > 0) {
      const r = await transition(tx, queue, known, p);
      if (r.applied) return { ...r, row: known };
    }
  }
  for (let i = 0; i < attempts; i++) {
    const row = await read(tx, deliveryId);
    const p = row ? plan(row) : null;
    if (!row || !p) return { applied: false, conflict: false, decision: null, row };
    const r = await transition(tx, queue, row, p);
    if (r.applied || !r.conflict) return { ...r, row };
  }
  throw new Error(`delivery ${deliveryId} kept changing; try again`);
}

/** A merchant action on a delivery already read: refused or lost to a concurrent change, it throws ActionError. */
export async function merchantTransition(tx: Tx, queue: JobQueue, d: CurrentRow, plan: Plan & { event: MerchantAction }): Promise<DeliveryStatus> {
  const r = await transition(tx, queue, d, plan);
  if (r.applied) return r.to;
  if (r.decision && !r.decision.ok) throw new ActionError(r.decision.message);
  throw new ActionError('the delivery changed meanwhile; reload and try again');
}

/** A new delivery: its first status comes from the table like every other. */
export async function createDelivery<T extends { id: string; shopId?: string }>(
  tx: Tx, queue: JobQueue | null, event: 'received' | 'received_skipped' | 'recorded_by_merchant',
  create: (status: DeliveryStatus) => Promise<T>,
): Promise<T> {
  const decision = decide({ status: 'NEW' }, event);
  if (!decision.ok) throw new Error(decision.message);
  const row = await create(decision.to);
  await runEffects(tx, queue, decision.row.effects, row.id, 1, row.shopId);
  return row;
}
