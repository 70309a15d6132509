// `npm run bench:dispatch`: N orders end to end through the real processes
// (shop simulator → app → sandbox courier, web/demo/stack.ts), placed at a
// fixed rate. Prints orders/s and the paid→CREATED lag (the Delivery's
// createdAt → dispatchedAt, both stamped by the app) on SQLite and PostgreSQL.
import { startStack } from '../../web/demo/stack.ts';
import { accountFor, onboardShop, shopDomain } from '../../web/demo/merchant.ts';
import { adminPgUrl } from '../support/paths.ts';
import { machine, ms, openLoop, summary } from './lib.ts';

const N = Number(process.env.BENCH_ORDERS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 50);

interface Row {
  status: string;
  createdAt: string;
  dispatchedAt: string | null;
}

console.log(`dispatch benchmark: ${N} orders at ${RATE} orders/s, app + sandbox courier + shop simulator as child processes; ${machine()}`);
for (const provider of ['sqlite', 'postgres'] as const) {
  const stack = await startStack({ postgresUrl: provider === 'postgres' ? adminPgUrl() : undefined, reconcileIntervalSeconds: 0, appEnv: { LOG_LEVEL: 'warn' } }).catch((e: Error) => {
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
    const deadline = Date.now() + 180_000;
    let rows: Row[] = [];
    while (Date.now() < deadline) {
      rows = await stack.cliJson<Row[]>(['deliveries', shop, '--limit', '1000']);
      if (rows.filter((r) => r.dispatchedAt).length >= N) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const done = rows.filter((r) => r.dispatchedAt);
    const lags = done.map((r) => Date.parse(r.dispatchedAt!) - Date.parse(r.createdAt));
    const first = Math.min(...rows.map((r) => Date.parse(r.createdAt)));
    const last = Math.max(...done.map((r) => Date.parse(r.dispatchedAt!)));
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
