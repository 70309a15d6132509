// Paces Admin GraphQL calls per shop so Shopify's calculated-cost bucket is not
// overdrawn (docs/shopify-rate-limits.md). Before a call, wait until the shop's
// budget can pay the call's requested cost, and take it; after the answer, give
// back what Shopify refunded and adopt its throttleStatus when it reports less.
//
// One budget per shop for the whole app: on PostgreSQL a row per shop written by
// compare-and-set (every instance and job shares it); on SQLite, in process
// (SQLite runs one app process). The arithmetic is pure (take, settle) and the
// same for both stores.
import type { Db } from '../db/client.ts';

export interface Budget {
  available: number;
  maximum: number;
  restoreRate: number;
  /** The app clock's milliseconds `available` is as of. */
  at: number;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

/** What one answer says about the bucket. `actual` null: Shopify ran nothing (THROTTLED, MAX_COST_EXCEEDED). */
export interface CostReport {
  requested: number;
  actual: number | null;
  status: ThrottleStatus | null;
}

/**
 * Until Shopify reports a shop's bucket: the smallest plan's (standard: 2,000 points, 100/s), a
 * quarter full. So after a start only about one call goes before the first answer says how much
 * there really is (a bucket another process drained, a smaller limit).
 */
export const UNKNOWN_BUDGET = { maximum: 2000, restoreRate: 100 };

export function freshBudget(now: number): Budget {
  return { available: UNKNOWN_BUDGET.maximum / 4, ...UNKNOWN_BUDGET, at: now };
}

export function refilled(b: Budget, now: number): number {
  return Math.min(b.maximum, b.available + (Math.max(0, now - b.at) / 1000) * b.restoreRate);
}

/**
 * Takes `cost` if the budget holds it plus `reserve` (points kept for
 * customer-visible writes); otherwise takes nothing and says how long until it would.
 */
export function take(b: Budget, cost: number, now: number, reserve = 0): { budget: Budget; waitMs: number } {
  const available = refilled(b, now);
  // A cost above the whole bucket can never be paid in full: wait for a full bucket instead of forever.
  const need = Math.min(cost + reserve, b.maximum);
  if (available >= need) return { budget: { ...b, available: available - cost, at: now }, waitMs: 0 };
  return { budget: { ...b, available, at: now }, waitMs: Math.ceil(((need - available) / b.restoreRate) * 1000) };
}

/**
 * After an answer: what was taken beyond the actual cost comes back (all of it
 * when Shopify ran nothing), and Shopify's own count wins when it is lower
 * (calls of another process, a bucket drained before we started, a limit lowered).
 */
export function settle(b: Budget, r: CostReport, now: number): Budget {
  const refund = Math.max(0, r.requested - (r.actual ?? 0));
  const mine = refilled(b, now) + refund;
  if (!r.status) return { ...b, available: Math.min(b.maximum, mine), at: now };
  const maximum = r.status.maximumAvailable;
  return { available: Math.min(maximum, mine, r.status.currentlyAvailable), maximum, restoreRate: r.status.restoreRate, at: now };
}

export interface BudgetStore {
  /** 0: the cost was taken; otherwise the milliseconds to wait before asking again. */
  take(shop: string, cost: number, now: number, reserve: number): Promise<number>;
  /** What take would answer, taking nothing (as this process last knew the budget). */
  peek(shop: string, cost: number, now: number, reserve: number): Promise<number>;
  settle(shop: string, report: CostReport, now: number): Promise<void>;
}

/** SQLite (one process): the budgets in memory. */
export class MemoryBudgetStore implements BudgetStore {
  readonly budgets = new Map<string, Budget>();

  async take(shop: string, cost: number, now: number, reserve: number): Promise<number> {
    const r = take(this.budgets.get(shop) ?? freshBudget(now), cost, now, reserve);
    this.budgets.set(shop, r.budget);
    return r.waitMs;
  }

  async peek(shop: string, cost: number, now: number, reserve: number): Promise<number> {
    return take(this.budgets.get(shop) ?? freshBudget(now), cost, now, reserve).waitMs;
  }

