// `npm run bench:dispatch [-- --db=sqlite,postgres] [--quick]`: N orders end to end through
// the real processes (shop simulator → app → sandbox courier), placed at a fixed rate.
// Prints orders/s, the paid→CREATED lag and where it goes (before the courier call: queue
// wait and our reads and writes; the courier's own answer; our writes after it), the app's
// CPU per booked order (intake + dispatch + write-back, from /proc), and the courier's
// per-reference counts (exactly once).
import { benchArgs, machine, ms, printSummary, type Figure } from './lib.ts';
import { runOrders, stackAppPid, withStack } from './orders.ts';

const { quick, providers } = benchArgs();
const N = Number(process.env.BENCH_ORDERS ?? (quick ? 20 : 300));
const RATE = Number(process.env.BENCH_RATE ?? (quick ? 10 : 50));
const TARGET = { sqlite: 100, postgres: 60 } as const;

console.log(`dispatch benchmark: ${N} orders at ${RATE} orders/s, app + sandbox courier + shop simulator as child processes; ${machine()}`);
const figures: Figure[] = [];
for (const provider of providers) {
  const r = await withStack(provider, {}, (stack, shop) => runOrders(stack, shop, { n: N, rate: RATE, appPids: [stackAppPid()!].filter(Boolean) }));
  if (!r) continue;
  console.log(`\n${provider}`);
  console.log(`  placed ${r.placed}/${N} orders (${r.placeErrors} errors); booked ${r.booked}; courier orders created ${r.courierOrders}; write-backs pending ${r.writebacksPending}`);
  console.log(`  throughput ${r.throughput.toFixed(1)} orders/s   paid→CREATED lag p50 ${ms(r.lag.p50)}  p99 ${ms(r.lag.p99)}  max ${ms(r.lag.max)}`);
  if (r.breakdown) {
    const b = r.breakdown;
    console.log(`  lag: queue wait + our work before the call p50 ${ms(b.beforeCall.p50)} p99 ${ms(b.beforeCall.p99)}; courier answer p50 ${ms(b.courier.p50)} p99 ${ms(b.courier.p99)}; our writes after p50 ${ms(b.after.p50)} p99 ${ms(b.after.p99)}`);
  }
  console.log(`  app CPU ${r.cpuPerOrderMs.toFixed(2)} ms per booked order (intake + dispatch + write-back)`);
  figures.push(
    { name: `${provider} dispatch throughput`, value: r.throughput, unit: 'orders/s', target: { op: '>=', limit: TARGET[provider] } },
    { name: `${provider} paid→CREATED p99 at ${RATE}/s`, value: r.lag.p99, unit: 'ms', target: { op: '<', limit: 1000 } },
    { name: `${provider} lag p99: queue wait + work before call`, value: r.breakdown?.beforeCall.p99 ?? NaN, unit: 'ms' },
    { name: `${provider} lag p99: courier answer`, value: r.breakdown?.courier.p99 ?? NaN, unit: 'ms' },
    { name: `${provider} lag p99: our writes after the call`, value: r.breakdown?.after.p99 ?? NaN, unit: 'ms' },
    { name: `${provider} app CPU per booked order`, value: r.cpuPerOrderMs, unit: 'ms', target: { op: '<=', limit: 5 } },
    { name: `${provider} lost`, value: r.lost, unit: 'orders', target: { op: '==', limit: 0 } },
    { name: `${provider} orders not CREATED by the deadline`, value: r.notCreated, unit: 'orders', target: { op: '==', limit: 0 } },
    { name: `${provider} duplicated`, value: r.duplicated, unit: 'orders', target: { op: '==', limit: 0 } },
  );
}
printSummary('dispatch', figures);
process.exit(0);
