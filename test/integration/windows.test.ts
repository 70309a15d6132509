// Delivery windows end to end (web/windows/): an order paid outside its pickup location's
// window is SCHEDULED with the planned time, and a moved clock makes its dispatch job book
// it. Real app and queue, the sandbox courier, the Shopify simulator; SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postShopifyWebhook } from '../support/shopify.ts';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { dispatchNow } from '../../web/dispatch/service.ts';
import { runDispatch } from '../../web/dispatch/dispatcher.ts';
import { SCHEDULED_OVERDUE_MS } from '../../web/dispatch/windows.ts';
import { updateSettings } from '../../web/settings/store.ts';
import { aroundMidnight, madeBefore, TestClock, wallTime } from '../support/time.ts';

/** Monday evening, UTC. Every test starts here; the next opening of a shop closed today is fixed too. */
const START = '2026-11-23T21:45:00Z';
const clock = new TestClock(START);
let s: Scenario;
beforeAll(async () => {
  s = await startScenario({ runtime: { clock } });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await s.courier.reset();
});
afterEach(async () => {
  // A delivery left scheduled would be booked when a later test moves the clock.
  await s.app.db.delivery.deleteMany({ where: { status: 'SCHEDULED' } });
  clock.moveTo(START);
});

const DAY = { open: '08:00', close: '18:00' };
const EVERY_DAY = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY };
/** Open every day 08:00–18:00 UTC, but closed today (and on `more` dates): the next opening is tomorrow 08:00 plus 30 minutes. */
function closedToday(more: string[] = []) {
  return { default: { timeZone: 'UTC', hours: EVERY_DAY, cutoff: null, closures: ['2026-11-23', ...more], prepMinutes: 30 } };
}
const tomorrowOpening = (days = 1) => Date.parse(`2026-11-${23 + days}T08:30:00Z`);

async function scheduledOrder(shop: string, windows = closedToday(), on: Scenario = s) {
  const sim = await installShop(on, shop, { settings: { windows } });
  const { orderId, payload } = await placeOrder(on, sim);
  const d = await waitForStatus(on.app, shop, orderId, 'SCHEDULED');
  return { sim, orderId, payload, d };
}

/** The delivery's window job, waiting more than an hour (the queue's own machine time). */
function waitingWindowJobs(d: { id: string }, on: Scenario = s) {
  return on.app.ctx.queue.backend === 'sqlite'
    ? on.app.db.job.findMany({ where: { queue: 'dispatch', state: 'created', singletonKey: { startsWith: `dispatch-window:${d.id}:` }, runAt: { gt: new Date(Date.now() + 3_600_000) } } })
    : on.app.db.$queryRawUnsafe<unknown[]>(`SELECT id FROM pgboss.job WHERE name = 'dispatch' AND state = 'created' AND singleton_key LIKE $1 AND start_after > now() + interval '1 hour'`, `key:dispatch-window:${d.id}:%`);
}

