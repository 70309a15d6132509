// The courier-event path's raw statements (web/fulfillment/event-sql.ts) on each provider: what
// they write reads back through Prisma as the compiled queries they replaced wrote it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { readRow, type OpenDeliveryRow } from '../../web/db/raw-rows.ts';
import { claimEvent, courierEventInsert, EventReader, findEndpoint, findRef, readEventsToProcess, readEventToProcess, type NewCourierEvent } from '../../web/fulfillment/event-sql.ts';
import type { Tx } from '../../web/db/client.ts';
import { applyCourierStatus } from '../../web/fulfillment/events.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase } from '../support/db.ts';

let url: string;
let database: Database;
let env: { id: string; shopId: string; environment: string };

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  const shop = await database.db.shop.create({ data: { domain: 'event-sql.myshopify.com' } });
  env = await database.db.courierEnvironment.create({ data: { shopId: shop.id, environment: 'test', endpointId: 'ep_event_sql_0123456789ab' } });
  for (const [id, generation] of [['d-old', 1], ['d-new', 2]] as const) {
    await database.db.delivery.create({ data: { id, shopId: shop.id, shopifyOrderId: id, orderName: `#${id}`, environment: 'test', status: 'CREATED', orderJson: '{}', generation } });
  }
});
afterAll(async () => {
  await database?.close();
  await dropDatabase(url);
});

/** The route's insert on its own: the row id, or null when the endpoint already has this event id. */
async function insertCourierEvent(tx: Tx, provider: Database['provider'], e: NewCourierEvent): Promise<string | null> {
  const { id, row } = courierEventInsert(provider, e);
  return (await tx.$executeRawUnsafe(row.sql, ...row.values)) === 1 ? id : null;
}

