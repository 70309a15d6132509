// `npm run bench:dispatch`: N orders end to end through the real processes
// (shop simulator → app → sandbox courier, dev/demo/stack.ts), placed at a
// fixed rate. Prints orders/s and the paid→CREATED lag (the Delivery's
// createdAt → dispatchedAt, both stamped by the app) on SQLite and PostgreSQL.
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import { startStack } from '../../dev/demo/stack.ts';
import { accountFor, onboardShop, shopDomain } from '../../dev/demo/merchant.ts';
import { adminPgUrl } from '../support/paths.ts';
import { machine, ms, openLoop, summary } from './lib.ts';

const N = Number(process.env.BENCH_ORDERS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 50);

interface Row {
  status: string;
  createdAt: Date;
  dispatchedAt: Date | null;
}

console.log(`dispatch benchmark: ${N} orders at ${RATE} orders/s, app + sandbox courier + shop simulator as child processes; ${machine()}`);
const PROVIDERS = (process.env.BENCH_PROVIDERS ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
for (const provider of PROVIDERS) {
  const stack = await startStack({ postgresUrl: provider === 'postgres' ? adminPgUrl() : undefined, reconcileIntervalSeconds: 0, appEnv: { LOG_LEVEL: 'warn', ...(process.env.BENCH_APP_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_APP_NODE_OPTIONS } : {}) } }).catch((e: Error) => {
    console.log(`\n${provider}: could not start (${e.message.split('\n')[0]}); skipped`);
    return null;
  });
  if (!stack) continue;
  try {
    const shop = shopDomain('bench');
    await onboardShop(stack, shop, accountFor(shop));
    const placed = await openLoop(RATE, (N / RATE) * 1000, async () => {
      await stack.sim.placeOrder(shop, { fixture: 'sandton-same-day', ids: 'fresh', wait: false });
    });
    // Read the app's database directly: polling through the CLI would start a Node process a
    // second and take CPU from what is being measured.
    const { database } = await openMigratedDatabase(stack.database.url, { poolSize: 1 });
    const deadline = Date.now() + 180_000;
    let rows: Row[] = [];
    try {
      while (Date.now() < deadline) {
        rows = await database.db.delivery.findMany({ where: { shop: { domain: shop } }, select: { status: true, createdAt: true, dispatchedAt: true } });
        if (rows.filter((r) => r.dispatchedAt).length >= N) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    } finally {
      await database.close();
    }
    const done = rows.filter((r) => r.dispatchedAt);
    const lags = done.map((r) => r.dispatchedAt!.getTime() - r.createdAt.getTime());
    const first = Math.min(...rows.map((r) => r.createdAt.getTime()));
    const last = Math.max(...done.map((r) => r.dispatchedAt!.getTime()));
    const s = summary(lags);
    const stats = await stack.courier.stats();
    console.log(`\n${provider}`);
    console.log(`  placed ${placed.latencies.length}/${N} orders (${placed.errors} errors); booked ${done.length}; courier orders created ${stats.ordersCreated}`);
    console.log(`  throughput ${((done.length / (last - first)) * 1000).toFixed(1)} orders/s   paid→CREATED lag p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  max ${ms(s.max)}`);
    if (done.length < N) console.log(`  ${N - done.length} orders were not booked within the wait: see ${stack.logs.app}`);
  } finally {
    await stack.stop({ removeDir: true });
  }
}
console.log('\ntarget: lag p99 under 1 s at 50 orders/s');
process.exit(0);
