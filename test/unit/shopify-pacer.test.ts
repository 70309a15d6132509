// The per-shop pacer's arithmetic (web/shopify/pacer.ts), as tables, and the pacer over
// an in-memory budget on an injected clock.
import { describe, expect, it } from 'vitest';
import { shopifyPacer } from '../../web/shopify/admin-api.ts';
import { MemoryBudgetStore, onTick, OWN_REFILL_SLEEP_MS, PACE_TICK_MS, ShopifyBudgetWait, ShopifyPacer, settle, take, VISIBLE_RESERVE, type Budget, type Priority, type ThrottleWait } from '../../web/shopify/pacer.ts';

const b = (available: number, at = 0, maximum = 2000, restoreRate = 100): Budget => ({ available, maximum, restoreRate, at });

describe('take', () => {
  it.each([
    ['pays from what is there', b(600), 538, 0, 0, { waitMs: 0, available: 62 }],
    ['refills at the restore rate first', b(0), 538, 5_380, 0, { waitMs: 0, available: 0 }],
    ['waits for what is missing', b(0), 538, 1_000, 0, { waitMs: 4_380, available: 100 }],
    ['never above the maximum', b(1990), 10, 60_000, 0, { waitMs: 0, available: 1990 }],
    ['a background call leaves the reserve', b(600), 20, 0, 500, { waitMs: 0, available: 580 }],
    ['…and waits when it would eat into it', b(510), 20, 0, 500, { waitMs: 100, available: 510 }],
    ['a cost above the whole bucket waits for a full one, not forever', b(0, 0, 600, 50), 1000, 0, 0, { waitMs: 12_000, available: 0 }],
  ])('%s', (_name, budget, cost, now, reserve, want) => {
    const r = take(budget, cost, now, reserve);
    expect({ waitMs: r.waitMs, available: Math.round(r.budget.available) }).toEqual(want);
  });
});

describe('settle', () => {
  const status = (currentlyAvailable: number, maximumAvailable = 2000, restoreRate = 100) => ({ currentlyAvailable, maximumAvailable, restoreRate });
  it.each([
    ['the refund comes back', b(62), { requested: 538, actual: 11, status: status(1989) }, 589],
    ["Shopify's lower count wins (another process, a drained bucket)", b(1462), { requested: 538, actual: 11, status: status(300) }, 300],
    ['THROTTLED: nothing ran, all of it comes back, then Shopify\'s count', b(62), { requested: 538, actual: null, status: status(400) }, 400],
    ['no throttleStatus: only the refund', b(62), { requested: 538, actual: 11, status: null }, 589],
  ])('%s', (_name, budget, report, available) => {
    expect(Math.round(settle(budget, report, 0).available)).toBe(available);
  });

  it('adopts the plan Shopify reports', () => {
    expect(settle(b(62), { requested: 10, actual: 10, status: status(19_000, 20_000, 1000) }, 0)).toMatchObject({ maximum: 20_000, restoreRate: 1000 });
  });
});

describe('onTick', () => {
  it.each([
    ['ends on the next multiple of the tick', 1_010, 100, 250, 240],
    ['…counted from the epoch, not from now', 1_100, 100, 250, 150],
    ['a wait that ends on a tick keeps its length', 1_000, 250, 250, 250],
    ['no wait stays no wait', 1_010, 0, 250, 0],
    ['no tick: the wait as it is', 1_010, 100, 0, 100],
  ])('%s', (_name, now, waitMs, tickMs, want) => {
    expect(onTick(now, waitMs, tickMs)).toBe(want);
  });
});