  async settle(shop: string, report: CostReport, now: number): Promise<void> {
    this.budgets.set(shop, settle(this.budgets.get(shop) ?? freshBudget(now), report, now));
  }
}

interface BudgetRow { available: number; maximum: number; restoreRate: number; at: bigint | number }

type BudgetStep = (b: Budget) => { budget: Budget; waitMs: number };
interface QueuedStep { step: BudgetStep; now: number; lazy: boolean; resolve: (waitMs: number) => void; reject: (e: unknown) => void }

/** Writes over a row that changed before a batch gives up (PgBudgetStore); each try reads the row again. */
const MAX_WRITE_ATTEMPTS = 20;

/** How long a settle may wait for a take to go with it (PgBudgetStore). */
export const SETTLE_DELAY_MS = 25;

/**
 * PostgreSQL: a row per shop that every instance takes from. Written by compare-and-set, not under a
 * row lock: this process keeps the row as it last wrote it and writes the next state only over that
 * one (one statement; a transaction with a lock took four). When another instance wrote in between,
 * nothing is updated, and the steps run again on a fresh read, so the order is as a lock would give.
 * One write per shop at a time in a process: the takes and settles its workers ask for meanwhile
 * wait and go together in the next, applied one after another. A settle is lazy: it waits up to
 * SETTLE_DELAY_MS for the next take and goes with it. Meanwhile this process applies it before any
 * later take; other instances see the refund late, so they take less, never more.
 */
export class PgBudgetStore implements BudgetStore {
  readonly db: Db;
  /** Per shop, the row as this process last read or wrote it. */
  readonly #known = new Map<string, Budget>();
  readonly #queued = new Map<string, QueuedStep[]>();
  readonly #busy = new Set<string>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #settleDelayMs: number;
  constructor(db: Db, o: { settleDelayMs?: number } = {}) {
    this.db = db;
    this.#settleDelayMs = o.settleDelayMs ?? SETTLE_DELAY_MS;
  }

  #update(shop: string, now: number, step: BudgetStep, lazy = false): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const queued = this.#queued.get(shop) ?? [];
      queued.push({ step, now, lazy, resolve, reject });
      this.#queued.set(shop, queued);
      if (this.#busy.has(shop)) return;
      if (lazy) this.#later(shop);
      else void this.#drain(shop);
    });
  }

  #later(shop: string): void {
    if (this.#timers.has(shop)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(shop);
      if (!this.#busy.has(shop)) void this.#drain(shop);
    }, this.#settleDelayMs);
    timer.unref?.();
    this.#timers.set(shop, timer);
  }

  async #drain(shop: string): Promise<void> {
    clearTimeout(this.#timers.get(shop));
    this.#timers.delete(shop);
    this.#busy.add(shop);
    try {
      for (let batch = this.#queued.get(shop); batch?.length; batch = this.#queued.get(shop)) {
        this.#queued.delete(shop);
        try {
          const waits = await this.#apply(shop, batch);
          batch.forEach((q, i) => q.resolve(waits[i]!));
        } catch (e) {
          for (const q of batch) q.reject(e);
        }
        // Only settles came meanwhile: they wait for a take again.
        if (this.#queued.get(shop)?.every((q) => q.lazy)) {
          this.#later(shop);
          break;
        }
      }
    } finally {
      this.#busy.delete(shop);
    }
  }

  async #apply(shop: string, batch: QueuedStep[]): Promise<number[]> {
    for (let attempt = 1; ; attempt++) {
      // The row as this process last wrote it: one statement when no other instance wrote since.
      const row = this.#known.get(shop) ?? (await this.#read(shop, batch[0]!.now));
      let budget = row;
      const waits: number[] = [];
      for (const q of batch) {
        const r = q.step(budget);
        budget = r.budget;
        waits.push(r.waitMs);
      }
      // Written only over the row it was computed from: every column compared, so a change by
      // another instance (or a reset database) updates nothing and the steps run again on a fresh read.
      const n = await this.db.$executeRaw`UPDATE "ShopifyBudget" SET "available" = ${budget.available}, "maximum" = ${budget.maximum},
        "restoreRate" = ${budget.restoreRate}, "at" = ${BigInt(budget.at)}
        WHERE "shop" = ${shop} AND "available" = ${row.available} AND "maximum" = ${row.maximum}
        AND "restoreRate" = ${row.restoreRate} AND "at" = ${BigInt(row.at)}`;
      if (n === 1) {
        this.#known.set(shop, budget);
        return waits;
      }
      this.#known.delete(shop);
      if (attempt >= MAX_WRITE_ATTEMPTS) throw new Error(`the Shopify budget row of ${shop} kept changing under ${attempt} writes; the call is tried again`);
    }
  }

  /** The row now, created first when missing (a new shop, or a database reset under us). */
  async #read(shop: string, now: number): Promise<Budget> {
    const select = async () =>
      (await this.db.$queryRaw<BudgetRow[]>`SELECT "available", "maximum", "restoreRate", "at" FROM "ShopifyBudget" WHERE "shop" = ${shop}`)[0];
    let row = await select();
    if (!row) {
      const fresh = freshBudget(now);
      await this.db.$executeRaw`INSERT INTO "ShopifyBudget" ("shop", "available", "maximum", "restoreRate", "at")
        VALUES (${shop}, ${fresh.available}, ${fresh.maximum}, ${fresh.restoreRate}, ${BigInt(fresh.at)}) ON CONFLICT ("shop") DO NOTHING`;
      row = await select();
      if (!row) throw new Error(`the Shopify budget row of ${shop} could not be created`);
    }
    return { available: Number(row.available), maximum: Number(row.maximum), restoreRate: Number(row.restoreRate), at: Number(row.at) };
  }

  take(shop: string, cost: number, now: number, reserve: number): Promise<number> {
    return this.#update(shop, now, (b) => take(b, cost, now, reserve));
  }

  /** From the row as this process last wrote it: another instance's takes since make it answer early, never late. */
  async peek(shop: string, cost: number, now: number, reserve: number): Promise<number> {
    return take(this.#known.get(shop) ?? (await this.#read(shop, now)), cost, now, reserve).waitMs;
  }

  async settle(shop: string, report: CostReport, now: number): Promise<void> {
    await this.#update(shop, now, (b) => ({ budget: settle(b, report, now), waitMs: 0 }), true);
  }
}

