// The shared Shopify budget on PostgreSQL (web/shopify/pacer.ts PgBudgetStore): takes and settles
// asked for together in one process go in one transaction under the row lock, each decided on the
// budget the one before it left, exactly as the pure take/settle applied in turn decide them.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { freshBudget, PgBudgetStore, settle, take, type Budget } from '../../web/shopify/pacer.ts';
import { testProvider, useFreshDatabase } from '../support/db.ts';

describe.runIf(testProvider() === 'postgres')('the Shopify budget row on PostgreSQL', () => {
  const fresh = useFreshDatabase();
  let database: Database;
  beforeAll(() => void (database = fresh.database));

  /** The store over a client that counts its transactions. */
  function countingStore(o: { settleDelayMs?: number } = {}) {
    const counter = { transactions: 0 };
    const db = new Proxy(database.db, {
      get: (t, k) => (k === '$transaction' ? (...a: unknown[]) => (counter.transactions++, (t.$transaction as (...x: unknown[]) => unknown)(...a)) : Reflect.get(t, k)),
    });
    return { store: new PgBudgetStore(db, o), counter };
  }

  it('takes asked for together are one transaction after the first, each decided as if applied in turn', async () => {
    const now = 1_000_000; // no refill between the takes: the clock stands still
    const { store, counter } = countingStore();
    const waits = await Promise.all(Array.from({ length: 10 }, () => store.take('batch.myshopify.com', 100, now, 0)));
    // The pure decisions applied one after another to the fresh budget (500 of 2,000 points).
    let b: Budget = freshBudget(now);
    const expected = Array.from({ length: 10 }, () => {
      const r = take(b, 100, now, 0);
      b = r.budget;
      return r.waitMs;
    });
    expect(waits).toEqual(expected);
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
    // The first went alone; the nine asked for while it ran went together.
    expect(counter.transactions).toBe(2);
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = 'batch.myshopify.com'`;
    expect(row!.available).toBe(b.available);
  });

  it('another instance (its own store) takes from what the first left; settles and takes interleave in the order asked', async () => {
    const now = 2_000_000;
    const shop = 'shared.myshopify.com';
    const { store: first } = countingStore();
    const { store: second, counter } = countingStore();
    expect(await first.take(shop, 400, now, 0)).toBe(0); // 500 → 100
    const report = { requested: 100, actual: 20, status: { maximumAvailable: 2000, currentlyAvailable: 1000, restoreRate: 100 } };
    const [a, , c] = await Promise.all([second.take(shop, 100, now, 0), second.settle(shop, report, now), second.take(shop, 100, now, 0)]);
    let b: Budget = { ...freshBudget(now), available: 100 };
    const r1 = take(b, 100, now, 0);
    b = settle(r1.budget, report, now);
    const r3 = take(b, 100, now, 0);
    expect([a, c]).toEqual([r1.waitMs, r3.waitMs]);
    expect([a, c]).toEqual([0, 200]); // the refund of 80 leaves the third 20 points (200 ms) short
    expect(counter.transactions).toBe(2);
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(row!.available).toBe(r3.budget.available);
  });

  it('a settle waits for the next take and goes in its transaction, applied before it; alone, it goes after the delay', async () => {
    const now = 4_000_000;
    const shop = 'lazy.myshopify.com';
    const { store, counter } = countingStore({ settleDelayMs: 60_000 });
    expect(await store.take(shop, 500, now, 0)).toBe(0); // 500 → 0
    expect(counter.transactions).toBe(1);
    const refunded = store.settle(shop, { requested: 500, actual: 100, status: null }, now); // 400 back
    await new Promise((r) => setTimeout(r, 50));
    expect(counter.transactions).toBe(1); // still waiting for a take
    expect(await store.take(shop, 400, now, 0)).toBe(0); // paid by the refund
    await refunded;
    expect(counter.transactions).toBe(2);

    const { store: quick, counter: quickCounter } = countingStore({ settleDelayMs: 20 });
    await quick.settle(shop, { requested: 100, actual: 0, status: null }, now);
    expect(quickCounter.transactions).toBe(1);
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(row!.available).toBe(100);
  });

  it('a failed transaction fails every step that went in it, and the next steps run', async () => {
    let fail = true;
    const db = new Proxy(database.db, {
      get: (t, k) => (k === '$transaction' ? (...a: unknown[]) => (fail ? ((fail = false), Promise.reject(new Error('connection lost'))) : (t.$transaction as (...x: unknown[]) => unknown)(...a)) : Reflect.get(t, k)),
    });
    const store = new PgBudgetStore(db);
    await expect(store.take('lost.myshopify.com', 10, 3_000_000, 0)).rejects.toThrow('connection lost');
    expect(await store.take('lost.myshopify.com', 10, 3_000_000, 0)).toBe(0);
  });
});
