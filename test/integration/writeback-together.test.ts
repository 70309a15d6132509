// A shop's write-backs together (web/dispatch/writeback.ts): the write-backs that wait go in one
// BookingsWrite, their jobs end in the transaction that marks them written, and a refusal falls
// back to one order at a time. Over real HTTP to the courier, with the shop simulator's Admin API.
// SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, placeOrder, useScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { testProvider } from '../support/db.ts';
import { JOBS } from '../../web/jobs/names.ts';
import { runWriteback } from '../../web/dispatch/writeback.ts';
import type { OperationLogEntry, SimShop } from '../../dev/shop-sim/admin-graphql.ts';

let s: Scenario;
useScenario((started) => (s = started));

const TAG = 'same-day-dispatched';
const bookingCalls = (sim: SimShop) => sim.log.filter((l) => /^Bookings?Write\d*$/.test(l.operationName));
const bookingWrites = (sim: SimShop) => bookingCalls(sim).map((l) => `${l.operationName} ${l.outcome}`);
/** The orders each booking write carried (BookingWrite: id; BookingsWrite<n>: id0 … id<n-1>). */
const ordersOf = (l: { variables: Record<string, unknown> }) => Object.entries(l.variables).filter(([k]) => /^id\d*$/.test(k)).map(([, v]) => String(v).split('/').pop()!);
/**
 * SQLite runs one write-back per shop at a time (groupConcurrency 1). pg-boss applies that limit per
 * fetch: workers that fetch at the same moment each take one of the group, and each takes the
 * others along that are still free (SKIP LOCKED), so an order still goes in exactly one write.
 */
const oneAtATime = testProvider() === 'sqlite';

/** `n` orders of a new shop booked while its write-backs are held (as in a sale, waiting for the bucket); then they are let go. */
async function bookedWhileHeld(domain: string, n: number) {
  const sim = await installShop(s, domain);
  const shopId = (await s.app.db.shop.findUniqueOrThrow({ where: { domain } })).id;
  s.app.ctx.queue.hold(JOBS.writeback, shopId, 60_000);
  const orders = [];
  for (let i = 0; i < n; i++) orders.push(await placeOrder(s, sim));
  const deliveries = [];
  for (const { orderId } of orders) deliveries.push(await waitForStatus(s.app, domain, orderId, 'CREATED'));
  expect(bookingWrites(sim)).toEqual([]);
  return { sim, shopId, orders, deliveries, release: () => s.app.ctx.queue.hurry(JOBS.writeback, shopId) };
}

async function allWritten(domain: string, sim: SimShop, orders: Array<{ orderId: string }>) {
  for (const { orderId } of orders) {
    await waitFor(async () => (await deliveryOf(s.app, domain, orderId))?.events.some((e) => e.kind === 'writeback') || null, `order ${orderId} written back`);
  }
  for (const { orderId } of orders) {
    const d = (await deliveryOf(s.app, domain, orderId))!;
    const o = sim.order(orderId)!;
    expect(o.tags).toContain(TAG);
    expect(o.metafields['$app:same_day_dispatch.job_id']?.value).toBe(d.dispatchJobId);
    expect(o.metafields['$app:same_day_dispatch.courier_order_id']?.value).toBe(d.courierOrderId);
    expect(JSON.parse(o.metafields['$app:same_day_dispatch.delivery_price']!.value)).toEqual({ amount: d.deliveryPrice, currency_code: 'ZAR' });
    expect(d.events.filter((e) => e.kind === 'writeback')).toHaveLength(1);
    expect(d.writebackPending).toBe(false);
  }
}

/** Per write-back job of the shop: whether a worker ever started it. */
async function jobsStarted(shopId: string): Promise<boolean[]> {
  const db = s.app.server.services()!.database.db;
  if (testProvider() === 'sqlite') {
    const rows = await db.$queryRawUnsafe<Array<{ state: string; attempts: number | bigint }>>(`SELECT "state", "attempts" FROM "Job" WHERE "queue" = ? AND "groupKey" = ?`, JOBS.writeback, shopId);
    expect(rows.map((r) => r.state)).toEqual(rows.map(() => 'completed'));
    return rows.map((r) => Number(r.attempts) > 0);
  }
  const rows = await db.$queryRawUnsafe<Array<{ state: string; started_on: Date | null }>>(`SELECT state::text AS state, started_on FROM pgboss.job WHERE name = $1 AND group_id = $2`, JOBS.writeback, shopId);
  expect(rows.map((r) => r.state)).toEqual(rows.map(() => 'completed'));
  return rows.map((r) => r.started_on !== null);
}

