// The courier event worker: applies stored courier events (state RECEIVED, written
// by webhook-route.ts in one insert) many per transaction (issue 24). A job per
// event cost a job insert, claim and settlement (three transactions) and about ten
// Prisma queries; a batch costs a few raw reads and, per event, the delivery's
// conditional update, its timeline line and one raw state update.
//
//   RECEIVED ──batch──▶ PROCESSED / IGNORED / TEST          (matched by a CourierRef we hold)
//            └────────▶ MATCHING ──`courier-events` job──▶ PROCESSED / UNMATCHED
//                        (no ref yet: matching may read courier orders, never inside a batch)
//
// Order per delivery (environment, deliveryRef): a batch applies its events oldest
// first, one after the other. An event waits while an earlier one of its delivery is
// RECEIVED outside the batch (another instance holds it, PostgreSQL), and is handed to
// the ordered job too while one is MATCHING, behind it under the same ordering key.
// Exactly once: each event is claimed by a conditional UPDATE on its state in the
// transaction that applies it. A kill -9 loses nothing: the row stays RECEIVED until
// the transaction that applies it commits, and the next process drains it.
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { dbTime, sql, type Provider } from '../inbox/sql.ts';
import { JOBS, type CourierEventJobData } from '../jobs/names.ts';
import { enqueueSync } from '../transitions/effects.ts';
import { addEvents, type TimelineEntry } from '../transitions/timeline.ts';
import type { DeliveryRow } from '../transitions/transition.ts';
import { errorMessage } from '../ops/errors.ts';
import { PassRunner } from '../ops/passes.ts';
import { readTestWebhooks } from '../db/json-columns.ts';
import { applyCourierStatus } from './events.ts';
import { courierEventOrderingKey } from './jobs.ts';
import { idsOfEvent, isRequestedTest } from './rematch-policy.ts';

export interface CourierEventWorkerOptions {
  /** Events claimed per transaction (default 200). */
  batchSize?: number;
  /** Stop adding events to a batch after this long, so intake waits little for SQLite's writer (default 50 ms). */
  batchMs?: number;
  /** How often an idle worker looks for events (default 250 ms); notify() wakes it at once. */
  pollIntervalMs?: number;
}

interface EventRow {
  id: string;
  environmentId: string;
  eventId: string;
  type: string;
  deliveryRef: string | null;
  status: string | null;
  occurredAt: string | Date | null;
  receivedAt: string | Date;
  payload: string;
}

interface EnvRow { id: string; shopId: string; environment: string; testWebhooks: string | null }
interface RefRow { deliveryId: string; value: string; generation: number | bigint }

const TX = { maxWait: 15_000, timeout: 60_000 };

function claimSql(p: Provider): string {
  return sql(p, `SELECT "id", "environmentId", "eventId", "type", "deliveryRef", "status", "occurredAt", "receivedAt", "payload" FROM "CourierEvent"
    WHERE "state" = 'RECEIVED' ORDER BY "receivedAt", "id" LIMIT $1${p === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`);
}

/** Events that hold back later ones of their delivery: MATCHING ones, and (PostgreSQL) RECEIVED ones another instance holds. */
function blockersSql(p: Provider, refs: number): string {
  const list = Array.from({ length: refs }, (_, i) => `$${i + 2}`).join(', ');
  return sql(p, `SELECT "id", "environmentId", "deliveryRef", "state", "receivedAt" FROM "CourierEvent"
    WHERE "deliveryRef" IN (${list}) AND ("state" = 'MATCHING' OR ("state" = 'RECEIVED' AND "receivedAt" <= $1::timestamp(3)))`);
}

/** The claim: only a RECEIVED event moves, so a job of an earlier version that got there first wins. */
function settleSql(p: Provider): string {
  return sql(p, `UPDATE "CourierEvent" SET "state" = $1, "deliveryId" = $2, "processedAt" = $3::timestamp(3), "attempts" = "attempts" + 1, "lastError" = NULL, "nextAttemptAt" = NULL
    WHERE "id" = $4 AND "state" = 'RECEIVED'`);
}

function toMs(v: string | Date): number {
  return v instanceof Date ? v.getTime() : Date.parse(v.includes('T') || v.endsWith('Z') || /[+-]\d\d:\d\d$/.test(v) ? v : `${v.replace(' ', 'T')}Z`);
}

function isMarkedTest(payload: string): boolean {
  try {
    return JSON.parse(payload)?.data?.test === true;
  } catch {
    return false;
  }
}

const keyOf = (e: { environmentId: string; deliveryRef: string | null; id: string }) => courierEventOrderingKey(e.environmentId, e.deliveryRef, e.id);

export class CourierEventWorker extends PassRunner {
  readonly #ctx: AppContext;
  readonly #batchSize: number;
  /** Events claimed next: shrinks to what the last batch got through in batchMs, so its reads stay in proportion. */
  #take: number;
  readonly #batchMs: number;