/** Customer-visible writes (fulfillment with tracking, out for delivery, delivered) go first when a shop is behind. */
export type Priority = 'visible' | 'background';
/** The share of a shop's bucket background calls leave for customer-visible ones (and never less than the largest call). */
export const VISIBLE_RESERVE = 0.25;

/** A throttle wait, for /metrics and logs (onShopifyThrottleWait in admin-api.ts). */
export interface ThrottleWait {
  shop: string;
  operation: string;
  waitMs: number;
  /** budget: the pacer waited before sending; throttled: Shopify answered THROTTLED anyway. */
  reason: 'budget' | 'throttled';
}

/**
 * A job's call would wait longer than a job should hold its worker: the job runs again later, without spending an attempt.
 * `whenRoom` (background calls only): the pacer calls the given function once the shop's budget can pay such a call again.
 */
export class ShopifyBudgetWait extends Error {
  readonly retryAfterMs: number;
  readonly shop: string;
  readonly whenRoom: ((key: string, wake: () => Promise<unknown>) => void) | undefined;
  /** performance.now() when retryAfterMs was counted from. */
  readonly since = performance.now();
  constructor(shop: string, waitMs: number, whenRoom?: (key: string, wake: () => Promise<unknown>) => void) {
    super(`Shopify's API budget for ${shop} is spent for the next ${waitMs} ms; the job runs again then`);
    this.name = 'ShopifyBudgetWait';
    this.shop = shop;
    this.retryAfterMs = waitMs;
    this.whenRoom = whenRoom;
  }

  /** What is left of the wait now: a job queued again some ms later still comes back on its tick, with the others of it. */
  leftMs(): number {
    return Math.max(0, Math.floor(this.retryAfterMs - (performance.now() - this.since)));
  }
}

export interface PacerOptions {
  store: BudgetStore;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Requested cost per operation name, as Shopify calculates it (web/shopify/operations.ts OPERATION_COST). */
  costs: Record<string, number>;
  onWait?: (w: ThrottleWait) => void;
  /** Runs fn after ms (default: an unref'd setTimeout); injected by tests. */
  timer?: (fn: () => void, ms: number) => void;
  /** Waits end on multiples of it (onTick); 0 or absent: each wait ends when its budget pays. */
  tickMs?: number;
}