describe('an order paid outside the window', () => {
  it('is SCHEDULED with the planned time and reason, and at the moved clock its job dispatches it (CREATED)', async () => {
    const shop = 'windows-scheduled.myshopify.com';
    const { orderId, d } = await scheduledOrder(shop);
    expect(d.scheduledFor?.getTime()).toBe(tomorrowOpening());
    expect(d.reasonCode).toBe('outside_window');
    expect(d.reason).toMatch(/^Scheduled for \w{3} \d{4}-\d{2}-\d{2} 08:30 \(UTC\): the location is closed today$/);
    expect(d.requestBody).toBeNull();
    expect(d.events.map((e) => e.kind)).toContain('scheduled');
    expect(await s.courier.orders()).toHaveLength(0);
    // A dispatch job waits for the planned time.
    expect(await waitingWindowJobs(d)).toHaveLength(1);

    clock.moveTo(tomorrowOpening() + 1_000);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(booked.courierOrderId).toBeTruthy();
    expect(booked.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['scheduled', 'window_opened', 'created']));
    expect(await s.courier.orders()).toHaveLength(1);
  });

  it('before the planned time its job leaves it scheduled', async () => {
    const shop = 'windows-early-job.myshopify.com';
    const { orderId, d } = await scheduledOrder(shop);
    await runDispatch(s.app.ctx, { deliveryId: d.id, generation: d.generation });
    const after = await deliveryOf(s.app, shop, orderId);
    expect(after?.status).toBe('SCHEDULED');
    // Untouched: not opened and scheduled again.
    expect(after?.events.map((e) => e.kind)).not.toContain('window_opened');
    expect(after?.updatedAt).toEqual(d.updatedAt);
    expect(await s.courier.orders()).toHaveLength(0);
  });

  it("the shop's Shopify budget coming back (a hurry of its dispatch jobs) leaves its job waiting for the planned time", async () => {
    // Run early, the job would find it too soon, end, and leave the delivery with no job to open it.
    const shop = 'windows-hurried.myshopify.com';
    const { orderId, d } = await scheduledOrder(shop);
    expect(await s.app.ctx.queue.hurry('dispatch', d.shopId)).toBe(0);
    await new Promise((r) => setTimeout(r, s.app.ctx.queue.backend === 'sqlite' ? 300 : 1_500));
    expect(await waitingWindowJobs(d)).toHaveLength(1);
    expect((await deliveryOf(s.app, shop, orderId))?.status).toBe('SCHEDULED');
  });

  it('the merchant can dispatch it now anyway', async () => {
    const shop = 'windows-dispatch-now.myshopify.com';
    const { orderId, d } = await scheduledOrder(shop);
    await s.app.db.$transaction((tx) => dispatchNow(tx, s.app.ctx.queue, shop, d.id));
    s.app.ctx.queue.notify();
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(booked.windowBypass).toBe(true);
    expect(await s.courier.orders()).toHaveLength(1);
  });

  it('cancelled in Shopify while scheduled: SKIPPED, and its job books nothing at the planned time', async () => {
    const shop = 'windows-cancelled.myshopify.com';
    const { orderId, payload, d } = await scheduledOrder(shop);
    const r = await postShopifyWebhook(s.app.url, 'orders/cancelled', shop, { ...payload, cancelled_at: clock.date().toISOString() });
    expect(r.status).toBe(200);
    expect((await deliveryOf(s.app, shop, orderId))?.status).toBe('SKIPPED');
    clock.moveTo(tomorrowOpening() + 1_000);
    await runDispatch(s.app.ctx, { deliveryId: d.id, generation: d.generation });
    const after = await deliveryOf(s.app, shop, orderId);
    expect(after?.status).toBe('SKIPPED');
    expect(after?.reasonCode).toBe('cancelled');
    expect(await s.courier.orders()).toHaveLength(0);
  });

  it('settings changed while scheduled: at run time the window is checked again and it is scheduled later', async () => {
    const shop = 'windows-settings-changed.myshopify.com';
    const { orderId, d } = await scheduledOrder(shop);
    // Tomorrow became a closure too.
    await updateSettings(s.app.db, shop, { windows: closedToday(['2026-11-24']) });
    clock.moveTo(tomorrowOpening() + 1_000);
    const later = await waitFor(async () => {
      const x = await deliveryOf(s.app, shop, orderId);
      return x?.status === 'SCHEDULED' && x.scheduledFor?.getTime() === tomorrowOpening(2) ? x : null;
    }, 'rescheduled for the day after', 20_000);
    expect(later.events.filter((e) => e.kind === 'scheduled')).toHaveLength(2);
    expect(d.scheduledFor?.getTime()).toBe(tomorrowOpening());
    expect(await s.courier.orders()).toHaveLength(0);
  });

  it('an address edit in Shopify while scheduled is what gets booked at the opening', async () => {
    const shop = 'windows-address-edit.myshopify.com';
    const { orderId, payload } = await scheduledOrder(shop);
    const address = payload.shipping_address as Record<string, unknown>;
    const edited = { ...payload, updated_at: new Date(clock.now() + 60_000).toISOString(), shipping_address: { ...address, address1: '1 Scheduled Street' } };
    expect((await postShopifyWebhook(s.app.url, 'orders/updated', shop, edited)).status).toBe(200);
    clock.moveTo(tomorrowOpening() + 1_000);
    const booked = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(booked.requestBody).toContain('1 Scheduled Street');
  });

  it('inside the window it is dispatched at once', async () => {
    const shop = 'windows-open.myshopify.com';
    const sim = await installShop(s, shop, { settings: { windows: { default: { ...closedToday().default, closures: [], hours: { mon: { open: '00:00', close: '23:59' }, tue: { open: '00:00', close: '23:59' }, wed: { open: '00:00', close: '23:59' }, thu: { open: '00:00', close: '23:59' }, fri: { open: '00:00', close: '23:59' }, sat: { open: '00:00', close: '23:59' }, sun: { open: '00:00', close: '23:59' } } } } } });
    const { orderId } = await placeOrder(s, sim);
    const d = await waitForStatus(s.app, shop, orderId, 'CREATED');
    expect(d.scheduledFor).toBeNull();
  });
});

