// Shared by bench:dispatch, bench:flash and bench:scale: the whole system as child
// processes (dev/demo/stack.ts: shop simulator → app → sandbox courier), N orders placed
// at a fixed rate, then the figures read from the outside: the app's database (Delivery
// createdAt → dispatchedAt, both stamped by the app), the courier's request log and
// per-reference counts, and the app processes' CPU from /proc.
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import { scriptEntry, startStack, type Stack } from '../../dev/demo/stack.ts';
import { accountFor, onboardShop, shopDomain } from '../../dev/demo/merchant.ts';
import { createServer } from 'node:net';
import { spawnApp, waitFor, type AppProcess } from '../support/process.ts';
import { adminPgUrl } from '../support/paths.ts';
import { childPidsRunning, courierCounts, cpuMsOf, openLoop, percentile, rssMbOf, summary } from './lib.ts';

export interface OrdersRun {
  placed: number;
  placeErrors: number;
  booked: number;
  /** Placed orders the app holds no trace of at the end (no delivery row, no inbox row still to process). */
  lost: number;
  /** Placed orders not CREATED at the courier by the deadline (unfinished, not lost). */
  notCreated: number;
  duplicated: number;
  courierOrders: number;
  throughput: number;
  /** First order placed → last order CREATED, ms. */
  allCreatedMs: number;
  lag: { p50: number; p99: number; max: number };
  /** Where the lag goes, p50/p99 of each part (ms); null when the courier's log did not cover the orders. */
  breakdown: { beforeCall: { p50: number; p99: number }; courier: { p50: number; p99: number }; after: { p50: number; p99: number } } | null;
  /** App CPU (all instances) from the first order to the last write-back, per booked order. */
  cpuPerOrderMs: number;
  /** The same, up to the poll that first saw every placed order booked: the sale's share, before the write-backs wait on Shopify's bucket. */
  cpuUntilBookedPerOrderMs: number;
  /**
   * The same, up to the poll that first saw a delivery row for every placed order: the webhooks' intake
   * and the inbox's work (and the bookings done meanwhile), before the bookings wait on Shopify's bucket.
   */
  cpuUntilReceivedPerOrderMs: number;
  /** First order placed → the poll that saw every write-back done, ms. */
  writebacksDoneMs: number;
  cpuPerInstanceMs: number[];
  /** The growth of `counters` over the measured run ({} without them). */
  countersUsed: Record<string, number>;
  /** Worst p99 over 1 s windows of the first orders/paid delivery's time, as the simulator's sender timed it (its POST to the app's answer: what Shopify's 5 s timeout measures; when waited for). */
  peakWebhookP99: number;
  /** The same for the whole placement round trip (the bench → the simulator building the order → its webhook → back): includes the simulator's own work. */
  peakPlaceP99: number;
  writebacksPending: number;
  /** Orders whose first orders/paid delivery the app did not acknowledge with 2xx (waited for only). */
  notAcked: number;
  /** Every placed order CREATED and written back before the deadline. */
  complete: boolean;
}

export async function withStack<T>(provider: 'sqlite' | 'postgres', appEnv: Record<string, string>, fn: (stack: Stack, shop: string) => Promise<T>): Promise<T | null> {
  const stack = await startStack({
    postgresUrl: provider === 'postgres' ? adminPgUrl() : undefined,
    reconcileIntervalSeconds: 0,
    appEnv: {
      // BENCH_APP_LOG_LEVEL=info logs each deferred job ("budget is spent"; keep the log with BENCH_KEEP_DIR=1).
      LOG_LEVEL: process.env.BENCH_APP_LOG_LEVEL ?? 'warn',
      ...(process.env.BENCH_APP_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_APP_NODE_OPTIONS } : {}),
      ...(process.env.COUNT_STATEMENTS_FILE ? { COUNT_STATEMENTS_FILE: process.env.COUNT_STATEMENTS_FILE } : {}),
      ...appEnv,
    },
  }).catch((e: Error) => {
    console.log(`\n${provider}: could not start (${e.message.split('\n')[0]}); skipped`);
    return null;
  });
  if (!stack) return null;
  try {
    const shop = shopDomain('bench');
    await onboardShop(stack, shop, accountFor(shop));
    return await fn(stack, shop);
  } finally {
    await stack.stop({ removeDir: !process.env.BENCH_KEEP_DIR }); // BENCH_KEEP_DIR=1 keeps its logs and database
    if (process.env.BENCH_KEEP_DIR) console.log(`  ${provider}: logs and database kept in ${stack.dir}`);
  }
}

