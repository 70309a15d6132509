// The courier-event path's statements (issue 24), raw through the app's Prisma client
// (web/db/raw-sql.ts): the route's endpoint lookup and insert, the match by courier id, the job's claim. Each ran
// once or twice per event as a compiled Prisma query, 0.3 ms and more of CPU each.
import { randomUUID } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import type { RowInsert } from '../jobs/queue.ts';
import { joinedColumns, joinedRow, type OpenDeliveryRow } from '../db/raw-rows.ts';
import { dbTime, forProvider, placeholders, rawTime, TS, type Provider } from '../db/raw-sql.ts';

export interface NewCourierEvent {
  environmentId: string;
  eventId: string;
  type: string;
  deliveryRef: string | null;
  status: string | null;
  occurredAt: Date | null;
  payload: string;
  receivedAt: number;
}

/** The INSERT storing a verified event as RECEIVED under a new row id (ON CONFLICT: the endpoint already has this event id). */
export function courierEventInsert(provider: Provider, e: NewCourierEvent): { id: string; row: RowInsert } {
  const id = randomUUID();
  return {
    id,
    row: {
      sql: forProvider(
        provider,
        `INSERT INTO "CourierEvent" ("id", "environmentId", "eventId", "type", "deliveryRef", "status", "occurredAt", "payload", "state", "attempts", "receivedAt")
         VALUES ($1, $2, $3, $4, $5, $6, $7${TS}, $8, 'RECEIVED', 0, $9${TS}) ON CONFLICT ("environmentId", "eventId") DO NOTHING`,
      ),
      values: [
        id, e.environmentId, e.eventId, e.type, e.deliveryRef, e.status,
        e.occurredAt ? dbTime(provider, e.occurredAt.getTime()) : null, e.payload, dbTime(provider, e.receivedAt),
      ],
    },
  };
}

/** The delivery a courier id names, and the generation whose booking holds it (the newest, if several). */
export interface RefMatch {
  deliveryId: string;
  generation: number;
}

export async function findRef(db: Tx, provider: Provider, env: { shopId: string; environment: string }, ids: string[]): Promise<RefMatch | null> {
  if (!ids.length) return null;
  const rows = await db.$queryRawUnsafe<Array<{ deliveryId: string; generation: number | bigint }>>(
    forProvider(
      provider,
      `SELECT "deliveryId", "generation" FROM "CourierRef" WHERE "shopId" = $1 AND "environment" = $2 AND "value" IN (${placeholders(3, ids.length)})
       ORDER BY "generation" DESC LIMIT 1`,
    ),
    env.shopId, env.environment, ...ids,
  );
  const r = rows[0];
  return r ? { deliveryId: r.deliveryId, generation: Number(r.generation) } : null;
}

/** Marks the event PROCESSED for `deliveryId` unless it already is: true for the one caller that wins. */
export async function claimEvent(tx: Tx, provider: Provider, eventRowId: string, deliveryId: string, now: Date): Promise<boolean> {
  const { text, values } = claimStatement(provider, eventRowId, deliveryId, now);
  return (await tx.$executeRawUnsafe(text, ...values)) === 1;
}

export function claimStatement(provider: Provider, eventRowId: string, deliveryId: string, now: Date): Statement {
  return {
    text: forProvider(
      provider,
      `UPDATE "CourierEvent" SET "state" = 'PROCESSED', "deliveryId" = $1, "processedAt" = $2${TS}, "attempts" = "attempts" + 1, "lastError" = NULL, "nextAttemptAt" = NULL
       WHERE "id" = $3 AND "state" <> 'PROCESSED'`,
    ),
    values: [deliveryId, dbTime(provider, now.getTime()), eventRowId],
  };
}

export interface Statement {
  text: string;
  values: unknown[];
}

/** `sql`'s binds $n renumbered as $(n + by) (our statements hold no `$` in literals). */
export const shiftBinds = (sql: string, by: number): string => sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);

/** SQLSTATE of the error appliedEventStatement raises when the event was claimed but the delivery had changed. */
export const STALE_ROW_SQLSTATE = '22012';

/**
 * PostgreSQL: an applied courier event as one statement for oneStatementWithJob (its sync job joins it):
 * the event's claim (only where `unless`, a condition with binds from $4, does not hold), then the
 * delivery's conditional update only if claimed, then the timeline line (`line(when)`, the RowInsert)
 * only if both. Claimed but not updated (the row read before changed since) divides by zero: the whole
 * statement is undone, and the caller decides again in a transaction. Locks are taken in the
 * transaction path's order (event, then delivery).
 */
