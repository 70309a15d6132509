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
// Order per delivery: one delivery's events may name different courier ids (order, dispatch,
// delivery, ids learned later), so holds are keyed by the delivery the refs resolve to, and an
// event no ref resolves yet holds every event of its environment whose delivery could still turn
// out to be its own (one whose delivery id we have not learned). A held event either waits
// (an earlier one is RECEIVED in another instance, PostgreSQL) or goes to the ordered job behind
// the earlier one (it is MATCHING, or UNMATCHED and named by the delivery's refs): MATCHING
// jobs share one ordering key per environment, and the job drains its environment's MATCHING
// events oldest first (jobs enqueued in one transaction run in any order on pg-boss).
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
import { courierMatchingKey } from './jobs.ts';
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

/** Events that may hold back later ones: MATCHING ones, and (PostgreSQL) RECEIVED ones another instance holds. */
function blockersSql(p: Provider, envs: number): string {
  const list = Array.from({ length: envs }, (_, i) => `$${i + 2}`).join(', ');
  return sql(p, `SELECT "id", "environmentId", "deliveryRef", "payload", "state", "receivedAt" FROM "CourierEvent"
    WHERE ("state" = 'MATCHING' OR ("state" = 'RECEIVED' AND "receivedAt" <= $1::timestamp(3))) AND "environmentId" IN (${list})`); // SQLite binds in text order
}

/** UNMATCHED events named by a ref of these deliveries: matched again later, so a later event of the delivery waits behind them. */
function unmatchedOfSql(p: Provider, deliveries: number): string {
  const list = Array.from({ length: deliveries }, (_, i) => `$${i + 1}`).join(', ');
  return sql(p, `SELECT c."id", c."receivedAt", r."deliveryId" FROM "CourierEvent" c
    JOIN "CourierEnvironment" e ON e."id" = c."environmentId"
    JOIN "CourierRef" r ON r."value" = c."deliveryRef" AND r."shopId" = e."shopId" AND r."environment" = e."environment"
    WHERE c."state" = 'UNMATCHED' AND r."deliveryId" IN (${list})`);
}

