// The shared Shopify budget on PostgreSQL (web/shopify/pacer.ts PgBudgetStore): takes and settles
// asked for together in one process go in one compare-and-set write, each decided on the budget the
// one before it left, exactly as the pure take/settle applied in turn decide them; a write over a row
// another instance changed meanwhile updates nothing and is decided again on a fresh read.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { freshBudget, PgBudgetStore, settle, take, type Budget } from '../../web/shopify/pacer.ts';
import { testProvider, useFreshDatabase } from '../support/db.ts';

describe.runIf(testProvider() === 'postgres')('the Shopify budget row on PostgreSQL', () => {
  const fresh = useFreshDatabase();
  let database: Database;
  beforeAll(() => void (database = fresh.database));

  /** The store over a client that counts its statements: UPDATEs of the row (writes) and all. */
  function countingStore(o: { settleDelayMs?: number } = {}) {
    const counter = { writes: 0, statements: 0 };
    const db = new Proxy(database.db, {
      get: (t, k) => {
        if (k === '$transaction') throw new Error('the budget store runs no transaction');
        const v = Reflect.get(t, k);
        if (k !== '$executeRaw' && k !== '$queryRaw') return v;
        return (strings: TemplateStringsArray, ...values: unknown[]) => {
          counter.statements++;
          if (strings[0]!.trimStart().startsWith('UPDATE')) counter.writes++;
          return (v as (...x: unknown[]) => unknown).call(t, strings, ...values);
        };
      },
    });
    return { store: new PgBudgetStore(db, o), counter };
  }

  it('takes asked for together are one write after the first, each decided as if applied in turn', async () => {
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
    // The first went alone (the row read, created, read again, written); the nine asked for while it ran went together, in one statement.
    expect(counter.writes).toBe(2);
    expect(counter.statements).toBe(5);
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
    expect(counter.writes).toBe(2);
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(row!.available).toBe(r3.budget.available);
  });

  it('a settle waits for the next take and goes in its write, applied before it; alone, it goes after the delay', async () => {
    const now = 4_000_000;
    const shop = 'lazy.myshopify.com';
    const { store, counter } = countingStore({ settleDelayMs: 60_000 });
    expect(await store.take(shop, 500, now, 0)).toBe(0); // 500 → 0
    expect(counter.writes).toBe(1);
    const refunded = store.settle(shop, { requested: 500, actual: 100, status: null }, now); // 400 back
    await new Promise((r) => setTimeout(r, 50));
    expect(counter.writes).toBe(1); // still waiting for a take
    expect(await store.take(shop, 400, now, 0)).toBe(0); // paid by the refund
    await refunded;
    expect(counter.writes).toBe(2);

    const { store: quick, counter: quickCounter } = countingStore({ settleDelayMs: 20 });
    await quick.settle(shop, { requested: 100, actual: 0, status: null }, now);
    expect(quickCounter.writes).toBe(1);
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(row!.available).toBe(100);
  });

  it('a failed write fails every step that went in it, and the next steps run', async () => {
    let fail = true;
    const db = new Proxy(database.db, {
      get: (t, k) => (k === '$executeRaw' && fail ? () => ((fail = false), Promise.reject(new Error('connection lost'))) : Reflect.get(t, k)),
    });
    const store = new PgBudgetStore(db);
    await expect(store.take('lost.myshopify.com', 10, 3_000_000, 0)).rejects.toThrow('connection lost');
    expect(await store.take('lost.myshopify.com', 10, 3_000_000, 0)).toBe(0);
  });

  it('a row another instance wrote after this one last wrote it: nothing is written over it, and the steps are decided on it', async () => {
    const now = 5_000_000;
    const shop = 'raced.myshopify.com';
    const { store: first, counter } = countingStore();
    const { store: second } = countingStore();
    expect(await first.take(shop, 100, now, 0)).toBe(0); // 500 → 400, and the first remembers 400
    expect(await second.take(shop, 300, now, 0)).toBe(0); // 400 → 100
    const before = counter.writes;
    // The first's remembered 400 would pay 200; the row holds 100, so it waits 100 points (1 s).
    expect(await first.take(shop, 200, now, 0)).toBe(1000);
    expect(counter.writes - before).toBe(2); // the refused write over 400, then the one over the fresh 100
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(row!.available).toBe(100);
  });

  it('a row deleted under the store (a database reset) is created again', async () => {
    const now = 6_000_000;
    const shop = 'reset.myshopify.com';
    const { store } = countingStore();
    expect(await store.take(shop, 100, now, 0)).toBe(0);
    await database.db.$executeRaw`DELETE FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(await store.take(shop, 100, now, 0)).toBe(0);
    const [row] = await database.db.$queryRaw<Array<{ available: number }>>`SELECT "available" FROM "ShopifyBudget" WHERE "shop" = ${shop}`;
    expect(row!.available).toBe(freshBudget(now).available - 100);
  });
});