export function appliedEventStatement(claim: Statement, update: Statement, line: (when: string) => RowInsert, unless?: (from: number) => Statement): RowInsert {
  const l = line(`(SELECT CASE WHEN count(*) = 0 THEN false ELSE 1 / (SELECT count(*) FROM upd)::int = 1 END FROM claim)`);
  const c = claimUnless('postgres', claim, unless);
  const u = c.values.length;
  const n = u + update.values.length;
  return {
    with: `claim AS (${c.text} RETURNING 1), upd AS (${shiftBinds(update.text, u)} AND EXISTS (SELECT 1 FROM claim) RETURNING 1)`,
    sql: shiftBinds(l.sql, n),
    values: [...c.values, ...update.values, ...l.values],
  };
}

/** The event's claim, only where `unless` (a condition with binds from $4) does not hold. */
function claimUnless(provider: Provider, claim: Statement, unless?: (from: number) => Statement): Statement {
  const cond = unless?.(claim.values.length + 1);
  return cond ? { text: `${claim.text} AND ${forProvider(provider, cond.text)}`, values: [...claim.values, ...cond.values] } : claim;
}

/**
 * SQLite: appliedEventStatement's parts as lockedWithJob's steps, each to change one row: the claim
 * (only where `unless` does not hold), the delivery's conditional update, the line. The claim and the
 * update are SQLite's text already (claimStatement, updateStatement).
 */
export function lockedEventSteps(claim: Statement, update: Statement, line: RowInsert, unless?: (from: number) => Statement): RowInsert[] {
  const c = claimUnless('sqlite', claim, unless);
  return [{ sql: c.text, values: c.values }, { sql: update.text, values: update.values }, line];
}

/** A nullable text column read by raw SQL. */
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** The first row of a one-parameter SELECT, or null. */
async function firstRow(db: Tx, provider: Provider, sql: string, value: string): Promise<Record<string, unknown> | null> {
  const rows = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(forProvider(provider, sql), value);
  return rows[0] ?? null;
}

/** What the courier route needs of a webhook endpoint: its environment, secrets and shop. */
export interface Endpoint {
  id: string;
  environment: string;
  webhookSecretEnc: string | null;
  webhookSecretPrevEnc: string | null;
  webhookSecretPrevUntil: Date | null;
  lastWebhookAt: Date | null;
  shop: { domain: string; uninstalledAt: Date | null };
}

/** One statement for the environment and its shop (a compiled findUnique with include ran two). */
export async function findEndpoint(db: Tx, provider: Provider, endpointId: string): Promise<Endpoint | null> {
  const r = await firstRow(
    db, provider,
    `SELECT e."id", e."environment", e."webhookSecretEnc", e."webhookSecretPrevEnc", e."webhookSecretPrevUntil", e."lastWebhookAt",
            s."domain", s."uninstalledAt"
     FROM "CourierEnvironment" e JOIN "Shop" s ON s."id" = e."shopId" WHERE e."endpointId" = $1`,
    endpointId,
  );
  if (!r) return null;
  return {
    id: String(r.id),
    environment: String(r.environment),
    webhookSecretEnc: text(r.webhookSecretEnc),
    webhookSecretPrevEnc: text(r.webhookSecretPrevEnc),
    webhookSecretPrevUntil: rawTime(r.webhookSecretPrevUntil),
    lastWebhookAt: rawTime(r.lastWebhookAt),
    shop: { domain: String(r.domain), uninstalledAt: rawTime(r.uninstalledAt) },
  };
}

/** What processing a stored event reads of it and of its environment. */
export interface EventToProcess {
  id: string;
  environmentId: string;
  eventId: string;
  type: string;
  deliveryRef: string | null;
  status: string | null;
  occurredAt: Date | null;
  payload: string;
  state: string;
  attempts: number;
  triedIds: string | null;
  receivedAt: Date;
  environment: { shopId: string; environment: string; testWebhooks: string | null };
  /** findRef for the event's delivery id alone, read with it (what the event names when it names nothing else). */
  deliveryRefMatch: RefMatch | null;
  /** That delivery's row as it was when the event was read: applying tries it first (transitionLatest's `known`). */
  refDelivery: OpenDeliveryRow | null;
}

/**
 * One statement for the event, its environment, the delivery its delivery id names and that delivery's
 * row (a compiled findUnique with include ran two, findRef a third, the transition's read a fourth).
 */
export async function readEventToProcess(db: Tx, provider: Provider, eventRowId: string): Promise<EventToProcess | null> {
  const r = await firstRow(db, provider, (readEventSql ??= readEventText()), eventRowId);
  return r ? eventToProcess(r) : null;
}