describe("a shop's write-backs together", () => {
  it('six that wait go in ONE BookingsWrite6 (70 points, not 120); five of the jobs end without a worker', async () => {
    const domain = 'together.myshopify.com';
    const { sim, shopId, orders, deliveries, release } = await bookedWhileHeld(domain, 6);
    await release();
    await allWritten(domain, sim, orders);
    const calls = bookingCalls(sim);
    expect(calls.flatMap(ordersOf).sort()).toEqual(orders.map((o) => o.orderId).sort());
    if (oneAtATime) {
      expect(bookingWrites(sim)).toEqual(['BookingsWrite6 ok']);
      expect(calls[0]!.cost).toBe(70);
    } else expect(calls.length).toBeLessThanOrEqual(4);
    // Each write's own job ran; every other job was completed by the write that carried its order.
    const started = await waitFor(async () => {
      const st = await jobsStarted(shopId);
      return st.filter((x) => !x).length === 6 - calls.length ? st : null;
    }, 'the jobs taken along completed by the shared write');
    expect(started.filter(Boolean).length).toBeGreaterThanOrEqual(calls.length);

    // A job that runs after its delivery was written (claimed while the batch was out) sends nothing.
    await runWriteback(s.app.ctx, { data: { deliveryId: deliveries[3]!.id }, group: shopId });
    expect(bookingCalls(sim)).toHaveLength(calls.length);
  });

  // pg-boss holds one write-back per shop per instance: a second instance may take the shop's jobs while the
  // first one's shared write is out. A hurry of the group meanwhile (a pacer's wake, another job's give-back)
  // must not hand it the jobs that write carries.
  it.runIf(!oneAtATime)("a hurry of the shop's jobs while a shared write is out gives none of its orders to another instance", async () => {
    const domain = 'together-hurried.myshopify.com';
    const { sim, shopId, orders, release } = await bookedWhileHeld(domain, 6);
    // The first shared write is applied, and its answer held: the write is out. (Jobs fetched beside the
    // first are given back, and may write alone before it.)
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let held: OperationLogEntry | null = null;
    sim.answerAfter = (call) => {
      if (held || !/^BookingsWrite\d+$/.test(call.operationName)) return undefined;
      held = call;
      return gate;
    };
    const { startTestApp } = await import('../support/app.ts');
    let second: Awaited<ReturnType<typeof startTestApp>> | undefined;
    try {
      await release();
      const write = await waitFor(async () => held, "this instance's shared write to go out");
      const carried = ordersOf(write);
      second = await startTestApp({ ...s.app.env, PORT: '0' }, { databaseUrl: s.app.config.databaseUrl, keepDatabase: true });
      await s.app.ctx.queue.hurry(JOBS.writeback, shopId);
      // The second instance polls meanwhile: it may write an order that write does not carry, none that it does.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(bookingCalls(sim).filter((c) => c !== write).flatMap(ordersOf).filter((o) => carried.includes(o))).toEqual([]);
    } finally {
      open();
      sim.answerAfter = null;
      await second?.close();
    }
    await allWritten(domain, sim, orders);
    expect(bookingCalls(sim).flatMap(ordersOf).sort()).toEqual(orders.map((o) => o.orderId).sort());
  });

  // Where one write-back per shop runs at a time: on pg-boss a job fetched beside the first may meet the
  // injected refusal alone, and a refusal of a lone write is final (writeback_failed), as it always was.
  it.runIf(oneAtATime)('when Shopify refuses the shared write, this order goes alone, and the rest by their own jobs', async () => {
    const domain = 'together-refused.myshopify.com';
    const { sim, orders, release } = await bookedWhileHeld(domain, 3);
    // One tag refused: the shared write is not trusted; each order is written again on its own path.
    sim.failNext.set('TagsAdd', 'Simulated: tags are locked');
    await release();
    await allWritten(domain, sim, orders);
    expect(bookingWrites(sim)).toEqual(['BookingsWrite3 user_errors', 'BookingWrite ok', 'BookingsWrite2 ok']);
  });
});