/**
 * The runtime's pacing grain. A sale's calls, spaced by the bucket one every ~60 ms, each woke the
 * process on its own, and a call that wakes a waiting process costs ~1 ms of CPU against 0.25–0.5 ms
 * within a burst (docs/benchmarks.md, thirty-eighth session). Ending waits on a shared grid wakes the
 * process once per tick for every call due in it; the bucket still pays each call before it goes.
 */
export const PACE_TICK_MS = 1_000;

/** The wait from `now` until the first multiple of `tickMs` (epoch ms) at or after `now + waitMs`. */
export function onTick(now: number, waitMs: number, tickMs: number): number {
  if (waitMs <= 0 || !(tickMs > 1)) return waitMs;
  return Math.ceil((now + waitMs) / tickMs) * tickMs - now;
}

/** The longest wait a job sleeps through instead of deferring, when its own cost takes that long to refill. */
export const OWN_REFILL_SLEEP_MS = 1_000;

/** How often, at most, the pacer looks whether a shop's budget has room for background calls that were deferred. */
export const ROOM_CHECK_MS = 250;

/** Requested cost of an operation nobody declared (e.g. shopify-app-express's own queries), until Shopify reports it. */
const UNDECLARED_COST = 50;

export class ShopifyPacer {
  readonly #o: PacerOptions;
  /** Requested costs Shopify reported, by operation: they replace the declared ones. */
  readonly #learned = new Map<string, number>();
  /** Actual costs Shopify reported, by operation: what a deferred call will really spend. */
  readonly #actual = new Map<string, number>();
  /**
   * Per shop and priority: when the last job deferred in this process was told to come back.
   * Per priority because background calls leave a reserve to visible ones: a visible call
   * deferred behind a queue of deferred background writes would wait for slots it need not.
   */
  readonly #horizon = new Map<string, number>();

  readonly #largest: number;

  constructor(o: PacerOptions) {
    this.#o = o;
    this.#largest = Math.max(0, ...Object.values(o.costs));
  }

  /** The grid budget waits end on (0: none). */
  get tickMs(): number {
    return this.#o.tickMs ?? 0;
  }

  costOf(operation: string): number {
    return this.#learned.get(operation) ?? this.#o.costs[operation] ?? UNDECLARED_COST;
  }