/**
 * PostgreSQL: readEventToProcess for several events in ONE statement (a batch a pg-boss worker fetched
 * starts together), by row id; an id not found is absent.
 */
export async function readEventsToProcess(db: Tx, ids: readonly string[]): Promise<Map<string, EventToProcess>> {
  const rows = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(readEventsText(ids.length), ...ids);
  return new Map(rows.map((r) => [String(r.id), eventToProcess(r)]));
}

/**
 * Reads asked for within one turn of the event loop, as one statement on PostgreSQL: a batch a pg-boss
 * worker fetched starts its jobs together (fulfillment/jobs.ts), so one read serves them, not one each
 * (each a round trip and a socket write, issue 24). SQLite reads each at once.
 */
export class EventReader {
  #waiting = new Map<string, Array<{ resolve: (e: EventToProcess | null) => void; reject: (e: unknown) => void }>>();
  readonly #db: Tx;
  readonly #provider: Provider;
  constructor(db: Tx, provider: Provider) {
    this.#db = db;
    this.#provider = provider;
  }

  read(eventRowId: string): Promise<EventToProcess | null> {
    if (this.#provider !== 'postgres') return readEventToProcess(this.#db, this.#provider, eventRowId);
    return new Promise((resolve, reject) => {
      if (!this.#waiting.size) setImmediate(() => void this.#flush());
      const list = this.#waiting.get(eventRowId);
      if (list) list.push({ resolve, reject });
      else this.#waiting.set(eventRowId, [{ resolve, reject }]);
    });
  }

  async #flush(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = new Map();
    try {
      const ids = [...waiting.keys()];
      const found = ids.length === 1 ? new Map([[ids[0]!, await readEventToProcess(this.#db, this.#provider, ids[0]!)]]) : await readEventsToProcess(this.#db, ids);
      for (const [id, list] of waiting) for (const w of list) w.resolve(found.get(id) ?? null);
    } catch (e) {
      for (const list of waiting.values()) for (const w of list) w.reject(e);
    }
  }
}

function eventToProcess(r: Record<string, unknown>): EventToProcess {
  return {
    id: String(r.id),
    environmentId: String(r.environmentId),
    eventId: String(r.eventId),
    type: String(r.type),
    deliveryRef: text(r.deliveryRef),
    status: text(r.status),
    occurredAt: rawTime(r.occurredAt),
    payload: String(r.payload),
    state: String(r.state),
    attempts: Number(r.attempts),
    triedIds: text(r.triedIds),
    receivedAt: rawTime(r.receivedAt)!,
    environment: { shopId: String(r.shopId), environment: String(r.environment), testWebhooks: text(r.testWebhooks) },
    deliveryRefMatch: r.refDeliveryId === null || r.refDeliveryId === undefined ? null : { deliveryId: String(r.refDeliveryId), generation: Number(r.refGeneration) },
    refDelivery: joinedRow(r, 'Delivery', 'd.'),
  };
}

/** Built once: the joined Delivery columns come from Prisma's schema. */
let readEventSql: string | undefined;
const readEventText = () => `${eventColumns('SELECT')} WHERE ev."id" = $1 ORDER BY r."generation" DESC LIMIT 1`;
/** One row per event (its newest generation's ref), PostgreSQL's DISTINCT ON. */
const readEventsSql = new Map<number, string>();
const readEventsText = (n: number) => {
  let sql = readEventsSql.get(n);
  if (!sql) readEventsSql.set(n, (sql = `${eventColumns('SELECT DISTINCT ON (ev."id")')} WHERE ev."id" IN (${placeholders(1, n)}) ORDER BY ev."id", r."generation" DESC`));
  return sql;
};
const eventColumns = (select: string) =>
  `${select} ev."id", ev."environmentId", ev."eventId", ev."type", ev."deliveryRef", ev."status", ev."occurredAt", ev."payload", ev."state",
            ev."attempts", ev."triedIds", ev."receivedAt", e."shopId", e."environment", e."testWebhooks", r."deliveryId" AS "refDeliveryId", r."generation" AS "refGeneration",
            ${joinedColumns('Delivery', 'd', 'd.')}
     FROM "CourierEvent" ev JOIN "CourierEnvironment" e ON e."id" = ev."environmentId"
     LEFT JOIN "CourierRef" r ON r."shopId" = e."shopId" AND r."environment" = e."environment" AND r."value" = ev."deliveryRef"
     LEFT JOIN "Delivery" d ON d."id" = r."deliveryId"`;
