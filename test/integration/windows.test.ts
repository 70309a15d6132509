// Delivery windows end to end (web/windows/): an order paid outside its pickup location's
// window is SCHEDULED with the planned time, and a moved clock makes its dispatch job book
// it. Real app and queue, the sandbox courier, the Shopify simulator; SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postShopifyWebhook } from '../support/shopify.ts';
import { waitFor } from '../support/process.ts';
import { deliveryOf, installShop, placeOrder, startScenario, waitForStatus, type Scenario } from '../support/scenario.ts';
import { dispatchNow } from '../../web/dispatch/service.ts';
import { runDispatch } from '../../web/dispatch/dispatcher.ts';
import { updateSettings } from '../../web/settings/store.ts';
import type { Clock } from '../../web/ops/clock.ts';

/** Real time plus an offset the test moves; a jump wakes the app like the dev clock does. */
class MovableClock implements Clock {
  offsetMs = 0;
  #listeners: Array<() => void> = [];
  now = () => Date.now() + this.offsetMs;
  onJump(l: () => void) {
    this.#listeners.push(l);
  }
  moveTo(t: number) {
    this.offsetMs = t - Date.now();
    for (const l of this.#listeners) l();
  }
}

const clock = new MovableClock();
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
  clock.offsetMs = 0;
  // A delivery left scheduled would be booked when a later test moves the clock.
  await s.app.db.delivery.deleteMany({ where: { status: 'SCHEDULED' } });
});

const DAY = { open: '08:00', close: '18:00' };
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
/** Open every day 08:00–18:00 UTC, but closed today (and on `more` dates): the next opening is tomorrow 08:00 plus 30 minutes. */
function closedToday(more: string[] = []) {
  return {
    default: {
      timeZone: 'UTC', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: null,
      closures: [isoDay(Date.now()), ...more], prepMinutes: 30,
    },
  };
}
const tomorrowOpening = (days = 1) => Date.parse(`${isoDay(Date.now() + days * 86_400_000)}T08:30:00Z`);

async function scheduledOrder(shop: string, windows = closedToday()) {
  const sim = await installShop(s, shop, { settings: { windows } });
  const { orderId, payload } = await placeOrder(s, sim);
  const d = await waitForStatus(s.app, shop, orderId, 'SCHEDULED');
  return { sim, orderId, payload, d };
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
    const jobs = s.app.ctx.queue.backend === 'sqlite'
      ? await s.app.db.job.findMany({ where: { queue: 'dispatch', singletonKey: { startsWith: `dispatch-window:${d.id}:` }, runAt: { gt: new Date(Date.now() + 3_600_000) } } })
      : await s.app.db.$queryRawUnsafe<unknown[]>(`SELECT id FROM pgboss.job WHERE name = 'dispatch' AND singleton_key LIKE $1 AND start_after > now() + interval '1 hour'`, `key:dispatch-window:${d.id}:%`);
    expect(jobs).toHaveLength(1);

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
    const r = await postShopifyWebhook(s.app.url, 'orders/cancelled', shop, { ...payload, cancelled_at: new Date().toISOString() });
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
    await updateSettings(s.app.db, shop, { windows: closedToday([isoDay(tomorrowOpening())]) });
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
    const edited = { ...payload, updated_at: new Date(Date.now() + 60_000).toISOString(), shipping_address: { ...address, address1: '1 Scheduled Street' } };
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