  constructor(ctx: AppContext, opts: CourierEventWorkerOptions = {}) {
    super(opts.pollIntervalMs ?? 250);
    this.#ctx = ctx;
    this.#batchSize = opts.batchSize ?? 200;
    this.#take = this.#batchSize;
    this.#batchMs = opts.batchMs ?? 50;
  }

  get #provider(): Provider {
    return this.#ctx.database.provider;
  }

  protected async pass(): Promise<void> {
    try {
      for (;;) {
        const { claimed, done } = await this.drainOnce();
        // Nothing moved (all held back by another instance): wait for the next poll rather than spin.
        if (!this.running || claimed === 0 || done === 0) break;
        await new Promise((r) => setImmediate(r)); // requests waiting for I/O get in between batches
      }
    } catch (e) {
      this.#ctx.log.warn({ err: errorMessage(e) }, 'courier event pass failed; retrying at the next poll');
    }
  }

  /** One batch in one transaction; after a failure its events run one per transaction. */
  async drainOnce(): Promise<{ claimed: number; done: number }> {
    const now = this.#ctx.now();
    let claimed: EventRow[] = [];
    let r = { done: 0, queued: false };
    try {
      r = await this.#ctx.db.$transaction(async (tx) => {
        claimed = await tx.$queryRawUnsafe<EventRow[]>(claimSql(this.#provider), this.#take);
        return this.#apply(tx, claimed, now, true);
      }, TX);
    } catch (e) {
      if (!claimed.length) throw e;
      this.#ctx.log.info({ err: errorMessage(e), events: claimed.length }, 'courier event batch rolled back; applying its events one by one');
      r = { done: 0, queued: false };
      for (const ev of claimed) {
        const one = await this.#one(ev, now);
        r.done += one.done;
        r.queued ||= one.queued;
      }
    }
    if (r.queued) this.#ctx.queue.notify();
    return { claimed: claimed.length, done: r.done };
  }

  async #one(ev: EventRow, now: number): Promise<{ done: number; queued: boolean }> {
    try {
      return await this.#ctx.db.$transaction((tx) => this.#apply(tx, [ev], now, true), TX);
    } catch (e) {
      // Whatever this event trips on, the job path retries it with backoff and leaves it UNMATCHED at worst.
      this.#ctx.log.warn({ courierEventId: ev.eventId, err: errorMessage(e) }, 'courier event could not be applied in a batch; handed to its job');
      return this.#ctx.db.$transaction((tx) => this.#apply(tx, [ev], now, false), TX);
    }
  }

  /** Applies `events` (oldest first) in `tx`; `inline` false hands every one of them to the job path. */
  async #apply(tx: Tx, events: EventRow[], now: number, inline: boolean): Promise<{ done: number; queued: boolean }> {
    if (!events.length) return { done: 0, queued: false };
    const p = this.#provider;
    const at = dbTime(p, now);
    const nowDate = new Date(now);
    // What holds a delivery's later events back (see the file's head).
    const inBatch = new Set(events.map((e) => e.id));
    const lastMs = Math.max(...events.map((e) => toMs(e.receivedAt)));
    const refsOfBatch = [...new Set(events.map((e) => e.deliveryRef).filter((v): v is string => !!v))];
    const blockers = refsOfBatch.length ? await tx.$queryRawUnsafe<Array<EventRow & { state: string }>>(blockersSql(p, refsOfBatch.length), dbTime(p, lastMs), ...refsOfBatch) : [];
    const matching = new Set<string>();
    const heldElsewhere = new Map<string, number>(); // key → earliest receivedAt of a RECEIVED event outside the batch
    for (const b of blockers) {
      if (inBatch.has(b.id)) continue;
      const k = keyOf(b);
      if (b.state === 'MATCHING') matching.add(k);
      else heldElsewhere.set(k, Math.min(heldElsewhere.get(k) ?? Infinity, toMs(b.receivedAt)));
    }
    // The environments and the refs the batch names, one statement each per environment.
    const envIds = [...new Set(events.map((e) => e.environmentId))];
    const envs = new Map((await tx.$queryRawUnsafe<EnvRow[]>(
      sql(p, `SELECT "id", "shopId", "environment", "testWebhooks" FROM "CourierEnvironment" WHERE "id" IN (${envIds.map((_, i) => `$${i + 1}`).join(', ')})`), ...envIds,
    )).map((e) => [e.id, e]));
    const idsOf = new Map(events.map((e) => [e.id, e.deliveryRef ? idsOfEvent(e.payload, e.deliveryRef) : []]));
    const refs = new Map<string, RefRow[]>(); // environmentId + value → refs
    for (const env of envs.values()) {
      const values = [...new Set(events.filter((e) => e.environmentId === env.id).flatMap((e) => idsOf.get(e.id)!))];
      for (let i = 0; i < values.length; i += 500) {
        const chunk = values.slice(i, i + 500);
        const rows = await tx.$queryRawUnsafe<RefRow[]>(
          sql(p, `SELECT "deliveryId", "value", "generation" FROM "CourierRef" WHERE "shopId" = $1 AND "environment" = $2 AND "value" IN (${chunk.map((_, j) => `$${j + 3}`).join(', ')})`),
          env.shopId, env.environment, ...chunk,
        );
        for (const r of rows) refs.set(`${env.id}\u0000${r.value}`, [...(refs.get(`${env.id}\u0000${r.value}`) ?? []), r]);
      }
    }
    const refFor = (e: EventRow): RefRow | null => {
      let best: RefRow | null = null;
      for (const v of idsOf.get(e.id)!) for (const r of refs.get(`${e.environmentId}\u0000${v}`) ?? []) if (!best || Number(r.generation) > Number(best.generation)) best = r;
      return best;
    };
    // The deliveries the batch will apply to, read once (each read again only after a concurrent change).
    const deliveryIds = [...new Set(events.map((e) => refFor(e)?.deliveryId).filter((v): v is string => !!v))];
    const known = new Map<string, DeliveryRow>(deliveryIds.length ? (await tx.delivery.findMany({ where: { id: { in: deliveryIds } } })).map((d) => [d.id, d as DeliveryRow]) : []);

    const settle = settleSql(p);
    const lines: Array<{ deliveryId: string; entry: TimelineEntry }> = [];
    const record = (deliveryId: string, entry: TimelineEntry) => void lines.push({ deliveryId, entry });
    const synced = new Set<string>();
    let done = 0;
    let queued = false;
    let cut = false;
    const started = performance.now();
    for (const e of events) {
      if (done && performance.now() - started > this.#batchMs) {
        this.#take = Math.max(10, Math.ceil(done * 1.5)); // the rest stays RECEIVED for the next, smaller batch
        cut = true;
        break;
      }
      const k = keyOf(e);
      const held = heldElsewhere.get(k);
      if (held !== undefined && held <= toMs(e.receivedAt)) continue; // an earlier one is another instance's: after it
      const log = () => this.#ctx.log.child({ courierEventId: e.eventId, environmentId: e.environmentId });
      if (e.type !== 'delivery.status.updated' || !e.deliveryRef || !e.status || isMarkedTest(e.payload)) {
        const state = isMarkedTest(e.payload) ? 'TEST' : 'IGNORED';
        if (await tx.$executeRawUnsafe(settle, state, null, at, e.id)) log().info({ type: e.type }, 'courier event recorded; nothing to apply');
        done++;
        continue;
      }
      const ref = inline && !matching.has(k) ? refFor(e) : null;
      if (!ref) {
        const env = envs.get(e.environmentId);
        if (inline && !matching.has(k) && env && isRequestedTest({ eventId: e.eventId, ids: idsOf.get(e.id)!, receivedAt: toMs(e.receivedAt) }, readTestWebhooks(env.testWebhooks))) {
          if (await tx.$executeRawUnsafe(settle, 'TEST', null, at, e.id)) log().info('the courier test webhook we asked for; recorded, not applied');
          done++;
          continue;
        }
        // No delivery known by these ids (or an earlier event of it is being matched): the ordered job matches it.
        const moved = await tx.$executeRawUnsafe(sql(p, `UPDATE "CourierEvent" SET "state" = 'MATCHING' WHERE "id" = $1 AND "state" = 'RECEIVED'`), e.id);
        if (moved) await this.#ctx.queue.enqueue<CourierEventJobData>(tx, JOBS.courierEvents, { eventId: e.id }, { orderingKey: k });
        matching.add(k);
        queued = true;
        done++;
        continue;
      }
      if (!(await tx.$executeRawUnsafe(settle, 'PROCESSED', ref.deliveryId, at, e.id))) continue;
      const row = known.get(ref.deliveryId);
      known.delete(ref.deliveryId); // changed below: a later event of it reads it again
      const applied = await applyCourierStatus(tx, ref.deliveryId, {
        status: e.status, occurredAt: e.occurredAt ? new Date(toMs(e.occurredAt)) : new Date(toMs(e.receivedAt)), source: 'webhook', courierEventId: e.eventId, generation: Number(ref.generation),
      }, nowDate, { known: row, record });
      if (applied && !synced.has(ref.deliveryId)) {
        synced.add(ref.deliveryId);
        await enqueueSync(this.#ctx, tx, ref.deliveryId);
        queued = true;
      }
      done++;
    }
    if (!cut) this.#take = Math.min(this.#batchSize, this.#take * 2);
    await addEvents(tx, lines);
    return { done, queued };
  }
}