/** The stack's app process (started without telling us its pid): `npm run dev`'s entry since the move to dev/. */
export function stackAppPid(): number | undefined {
  return childPidsRunning(scriptEntry('dev'))[0];
}

/** More app instances on the stack's database (PostgreSQL: pg-boss shares the jobs among them). */
export async function extraInstances(stack: Stack, n: number): Promise<AppProcess[]> {
  const procs: AppProcess[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    // The same entry as the stack's app (`npm run dev`): only it routes Shopify calls to the simulator.
    const p = spawnApp({ ...stack.appEnv, PORT: String(port) }, { entry: 'dev/start.ts' });
    process.once('exit', () => p.child.kill('SIGKILL'));
    procs.push(p);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, `app instance ${i + 2} to be ready`, 60_000);
  }
  return procs;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

export async function runOrders(
  stack: Stack,
  shop: string,
  opts: {
    n: number; rate: number; appPids: number[]; waitForAck?: boolean; timeoutMs?: number; beforeEach?: (i: number) => Promise<void> | void;
    /** Orders placed (at 20/s) and booked before the measured run, which counts only orders created after them: an app that has served traffic, not one just started. */
    warmup?: number;
    /** More counters read where the app's CPU is (before the first order, after the last write-back); `countersUsed` holds their growth. */
    counters?: () => Promise<Record<string, number>>;
  },
): Promise<OrdersRun> {
  const { n, rate, appPids } = opts;
  // Read the app's database directly: the CLI would start a Node process each time and take CPU from what is measured.
  const { database } = await openMigratedDatabase(stack.database.url, { poolSize: 1 });
  // Closed in the finally below, whatever fails (the warm-up, the placing or the reads).
  try {
    const warmup = opts.warmup ?? 0;
    if (warmup > 0) {
      await openLoop(Math.min(rate, 20), (warmup / Math.min(rate, 20)) * 1000, async () => void (await stack.sim.placeOrder(shop, { fixture: 'sandton-same-day', ids: 'fresh', wait: true })));
      const until = Date.now() + 120_000;
      while (Date.now() < until && (await database.db.delivery.count({ where: { dispatchedAt: { not: null }, writebackPending: false } })) < warmup) await new Promise((r) => setTimeout(r, 250));
    }
    const since = new Date();
    const measured = { createdAt: { gte: since } };
    const cpu = () => appPids.map(cpuMsOf);
    const counters0 = await opts.counters?.();
    const cpu0 = cpu();
    const t0 = Date.now();
    const placedAt: Array<{ at: number; ms: number; webhookMs: number | undefined }> = [];
    let notAcked = 0;
    const placed = await openLoop(rate, (n / rate) * 1000, async (i) => {
      await opts.beforeEach?.(i);
      const start = performance.now();
      const r = await stack.sim.placeOrder(shop, { fixture: 'sandton-same-day', ids: 'fresh', wait: opts.waitForAck ?? false });
      placedAt.push({ at: Date.now(), ms: performance.now() - start, webhookMs: r.webhook?.attempts[0]?.ms });
      if (opts.waitForAck && r.webhook?.state !== 'delivered') notAcked++; // the simulator retries it later, as Shopify would
    });
    const deadline = Date.now() + (opts.timeoutMs ?? Number(process.env.BENCH_TIMEOUT_MS ?? 180_000));
    let booked = 0;
    let pendingWb = 0;
    let cpuAtBooked: number[] | null = null;
    let cpuAtReceived: number[] | null = null;
    while (Date.now() < deadline) {
      if (!cpuAtReceived) {
        const received = await database.db.delivery.count({ where: measured });
        if (received >= placed.latencies.length) cpuAtReceived = cpu();
      }
      booked = await database.db.delivery.count({ where: { dispatchedAt: { not: null }, ...measured } });
      pendingWb = await database.db.delivery.count({ where: { writebackPending: true, ...measured } });
      if (booked >= placed.latencies.length) cpuAtBooked ??= cpu();
      if (booked >= placed.latencies.length && pendingWb === 0) break;
      await new Promise((r) => setTimeout(r, n > 1000 ? 2_000 : 500));
    }
    const cpuUsed = cpu().map((c, i) => c - cpu0[i]!);
    const writebacksDoneMs = Date.now() - t0;
    const cpuUntilBooked = (cpuAtBooked ?? cpu()).reduce((a, c, i) => a + c - cpu0[i]!, 0);
    const cpuUntilReceived = (cpuAtReceived ?? cpu()).reduce((a, c, i) => a + c - cpu0[i]!, 0);
    const counters1 = await opts.counters?.();
    const countersUsed = Object.fromEntries(Object.entries(counters1 ?? {}).map(([k, v]) => [k, v - (counters0?.[k] ?? NaN)]));
    const rows = await database.db.delivery.findMany({ where: measured, select: { createdAt: true, dispatchedAt: true, idempotencyKey: true } });
    // Acknowledged orders/paid webhooks the worker has not turned into a delivery yet (pending) or could not (failed, which the operator sees).
    const inboxHeld = await database.db.webhookInbox.count({ where: { source: 'shopify', shop, topic: 'ORDERS_PAID', state: { not: 'done' }, receivedAt: { gte: since } } });
    const done = rows.filter((r) => r.dispatchedAt);
    const lags = done.map((r) => r.dispatchedAt!.getTime() - r.createdAt.getTime());
    const last = Math.max(...done.map((r) => r.dispatchedAt!.getTime()));
    const first = Math.min(...rows.map((r) => r.createdAt.getTime()));
    const stats = await stack.courier.stats();
    const counts = courierCounts(stats.ordersByReference);
    // The courier's log: when each create arrived and how long the courier took to answer it.
    const creates = new Map<string, { at: number; ms: number }>();
    for (const e of await stack.courier.requests({ route: 'create' })) {
      if (e.idempotencyKey && e.status >= 200 && e.status < 300) creates.set(e.idempotencyKey, { at: Date.parse(e.at), ms: e.ms ?? NaN });
    }
    const parts = done.flatMap((r) => {
      const c = r.idempotencyKey ? creates.get(r.idempotencyKey) : undefined;
      return c ? [{ before: c.at - r.createdAt.getTime(), courier: c.ms, after: r.dispatchedAt!.getTime() - c.at - c.ms }] : [];
    });
    const q = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { p50: percentile(s, 50), p99: percentile(s, 99) };
    };
    const peakOf = (pick: (p: (typeof placedAt)[number]) => number | undefined) => {
      const windows = new Map<number, number[]>();
      for (const p of placedAt) {
        const v = pick(p);
        if (v === undefined) continue;
        const w = Math.floor((p.at - t0) / 1000);
        const list = windows.get(w);
        if (list) list.push(v);
        else windows.set(w, [v]);
      }
      return Math.max(0, ...[...windows.values()].map((w) => summary(w).p99));
    };
    const peak = opts.waitForAck ? peakOf((p) => p.ms) : 0;
    const peakWebhook = opts.waitForAck ? peakOf((p) => p.webhookMs) : 0;
    const s = summary(lags);
    return {
      placed: placed.latencies.length,
      placeErrors: placed.errors,
      booked: done.length,
      // Lost: placed, yet the app holds no trace of it (no delivery row, no inbox row still to process). Not CREATED yet is not lost.
      lost: Math.max(0, placed.latencies.length - rows.length - inboxHeld),
      notCreated: Math.max(0, placed.latencies.length - done.length),
      duplicated: counts.duplicated,
      courierOrders: stats.ordersCreated - warmup,
      throughput: (done.length / (last - first)) * 1000,
      allCreatedMs: last - t0,
      lag: { p50: s.p50, p99: s.p99, max: s.max },
      breakdown: parts.length >= done.length / 2 && parts.length > 0 ? { beforeCall: q(parts.map((p) => p.before)), courier: q(parts.map((p) => p.courier)), after: q(parts.map((p) => p.after)) } : null,
      cpuPerOrderMs: cpuUsed.reduce((a, b) => a + b, 0) / Math.max(1, done.length),
      cpuUntilBookedPerOrderMs: cpuUntilBooked / Math.max(1, done.length),
      cpuUntilReceivedPerOrderMs: cpuUntilReceived / Math.max(1, done.length),
      writebacksDoneMs,
      cpuPerInstanceMs: cpuUsed.map((c) => c / Math.max(1, done.length)),
      countersUsed,
      peakPlaceP99: peak,
      peakWebhookP99: peakWebhook,
      writebacksPending: pendingWb,
      notAcked,
      complete: done.length >= placed.latencies.length && pendingWb === 0,
    };
  } finally {
    await database.close();
  }
}

export { rssMbOf };