/** Deliveries whose delivery id of their current booking we hold: an unknown id cannot be theirs (matching learns only the others'). */
function completeSql(p: Provider, deliveries: number): string {
  const list = Array.from({ length: deliveries }, (_, i) => `$${i + 1}`).join(', ');
  return sql(p, `SELECT d."id" FROM "Delivery" d JOIN "CourierRef" r ON r."deliveryId" = d."id" AND r."kind" = 'delivery' AND r."generation" = d."generation"
    WHERE d."id" IN (${list})`);
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

/** A place in arrival order (the claim's order). */
interface Place { ms: number; id: string }
const before = (a: Place, b: Place) => a.ms < b.ms || (a.ms === b.ms && a.id < b.id);
/** Keeps the earliest place per key. */
function hold(m: Map<string, Place>, key: string, at: Place): void {
  const cur = m.get(key);
  if (!cur || before(at, cur)) m.set(key, at);
}
const heldBefore = (m: Map<string, Place>, key: string, at: Place) => {
  const h = m.get(key);
  return !!h && before(h, at);
};

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
    const inBatch = new Set(events.map((e) => e.id));
    const lastMs = Math.max(...events.map((e) => toMs(e.receivedAt)));
    // The environments, and the events outside the batch that may hold the batch's back (see the file's head).
    const envIds = [...new Set(events.map((e) => e.environmentId))];
    const envs = new Map((await tx.$queryRawUnsafe<EnvRow[]>(
      sql(p, `SELECT "id", "shopId", "environment", "testWebhooks" FROM "CourierEnvironment" WHERE "id" IN (${envIds.map((_, i) => `$${i + 1}`).join(', ')})`), ...envIds,
    )).map((e) => [e.id, e]));
    const blockers = (await tx.$queryRawUnsafe<Array<EventRow & { state: string }>>(blockersSql(p, envIds.length), dbTime(p, lastMs), ...envIds)).filter((b) => !inBatch.has(b.id));
    // The refs the batch and its blockers name, one statement per environment.
    const idsOf = new Map([...events, ...blockers].map((e) => [e.id, e.deliveryRef ? idsOfEvent(e.payload, e.deliveryRef) : []]));
    const refs = new Map<string, RefRow[]>(); // environmentId + value → refs
    for (const env of envs.values()) {
      const values = [...new Set([...events, ...blockers].filter((e) => e.environmentId === env.id).flatMap((e) => idsOf.get(e.id)!))];
      for (let i = 0; i < values.length; i += 500) {
        const chunk = values.slice(i, i + 500);
        const rows = await tx.$queryRawUnsafe<RefRow[]>(
          sql(p, `SELECT "deliveryId", "value", "generation" FROM "CourierRef" WHERE "shopId" = $1 AND "environment" = $2 AND "value" IN (${chunk.map((_, j) => `$${j + 3}`).join(', ')})`),
          env.shopId, env.environment, ...chunk,
        );
        for (const r of rows) refs.set(`${env.id}\u0000${r.value}`, [...(refs.get(`${env.id}\u0000${r.value}`) ?? []), r]);
      }
    }
    const refFor = (e: { id: string; environmentId: string }): RefRow | null => {
      let best: RefRow | null = null;
      for (const v of idsOf.get(e.id)!) for (const r of refs.get(`${e.environmentId}\u0000${v}`) ?? []) if (!best || Number(r.generation) > Number(best.generation)) best = r;
      return best;
    };
    // The deliveries the batch will apply to, read once (each read again only after a concurrent change).
    const deliveryIds = [...new Set(events.map((e) => refFor(e)?.deliveryId).filter((v): v is string => !!v))];
    const known = new Map<string, DeliveryRow>(deliveryIds.length ? (await tx.delivery.findMany({ where: { id: { in: deliveryIds } } })).map((d) => [d.id, d as DeliveryRow]) : []);
    const complete = new Set(deliveryIds.length ? (await tx.$queryRawUnsafe<Array<{ id: string }>>(completeSql(p, deliveryIds.length), ...deliveryIds)).map((r) => r.id) : []);
    // Holds, by delivery (`d:` id) or, for an event no ref resolves, by environment (`u:` id): to the job behind, or wait.
    const toJob = new Map<string, Place>();
    const wait = new Map<string, Place>();
    const waitEnv = new Map<string, Place>(); // any event waiting elsewhere: an unresolved one may be of its delivery
    for (const b of blockers) {
      const place = b.state === 'MATCHING' ? { ms: -Infinity, id: '' } : { ms: toMs(b.receivedAt), id: b.id };
      const d = refFor(b)?.deliveryId;
      const key = d ? `d:${d}` : `u:${b.environmentId}`;
      hold(b.state === 'MATCHING' ? toJob : wait, key, place);
      if (b.state !== 'MATCHING') hold(waitEnv, b.environmentId, place);
    }
    if (deliveryIds.length) {
      for (const u of await tx.$queryRawUnsafe<Array<{ id: string; receivedAt: string | Date; deliveryId: string }>>(unmatchedOfSql(p, deliveryIds.length), ...deliveryIds)) {
        hold(toJob, `d:${u.deliveryId}`, { ms: toMs(u.receivedAt), id: u.id });
      }
    }

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
      const place = { ms: toMs(e.receivedAt), id: e.id };
      const log = () => this.#ctx.log.child({ courierEventId: e.eventId, environmentId: e.environmentId });
      if (e.type !== 'delivery.status.updated' || !e.deliveryRef || !e.status || isMarkedTest(e.payload)) {
        const state = isMarkedTest(e.payload) ? 'TEST' : 'IGNORED';
        if (await tx.$executeRawUnsafe(settle, state, null, at, e.id)) log().info({ type: e.type }, 'courier event recorded; nothing to apply');
        done++;
        continue;
      }
      const ref = refFor(e);
      const d = ref?.deliveryId;
      // Could an earlier event not resolved yet be of this delivery? Only if we have not learned the delivery's id.
      const open = !d || !complete.has(d);
      const own = d ? `d:${d}` : null;
      const unresolved = `u:${e.environmentId}`;
      if (d ? heldBefore(wait, own!, place) || (open && heldBefore(wait, unresolved, place)) : heldBefore(waitEnv, e.environmentId, place)) {
        // After the other instance's; what comes after this one waits too.
        hold(wait, own ?? unresolved, place);
        hold(waitEnv, e.environmentId, place);
        continue;
      }
      const behind = !inline || (own !== null && heldBefore(toJob, own, place)) || (open && heldBefore(toJob, unresolved, place));
      if (!ref || behind) {
        const env = envs.get(e.environmentId);
        if (!ref && inline && env && isRequestedTest({ eventId: e.eventId, ids: idsOf.get(e.id)!, receivedAt: place.ms }, readTestWebhooks(env.testWebhooks))) {
          if (await tx.$executeRawUnsafe(settle, 'TEST', null, at, e.id)) log().info('the courier test webhook we asked for; recorded, not applied');
          done++;
          continue;
        }
        // No delivery known by these ids, or an earlier event that may be of it is being matched: the ordered job.
        const moved = await tx.$executeRawUnsafe(sql(p, `UPDATE "CourierEvent" SET "state" = 'MATCHING' WHERE "id" = $1 AND "state" = 'RECEIVED'`), e.id);
        if (moved) await this.#ctx.queue.enqueue<CourierEventJobData>(tx, JOBS.courierEvents, { eventId: e.id }, { orderingKey: courierMatchingKey(e.environmentId) });
        hold(toJob, own ?? unresolved, place);
        queued = true;
        done++;
        continue;
      }
      if (!(await tx.$executeRawUnsafe(settle, 'PROCESSED', ref.deliveryId, at, e.id))) continue;
      const row = known.get(ref.deliveryId);
      known.delete(ref.deliveryId); // changed below: a later event of it reads it again
      const applied = await applyCourierStatus(tx, ref.deliveryId, {
        status: e.status, occurredAt: e.occurredAt ? new Date(toMs(e.occurredAt)) : new Date(place.ms), source: 'webhook', courierEventId: e.eventId, generation: Number(ref.generation),
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