describe('courier event statements', () => {
  it('reads an endpoint with its secrets, times and shop in one statement, as Prisma stored them', async () => {
    const prevUntil = new Date('2026-11-29T10:00:00.250Z');
    const last = new Date('2026-11-28T08:59:59.999Z');
    await database.db.courierEnvironment.update({ where: { id: env.id }, data: { webhookSecretEnc: 'enc-now', webhookSecretPrevEnc: 'enc-before', webhookSecretPrevUntil: prevUntil, lastWebhookAt: last } });
    const found = await findEndpoint(database.db, database.provider, 'ep_event_sql_0123456789ab');
    expect(found).toEqual({
      id: env.id, environment: 'test', webhookSecretEnc: 'enc-now', webhookSecretPrevEnc: 'enc-before', webhookSecretPrevUntil: prevUntil, lastWebhookAt: last,
      shop: { domain: 'event-sql.myshopify.com', uninstalledAt: null },
    });
    const gone = new Date('2026-11-28T09:00:00.000Z');
    await database.db.shop.update({ where: { id: env.shopId }, data: { uninstalledAt: gone } });
    await database.db.courierEnvironment.update({ where: { id: env.id }, data: { webhookSecretPrevEnc: null, webhookSecretPrevUntil: null } });
    expect(await findEndpoint(database.db, database.provider, 'ep_event_sql_0123456789ab')).toMatchObject({ webhookSecretPrevEnc: null, webhookSecretPrevUntil: null, shop: { uninstalledAt: gone } });
    await database.db.shop.update({ where: { id: env.shopId }, data: { uninstalledAt: null } });
    expect(await findEndpoint(database.db, database.provider, 'ep_unknown_0123456789ab')).toBeNull();
  });

  it('inserts a RECEIVED event that Prisma reads back field for field, once per event id', async () => {
    const e = {
      environmentId: env.id, eventId: 'evt_sql_1', type: 'delivery.status.updated', deliveryRef: 'dlv_1', status: 'collected',
      occurredAt: new Date('2026-11-28T09:15:30.123Z'), payload: '{"id":"evt_sql_1"}', receivedAt: Date.parse('2026-11-28T09:15:31.456Z'),
    };
    const id = await database.db.$transaction((tx) => insertCourierEvent(tx, database.provider, e));
    expect(id).toEqual(expect.any(String));
    const row = await database.db.courierEvent.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({
      environmentId: env.id, eventId: 'evt_sql_1', type: 'delivery.status.updated', deliveryRef: 'dlv_1', status: 'collected',
      payload: '{"id":"evt_sql_1"}', state: 'RECEIVED', attempts: 0, deliveryId: null, processedAt: null,
    });
    expect(row.occurredAt?.toISOString()).toBe('2026-11-28T09:15:30.123Z');
    expect(row.receivedAt.toISOString()).toBe('2026-11-28T09:15:31.456Z');
    // Prisma's own comparisons see the stored times as times.
    expect(await database.db.courierEvent.count({ where: { id: id!, receivedAt: { gt: new Date('2026-11-28T09:15:31.455Z'), lt: new Date('2026-11-28T09:15:31.457Z') } } })).toBe(1);

    expect(await database.db.$transaction((tx) => insertCourierEvent(tx, database.provider, { ...e, status: 'delivered' }))).toBeNull();
    const other = await database.db.$transaction((tx) => insertCourierEvent(tx, database.provider, { ...e, eventId: 'evt_sql_2', occurredAt: null, deliveryRef: null, status: null }));
    expect(await database.db.courierEvent.findUniqueOrThrow({ where: { id: other! } })).toMatchObject({ occurredAt: null, deliveryRef: null, status: null });
    expect(await database.db.courierEvent.count({ where: { environmentId: env.id, eventId: 'evt_sql_1' } })).toBe(1);
  });

  it('finds the newest generation a courier id names, in this shop and environment only', async () => {
    await database.db.courierRef.createMany({
      data: [
        { deliveryId: 'd-old', shopId: env.shopId, environment: 'test', generation: 1, kind: 'delivery', value: 'dlv_shared' },
        { deliveryId: 'd-new', shopId: env.shopId, environment: 'test', generation: 2, kind: 'dispatch', value: 'dlv_shared' },
        { deliveryId: 'd-old', shopId: env.shopId, environment: 'live', generation: 1, kind: 'delivery', value: 'dlv_live_only' },
      ],
    });
    expect(await findRef(database.db, database.provider, env, ['nothing', 'dlv_shared'])).toEqual({ deliveryId: 'd-new', generation: 2 });
    expect(await findRef(database.db, database.provider, env, ['dlv_live_only'])).toBeNull();
    expect(await findRef(database.db, database.provider, { ...env, environment: 'live' }, ['dlv_live_only'])).toEqual({ deliveryId: 'd-old', generation: 1 });
    expect(await findRef(database.db, database.provider, env, [])).toBeNull();
  });

  it('claims an event once: PROCESSED for the delivery, attempts counted, the retry fields cleared', async () => {
    const id = (await database.db.$transaction((tx) => insertCourierEvent(tx, database.provider, {
      environmentId: env.id, eventId: 'evt_sql_claim', type: 'delivery.status.updated', deliveryRef: 'dlv_shared', status: 'collected',
      occurredAt: null, payload: '{}', receivedAt: Date.now(),
    })))!;
    await database.db.courierEvent.update({ where: { id }, data: { state: 'UNMATCHED', attempts: 2, lastError: 'no delivery yet', nextAttemptAt: new Date() } });
    const now = new Date('2026-11-28T09:20:00.000Z');
    expect(await database.db.$transaction((tx) => claimEvent(tx, database.provider, id, 'd-new', now))).toBe(true);
    expect(await database.db.$transaction((tx) => claimEvent(tx, database.provider, id, 'd-old', now))).toBe(false);
    const row = await database.db.courierEvent.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ state: 'PROCESSED', deliveryId: 'd-new', attempts: 3, lastError: null, nextAttemptAt: null });
    expect(row.processedAt?.toISOString()).toBe('2026-11-28T09:20:00.000Z');
  });

  it('reads an event with its environment and what its delivery id names (as findRef: the newest generation, this shop and environment only) in one statement', async () => {
    await database.db.courierRef.createMany({
      data: [
        { deliveryId: 'd-old', shopId: env.shopId, environment: 'test', generation: 1, kind: 'order', value: 'dlv_read' },
        { deliveryId: 'd-new', shopId: env.shopId, environment: 'test', generation: 2, kind: 'delivery', value: 'dlv_read' },
        { deliveryId: 'd-old', shopId: env.shopId, environment: 'live', generation: 1, kind: 'delivery', value: 'dlv_read_live' },
      ],
    });
    await database.db.courierEnvironment.update({ where: { id: env.id }, data: { testWebhooks: '{"asked":[]}' } });
    const insert = (eventId: string, deliveryRef: string | null) => database.db.$transaction((tx) => insertCourierEvent(tx, database.provider, {
      environmentId: env.id, eventId, type: 'delivery.status.updated', deliveryRef, status: 'collected',
      occurredAt: new Date('2026-11-28T09:15:30.123Z'), payload: `{"id":"${eventId}"}`, receivedAt: Date.parse('2026-11-28T09:15:31.456Z'),
    }));
    const id = (await insert('evt_read_1', 'dlv_read'))!;
    await database.db.courierEvent.update({ where: { id }, data: { state: 'UNMATCHED', attempts: 2, triedIds: '["x"]' } });
    const ev = await readEventToProcess(database.db, database.provider, id);
    const { environment, ...stored } = await database.db.courierEvent.findUniqueOrThrow({ where: { id }, include: { environment: true } });
    expect(ev).toEqual({
      id: stored.id, environmentId: stored.environmentId, eventId: stored.eventId, type: stored.type, deliveryRef: stored.deliveryRef, status: stored.status,
      occurredAt: stored.occurredAt, payload: stored.payload, state: 'UNMATCHED', attempts: 2, triedIds: '["x"]', receivedAt: stored.receivedAt,
      environment: { shopId: environment.shopId, environment: 'test', testWebhooks: '{"asked":[]}' },
      deliveryRefMatch: await findRef(database.db, database.provider, env, ['dlv_read']),
      // The matched delivery's row, as the transition's own read gives it.
      refDelivery: await readRow(database.db, 'Delivery', 'd-new'),
    });
    expect(ev!.deliveryRefMatch).toEqual({ deliveryId: 'd-new', generation: 2 });
    expect(ev!.refDelivery).toMatchObject({ id: 'd-new', generation: 2, status: 'CREATED' });
    expect(ev!.refDelivery!.createdAt).toBeInstanceOf(Date);
    for (const eventId of ['evt_read_live', 'evt_read_none']) {
      const other = (await readEventToProcess(database.db, database.provider, (await insert(eventId, eventId === 'evt_read_live' ? 'dlv_read_live' : null))!))!;
      expect([other.deliveryRefMatch, other.refDelivery]).toEqual([null, null]);
    }
    expect(await readEventToProcess(database.db, database.provider, 'no-such-event')).toBeNull();
  });

  it('reads events started together as one statement on PostgreSQL (EventReader), each as readEventToProcess reads it alone', async () => {
    const insert = (eventId: string, deliveryRef: string | null) => database.db.$transaction((tx) => insertCourierEvent(tx, database.provider, {
      environmentId: env.id, eventId, type: 'delivery.status.updated', deliveryRef, status: 'collected', occurredAt: null, payload: '{}', receivedAt: Date.now(),
    }));
    // dlv_read names two generations (the newest wins), dlv_shared two deliveries, the third nothing.
    const ids = [(await insert('evt_batch_1', 'dlv_read'))!, (await insert('evt_batch_2', 'dlv_shared'))!, (await insert('evt_batch_3', null))!];
    const alone = await Promise.all(ids.map((id) => readEventToProcess(database.db, database.provider, id)));
    expect(alone.map((e) => e?.deliveryRefMatch?.generation ?? null)).toEqual([2, 2, null]);
    let statements = 0;
    const counted = new Proxy(database.db, {
      get: (t, k) => (k === '$queryRawUnsafe' ? (...a: unknown[]) => (statements++, (t.$queryRawUnsafe as (...x: unknown[]) => unknown)(...a)) : Reflect.get(t, k)),
    });
    const reader = new EventReader(counted, database.provider);
    const read = await Promise.all([...ids, ids[0]!, 'no-such-event'].map((id) => reader.read(id)));
    expect(read).toEqual([...alone, alone[0], null]);
    expect(statements).toBe(database.provider === 'postgres' ? 1 : 5);
    // Reads started later are a statement of their own.
    expect(await reader.read(ids[1]!)).toEqual(alone[1]);
    if (database.provider === 'postgres') {
      expect(statements).toBe(2);
      expect([...(await readEventsToProcess(database.db, ids)).values()].sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual(alone);
    }
  });

  it("a courier status tried on the delivery's row read before the transaction (known) applies only if that row has not changed since; else it is decided again on a fresh read", async () => {
    const make = (id: string) => database.db.delivery.create({ data: { id, shopId: env.shopId, shopifyOrderId: id, orderName: `#${id}`, environment: 'test', status: 'CREATED', orderJson: '{}', courierOrderId: `ord_${id}` } });
    const now = new Date('2026-11-28T10:00:00.000Z');
    const apply = (id: string, status: string, known?: OpenDeliveryRow | null) =>
      database.db.$transaction((tx) => applyCourierStatus(tx, id, { status, occurredAt: now, source: 'webhook' }, now, known ?? undefined));
    await make('d-known');
    expect(await apply('d-known', 'collected', await readRow(database.db, 'Delivery', 'd-known'))).toBe(true);
    expect(await readRow(database.db, 'Delivery', 'd-known')).toMatchObject({ courierStatus: 'collected', status: 'IN_PROGRESS' });

    await make('d-stale');
    expect(await apply('d-stale', 'collected')).toBe(true);
    const stale = await readRow(database.db, 'Delivery', 'd-stale'); // IN_PROGRESS, collected
    expect(await apply('d-stale', 'in_transit')).toBe(true);
    expect(await apply('d-stale', 'out_for_delivery')).toBe(true);
    // Still IN_PROGRESS: on the stale row "in_transit" would move the delivery on; read again, it is older than what it holds.
    expect(await apply('d-stale', 'in_transit', stale)).toBe(false);
    expect(await readRow(database.db, 'Delivery', 'd-stale')).toMatchObject({ status: 'IN_PROGRESS', courierStatus: 'out_for_delivery' });
    const lines = await database.db.deliveryEvent.findMany({ where: { deliveryId: 'd-stale' }, select: { status: true, applied: true } });
    expect(lines.at(-1)).toEqual({ status: 'in_transit', applied: false });
  });
});