// The shop's day decides "closed today", not UTC's: paid late on the day before a closure, or just
// after midnight on it, the order waits for the opening after the closure, in the shop's zone.
const MIDNIGHT = [
  ...aroundMidnight('2026-11-23', ['23:50', '00:10']).map((m) => ({ name: m.name, zone: m.zone, at: m.at, closure: '2026-11-24', planned: wallTime('2026-11-25', '08:30', m.offset) })),
  // Summer time starts in New York in the night of the closure: the opening is 08:30 EDT. London's ends.
  { name: 'New York, 23:50 EST before the closure', zone: 'America/New_York', at: Date.parse('2026-03-07T23:50:00-05:00'), closure: '2026-03-08', planned: Date.parse('2026-03-09T08:30:00-04:00') },
  { name: 'London, 23:50 BST before the closure', zone: 'Europe/London', at: Date.parse('2026-10-24T23:50:00+01:00'), closure: '2026-10-25', planned: Date.parse('2026-10-26T08:30:00+00:00') },
];

describe('a scheduled delivery whose job was lost', () => {
  it(`is dispatched by the periodic sweep once ${SCHEDULED_OVERDUE_MS / 60_000} minutes past its planned time`, async () => {
    const own = new TestClock(START);
    // No onJump: a moved clock is seen by the sweep only, as a real clock's passing time would be.
    const on = await startScenario({ runtime: { clock: { now: own.now }, scheduledSweepMs: 200 } });
    try {
      const shop = 'windows-lost-job.myshopify.com';
      const { orderId, d } = await scheduledOrder(shop, closedToday(), on);
      expect(await waitingWindowJobs(d, on)).toHaveLength(1);
      await (on.app.ctx.queue.backend === 'sqlite'
        ? on.app.db.job.deleteMany({ where: { queue: 'dispatch', singletonKey: { startsWith: `dispatch-window:${d.id}:` } } })
        : on.app.db.$executeRawUnsafe(`DELETE FROM pgboss.job WHERE name = 'dispatch' AND singleton_key LIKE $1`, `key:dispatch-window:${d.id}:%`));
      expect(await waitingWindowJobs(d, on)).toHaveLength(0);

      // Due a minute ago: its own job may still be on its way.
      own.moveTo(tomorrowOpening() + 60_000);
      await new Promise((r) => setTimeout(r, on.app.ctx.queue.backend === 'sqlite' ? 1_000 : 2_500));
      expect((await deliveryOf(on.app, shop, orderId))?.status).toBe('SCHEDULED');

      own.moveTo(tomorrowOpening() + SCHEDULED_OVERDUE_MS + 1_000);
      const booked = await waitForStatus(on.app, shop, orderId, 'CREATED');
      expect(booked.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['scheduled', 'window_opened', 'created']));
      expect(await on.courier.orders()).toHaveLength(1);
    } finally {
      await on.close();
    }
  });
});

describe('paid around midnight in the shop\'s zone', () => {
  it.each(MIDNIGHT.map((row, i) => [row.name, { ...row, i }] as const))('%s: scheduled for the opening after the closure', async (_name, { zone, at, closure, planned, i }) => {
    const shop = `windows-midnight-${i}.myshopify.com`;
    const sim = await installShop(s, shop, { settings: { windows: { default: { timeZone: zone, hours: EVERY_DAY, cutoff: null, closures: [closure], prepMinutes: 30 } } } });
    clock.moveTo(at);
    const { orderId } = await placeOrder(s, sim, madeBefore(at));
    const d = await waitForStatus(s.app, shop, orderId, 'SCHEDULED');
    expect(d.scheduledFor?.toISOString()).toBe(new Date(planned).toISOString());
    expect(d.reasonCode).toBe('outside_window');
    expect(d.reason).toContain(`(${zone})`);
    expect(await s.courier.orders()).toHaveLength(0);
  });
});
