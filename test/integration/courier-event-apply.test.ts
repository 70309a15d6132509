// applyEvent (web/fulfillment/events.ts) from what the courier-events job read: an event that moves its
// delivery on is written without an interactive transaction (claim, update, timeline line, sync job: ONE
// statement on PostgreSQL, one locked run on SQLite); whatever that cannot decide goes through the
// transaction, with the same result on both providers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../web/context.ts';
import type { Database, Db } from '../../web/db/client.ts';
import { readRow } from '../../web/db/raw-rows.ts';
import { courierEventInsert, readEventToProcess } from '../../web/fulfillment/event-sql.ts';
import { applyEvent } from '../../web/fulfillment/events.ts';
import { createJobQueue, type JobQueue } from '../../web/jobs/index.ts';
import { JOBS } from '../../web/jobs/names.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';

const pg = testProvider() === 'postgres';
const log = createLogger({ level: 'silent' });
const now = new Date('2026-11-29T10:00:00.000Z');

let url: string;
let database: Database;
let queue: JobQueue;
let env: { id: string; shopId: string };
let n = 0;

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  queue = await createJobQueue(database, { log, pollIntervalMs: pg ? 500 : 50 });
  await queue.start();
  const shop = await database.db.shop.create({ data: { domain: 'event-apply.myshopify.com' } });
  env = await database.db.courierEnvironment.create({ data: { shopId: shop.id, environment: 'test', endpointId: 'ep_event_apply_0123456789' } });
});
afterAll(async () => {
  await queue?.stop();
  await database?.close();
  await dropDatabase(url);
});

/** A context whose client opens no transaction (`oneStatement`): what applies must be one statement, or one locked run on SQLite. */
function context(oneStatement: boolean): AppContext {
  const db = oneStatement
    ? ({ $queryRawUnsafe: database.db.$queryRawUnsafe.bind(database.db), $transaction: () => Promise.reject(new Error('a transaction was opened')) } as unknown as Db)
    : database.db;
  return { db, database, queue, log, now: () => now.getTime() } as unknown as AppContext;
}

async function booked(): Promise<string> {
  const id = `d-apply-${++n}`;
  await database.db.delivery.create({ data: { id, shopId: env.shopId, shopifyOrderId: id, orderName: `#${id}`, environment: 'test', status: 'CREATED', orderJson: '{}', courierOrderId: `ord_${id}` } });
  await database.db.courierRef.create({ data: { deliveryId: id, shopId: env.shopId, environment: 'test', generation: 1, kind: 'delivery', value: `dlv_${id}` } });
  return id;
}

/** A stored event for the delivery, read as the courier-events job reads it (the delivery's row with it). */
async function stored(deliveryId: string, status: string) {
  const { id, row } = courierEventInsert(database.provider, {
    environmentId: env.id, eventId: `evt_${deliveryId}_${status}`, type: 'delivery.status.updated', deliveryRef: `dlv_${deliveryId}`, status,
    occurredAt: now, payload: '{}', receivedAt: now.getTime(),
  });
  await database.db.$executeRawUnsafe(row.sql, ...row.values);
  return (await readEventToProcess(database.db, database.provider, id))!;
}

function apply(ctx: AppContext, ev: Awaited<ReturnType<typeof stored>>, delivery = ev.refDelivery!) {
  return applyEvent(ctx, ev.id, delivery.id, now, {}, { event: ev, shopId: env.shopId, generation: 1, delivery });
}

const lines = (deliveryId: string) => database.db.deliveryEvent.findMany({ where: { deliveryId }, orderBy: { receivedAt: 'asc' }, select: { status: true, applied: true, courierEventId: true } });
const syncJobs = async (deliveryId: string) => {
  const rows = pg
    ? await database.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND data->>'deliveryId' = $2`, JOBS.fulfillmentSync, deliveryId)
    : await database.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT count(*) AS n FROM "Job" WHERE "queue" = ? AND json_extract("payload", '$.deliveryId') = ?`, JOBS.fulfillmentSync, deliveryId);
  return Number(rows[0]!.n);
};

describe('a courier event applied from what its job read', () => {
  it('moves the delivery on, writes its timeline line and queues its sync with no transaction (PostgreSQL: one statement; SQLite: one locked run); the same event again does nothing', async () => {
    const id = await booked();
    const ev = await stored(id, 'collected');
    expect(await apply(context(true), ev)).toBe(true);
    expect(await readRow(database.db, 'Delivery', id)).toMatchObject({ status: 'IN_PROGRESS', courierStatus: 'collected', courierStatusRank: expect.any(Number) });
    expect(await database.db.courierEvent.findUniqueOrThrow({ where: { id: ev.id } })).toMatchObject({ state: 'PROCESSED', deliveryId: id, attempts: 1 });
    expect(await lines(id)).toEqual([{ status: 'collected', applied: true, courierEventId: ev.eventId }]);
    expect(await syncJobs(id)).toBe(1);

    expect(await apply(context(false), ev)).toBe(false);
    expect(await lines(id)).toHaveLength(1);
    expect(await syncJobs(id)).toBe(1);
  });

  it('a row read before another status was applied is decided again on a fresh read: the event is never left claimed and unapplied', async () => {
    const id = await booked();
    const first = await stored(id, 'in_transit');
    const late = await stored(id, 'collected'); // read while the delivery was still CREATED
    expect(await apply(context(false), first)).toBe(true);
    // On the stale row "collected" would apply; on the fresh one it is older than in_transit: recorded only.
    expect(await apply(context(false), late)).toBe(false);
    expect(await readRow(database.db, 'Delivery', id)).toMatchObject({ courierStatus: 'in_transit' });
    expect(await database.db.courierEvent.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({ state: 'PROCESSED', deliveryId: id });
    expect(await lines(id)).toEqual([
      { status: 'in_transit', applied: true, courierEventId: first.eventId },
      { status: 'collected', applied: false, courierEventId: late.eventId },
    ]);

    // A stale row whose event still applies on the fresh one: applied once, from the fresh row.
    const id2 = await booked();
    const a = await stored(id2, 'collected');
    const b = await stored(id2, 'delivered'); // read while CREATED
    expect(await apply(context(false), a)).toBe(true);
    expect(await apply(context(false), b)).toBe(true);
    expect(await readRow(database.db, 'Delivery', id2)).toMatchObject({ status: 'DELIVERED', courierStatus: 'delivered' });
    expect((await lines(id2)).map((l) => [l.status, l.applied])).toEqual([['collected', true], ['delivered', true]]);
  });

  it("a status that fires a Flow trigger the shop uses records the trigger's outbox row; one the shop does not use needs none", async () => {
    const unused = await booked();
    expect(await apply(context(true), await stored(unused, 'delivered'))).toBe(true);
    expect(await readRow(database.db, 'Delivery', unused)).toMatchObject({ status: 'DELIVERED' });
    expect(await database.db.flowTriggerEvent.count({ where: { deliveryId: unused } })).toBe(0);

    await database.db.flowTriggerUsage.create({ data: { shopId: env.shopId, trigger: 'delivery-delivered', definitionId: 'def-1', enabled: true, changedAt: now } });
    const used = await booked();
    expect(await apply(context(false), await stored(used, 'delivered'))).toBe(true);
    expect(await readRow(database.db, 'Delivery', used)).toMatchObject({ status: 'DELIVERED' });
    expect(await database.db.flowTriggerEvent.findMany({ where: { deliveryId: used }, select: { trigger: true } })).toEqual([{ trigger: 'delivery-delivered' }]);
    expect(await lines(used)).toHaveLength(1);
  });
});