describe('ShopifyPacer', () => {
  function pacer() {
    let t = 0;
    const waits: ThrottleWait[] = [];
    const store = new MemoryBudgetStore();
    const p = new ShopifyPacer({ store, now: () => t, sleep: async (ms) => void (t += ms), costs: { Read: 538, Write: 10 }, onWait: (w) => waits.push(w) });
    return { p, store, waits, advance: (ms: number) => void (t += ms) };
  }

  it('waits until the shop can pay, one shop at a time: another shop is not held', async () => {
    const { p, waits } = pacer();
    await p.acquire('a.myshopify.com', 'Read'); // the first of an unknown shop: a quarter of the smallest bucket, after a short wait
    await p.acquire('a.myshopify.com', 'Read');
    expect(waits.map((w) => [w.shop, w.reason, w.waitMs])).toEqual([['a.myshopify.com', 'budget', 380], ['a.myshopify.com', 'budget', 5380]]);
    await p.acquire('b.myshopify.com', 'Write');
    expect(waits).toHaveLength(2);
  });

  it('a job (deferAfterMs) gets ShopifyBudgetWait instead of a long wait', async () => {
    const { p } = pacer();
    await p.acquire('a.myshopify.com', 'Read', { deferAfterMs: 2_000 });
    const e = await p.acquire('a.myshopify.com', 'Read', { deferAfterMs: 2_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(ShopifyBudgetWait);
    expect(e.retryAfterMs).toBe(5380);
  });

  it('background calls leave a quarter of the bucket to customer-visible ones', async () => {
    const { p, store, advance } = pacer();
    p.noteMaximum('a.myshopify.com', 2000);
    await store.settle('a.myshopify.com', { requested: 0, actual: 0, status: { currentlyAvailable: 510, maximumAvailable: 2000, restoreRate: 100 } }, 0);
    const e = await p.acquire('a.myshopify.com', 'Write', { priority: 'background', deferAfterMs: 0 }).catch((x) => x);
    expect(e).toBeInstanceOf(ShopifyBudgetWait);
    await p.acquire('a.myshopify.com', 'Write', { deferAfterMs: 0 });
    advance(0);
    expect(VISIBLE_RESERVE).toBe(0.25);
  });

  it('a deferred visible call gets its own slot, not one behind deferred background writes', async () => {
    const t = 0;
    const store = new MemoryBudgetStore();
    // Reads big enough (538 points, 10.76 s at 50/s) that a visible one defers rather than sleeps.
    const p = new ShopifyPacer({ store, now: () => t, sleep: async () => {}, costs: { Read: 538, Write: 10 } });
    p.noteMaximum('a.myshopify.com', 1000);
    await p.settle('a.myshopify.com', 'Read', { requested: 0, actual: null, status: { currentlyAvailable: 0, maximumAvailable: 1000, restoreRate: 50 } });
    const deferred = (priority: Priority, operation: string) =>
      p.acquire('a.myshopify.com', operation, { priority, deferAfterMs: 0 }).then(() => 0, (e: ShopifyBudgetWait) => e.retryAfterMs);
    const writes: number[] = [];
    for (let i = 0; i < 100; i++) writes.push(await deferred('background', 'Write'));
    // Background waits for the reserve too (the largest call, 538, + 10 points at 50/s), then one every 200 ms.
    expect(writes.slice(0, 3)).toEqual([10_960, 11_160, 11_360]);
    expect(writes.at(-1)).toBe(30_760);
    // A visible read waits only for its own 538 points; the next visible read comes 10.76 s after it.
    expect([await deferred('visible', 'Read'), await deferred('visible', 'Read')]).toEqual([10_760, 21_520]);
    // And background spacing is not reset by the visible deferrals.
    expect(await deferred('background', 'Write')).toBe(30_960);
  });

  it('a job sleeps through a wait only for its own cost to refill (up to a second), and defers longer ones', async () => {
    let t = 0;
    const slept: number[] = [];
    const store = new MemoryBudgetStore();
    const p = new ShopifyPacer({ store, now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)), costs: { Small: 28, Big: 538, Write: 10 } });
    p.noteMaximum('a.myshopify.com', 2000);
    await p.settle('a.myshopify.com', 'Small', { requested: 0, actual: null, status: { currentlyAvailable: 0, maximumAvailable: 2000, restoreRate: 100 } });
    const outcome = (operation: string, priority: Priority = 'visible') =>
      p.acquire('a.myshopify.com', operation, { priority, deferAfterMs: 250 }).then(() => 'ran', (e: unknown) => (e instanceof ShopifyBudgetWait ? 'deferred' : e));
    // 28 points at 100/s: 280 ms, longer than deferAfterMs but its own refill: it sleeps and runs.
    expect(await outcome('Small')).toBe('ran');
    expect(slept).toEqual([280]);
    // 538 points: 5.38 s, more than OWN_REFILL_SLEEP_MS: it gives back its worker.
    expect(OWN_REFILL_SLEEP_MS).toBe(1_000);
    expect(await outcome('Big')).toBe('deferred');
    // A background write's wait is the reserve's, not its own refill: it defers.
    expect(await outcome('Write', 'background')).toBe('deferred');
    expect(slept).toEqual([280]);
  });

  it("a deferred background call's job is woken once the budget can pay it again, checked as it refills while visible calls drain it", async () => {
    let t = 0;
    const timers: Array<{ at: number; fn: () => void }> = [];
    const store = new MemoryBudgetStore();
    const p = new ShopifyPacer({ store, now: () => t, sleep: async () => {}, costs: { Read: 538, Small: 28, Write: 10 }, timer: (fn, ms) => void timers.push({ at: t + ms, fn }) });
    p.noteMaximum('a.myshopify.com', 2000);
    await p.settle('a.myshopify.com', 'Read', { requested: 0, actual: null, status: { currentlyAvailable: 0, maximumAvailable: 2000, restoreRate: 100 } });
    const woken: string[] = [];
    const defer = async (priority: Priority, key: string) => {
      const e = await p.acquire('a.myshopify.com', priority === 'visible' ? 'Read' : 'Write', { priority, deferAfterMs: 0 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ShopifyBudgetWait);
      (e as ShopifyBudgetWait).whenRoom?.(key, async () => void woken.push(key));
      return e as ShopifyBudgetWait;
    };
    // A visible call's deferral comes back at its slot: nothing to wake.
    expect((await defer('visible', 'v')).whenRoom).toBeUndefined();
    // Two write-backs of one queue and group: one wake. The first look when the reserve (the largest
    // call, 538) and its own 10 points could be there: 5.48 s at 100/s.
    await defer('background', 'writeback|shop-1');
    await defer('background', 'writeback|shop-1');
    expect(timers.map((x) => x.at)).toEqual([5_480]);
    const fire = async () => {
      const next = timers.shift()!;
      t = next.at;
      next.fn();
      await new Promise((r) => setTimeout(r, 0));
    };
    // Meanwhile visible calls took what refilled (500 points at 5 s, 17 × 28 taken): not yet, and it
    // looks again when what is missing could be there (548 − 72 points: 4.76 s later).
    t = 5_000;
    for (let i = 0; i < 17; i++) await p.acquire('a.myshopify.com', 'Small');
    await fire();
    expect(woken).toEqual([]);
    expect(timers.map((x) => x.at)).toEqual([10_240]);
    await fire();
    expect(woken).toEqual(['writeback|shop-1']);
    expect(timers).toHaveLength(0);
    // Woken once: a later deferral (visible calls took the budget again) asks again.
    await p.acquire('a.myshopify.com', 'Read');
    await defer('background', 'writeback|shop-1');
    expect(timers).toHaveLength(1);
  });

  it('with a tick, sleeps and deferrals end on it: calls the budget spaces apart wake together', async () => {
    let t = 1_000;
    const slept: number[] = [];
    const store = new MemoryBudgetStore();
    const p = new ShopifyPacer({ store, now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)), costs: { Small: 28, Big: 538 }, tickMs: 250 });
    p.noteMaximum('a.myshopify.com', 2000);
    await p.settle('a.myshopify.com', 'Small', { requested: 0, actual: null, status: { currentlyAvailable: 0, maximumAvailable: 2000, restoreRate: 100 } });
    // 28 points at 100/s: 280 ms, so it sleeps until the tick after 1,280, at 1,500.
    await p.acquire('a.myshopify.com', 'Small', { deferAfterMs: 250 });
    expect(slept).toEqual([500]);
    // Deferred reads come back at slots 5.38 s apart (the first 5.16 s: 22 points refilled since), each moved to the tick after it.
    const deferred = async () => ((await p.acquire('a.myshopify.com', 'Big', { deferAfterMs: 250 }).catch((e: unknown) => e)) as ShopifyBudgetWait).retryAfterMs;
    const waits = [await deferred(), await deferred()];
    expect(waits.map((w) => (t + w) % 250)).toEqual([0, 0]);
    expect(waits).toEqual([5_250, 10_750]);
  });

  it('a deferral counts its wait from when it was decided: the job queued a little later still comes back on the tick', async () => {
    const e = new ShopifyBudgetWait('a.myshopify.com', 1_000);
    const until = performance.now() + 30;
    while (performance.now() < until); // the transaction that queues the job again
    expect(e.retryAfterMs).toBe(1_000);
    expect(e.leftMs()).toBeLessThanOrEqual(970);
    expect(e.leftMs()).toBeGreaterThan(500);
    expect(new ShopifyBudgetWait('a.myshopify.com', 0).leftMs()).toBe(0);
  });

  it('learns an operation\'s cost from what Shopify reports', async () => {
    const { p } = pacer();
    expect(p.costOf('Unknown')).toBe(50);
    await p.settle('a.myshopify.com', 'Unknown', { requested: 77, actual: 5, status: null });
    expect(p.costOf('Unknown')).toBe(77);
  });
});

describe("the runtime's pacer (shopifyPacer, as web/runtime.ts builds it)", () => {
  it.each(['sqlite', 'postgres'] as const)('on %s ends budget waits on the 1 s tick unless told otherwise', (provider) => {
    const database = { provider, db: {} as never };
    expect(PACE_TICK_MS).toBe(1_000);
    expect(shopifyPacer(database, () => 0).tickMs).toBe(PACE_TICK_MS);
    expect(shopifyPacer(database, () => 0, 50).tickMs).toBe(50);
  });
});