  /**
   * Waits until the shop's budget pays for the call, and takes it. With
   * `deferAfterMs`, a wait longer than that throws ShopifyBudgetWait instead (a
   * job gives back its worker so other shops' jobs run meanwhile).
   */
  async acquire(shop: string, operation: string, o: { priority?: Priority; deferAfterMs?: number; reason?: ThrottleWait['reason'] } = {}): Promise<void> {
    const cost = this.costOf(operation);
    let reason = o.reason ?? 'budget';
    for (;;) {
      const now = this.#o.now();
      // The reserve is a share of the bucket as last reported (the standard plan's until then).
      // At least the largest call's cost: a big read must not starve behind a stream of small background writes.
      const reserve = o.priority === 'background' ? Math.max(VISIBLE_RESERVE * (await this.#maximum(shop)), this.#largest) : 0;
      const waitMs = await this.#o.store.take(shop, cost, now, reserve);
      if (waitMs <= 0) return;
      this.#o.onWait?.({ shop, operation, waitMs, reason });
      if (o.deferAfterMs !== undefined && waitMs > this.#deferAfter(shop, cost, o.deferAfterMs)) {
        const whenRoom = o.priority === 'background' ? (key: string, wake: () => Promise<unknown>) => this.#whenRoom(shop, cost, reserve, waitMs, key, wake) : undefined;
        throw new ShopifyBudgetWait(shop, this.#deferral(shop, o.priority ?? 'visible', operation, now, waitMs), whenRoom);
      }
      await this.#o.sleep(onTick(now, waitMs, this.#o.tickMs ?? 0));
      reason = 'budget';
    }
  }

  /**
   * A job sleeps through a wait as long as its own cost takes to refill (up to
   * OWN_REFILL_SLEEP_MS): deferring it would give up a slot that is about to be its own and
   * send it to the back of the horizon, behind every job deferred since (measured at 3,000
   * orders: 6,646 re-deferrals and 615 orders never booked in 300 s; with this, none).
   */
  #deferAfter(shop: string, cost: number, deferAfterMs: number): number {
    const rate = this.#rates.get(shop) ?? UNKNOWN_BUDGET.restoreRate;
    return Math.max(deferAfterMs, Math.min(Math.ceil((cost / rate) * 1000), OWN_REFILL_SLEEP_MS));
  }

  /**
   * Deferred jobs of one shop come back one after another, spaced by what each will really
   * spend (its actual cost at the restore rate), not all at the moment the first could pay.
   */
  #deferral(shop: string, priority: Priority, operation: string, now: number, waitMs: number): number {
    const rate = this.#rates.get(shop) ?? UNKNOWN_BUDGET.restoreRate;
    const spend = this.#actual.get(operation) ?? this.costOf(operation);
    const key = `${shop}|${priority}`;
    const slot = Math.max(now + waitMs, this.#horizon.get(key) ?? 0);
    this.#horizon.set(key, slot + (spend / rate) * 1000);
    return onTick(now, Math.ceil(slot - now), this.#o.tickMs ?? 0);
  }

  readonly #rates = new Map<string, number>();

  /** Per shop: deferred background calls' wakes (by key, once each) and the largest cost and reserve they wait for. */
  readonly #rooms = new Map<string, { cost: number; reserve: number; wakes: Map<string, () => Promise<unknown>>; armed: boolean }>();

  /**
   * A deferred background call waits behind customer-visible calls for as long as they keep the budget
   * low, which no slot can foresee. Instead of coming back on a guess (and deferring again: ~2.4 times
   * per write-back in a 3,000-order sale), its job asks to be woken: this process looks at the budget
   * when it could have refilled (again and again while visible calls drain it) and, once it can pay,
   * runs each wake once.
   */
  #whenRoom(shop: string, cost: number, reserve: number, waitMs: number, key: string, wake: () => Promise<unknown>): void {
    const room = this.#rooms.get(shop) ?? { cost, reserve, wakes: new Map(), armed: false };
    room.cost = Math.max(room.cost, cost);
    room.reserve = Math.max(room.reserve, reserve);
    room.wakes.set(key, wake);
    this.#rooms.set(shop, room);
    if (!room.armed) this.#arm(shop, waitMs);
  }

  #arm(shop: string, ms: number): void {
    const room = this.#rooms.get(shop);
    if (!room) return;
    room.armed = true;
    const timer = this.#o.timer ?? ((fn, after) => setTimeout(fn, after).unref?.());
    timer(() => void this.#look(shop), onTick(this.#o.now(), Math.max(ROOM_CHECK_MS, ms), this.#o.tickMs ?? 0));
  }

  async #look(shop: string): Promise<void> {
    const room = this.#rooms.get(shop);
    if (!room) return;
    let waitMs: number;
    try {
      waitMs = await this.#o.store.peek(shop, room.cost, this.#o.now(), room.reserve);
    } catch {
      waitMs = ROOM_CHECK_MS;
    }
    if (waitMs > 0) return this.#arm(shop, waitMs);
    this.#rooms.delete(shop);
    // A wake that fails leaves its jobs to their own time (capped in paced-jobs.ts): nothing is lost.
    for (const wake of room.wakes.values()) await wake().catch(() => {});
  }

  async settle(shop: string, operation: string, report: CostReport): Promise<void> {
    if (report.requested > 0) this.#learned.set(operation, report.requested);
    if (report.actual !== null) this.#actual.set(operation, report.actual);
    if (report.status) this.#rates.set(shop, report.status.restoreRate);
    // Nothing to give back (a mutation costs what it asked): the budget already holds the truth, so
    // the store is not written (on PostgreSQL a transaction per call saved). THROTTLED always settles.
    if (report.actual !== null && report.actual >= report.requested) return;
    // Not waited for: the call's answer is not held for the refund (PgBudgetStore sends it with the
    // next take). One that fails leaves the budget lower than Shopify's, which only makes calls wait.
    this.#o.store.settle(shop, report, this.#o.now()).catch(() => {});
  }

  readonly #maxima = new Map<string, number>();
  async #maximum(shop: string): Promise<number> {
    return this.#maxima.get(shop) ?? UNKNOWN_BUDGET.maximum;
  }

  /** Remembers the shop's bucket size from an answer (for the reserve). */
  noteMaximum(shop: string, maximum: number): void {
    this.#maxima.set(shop, maximum);
  }
}
