// `npm run bench:scale [-- --quick]`: PostgreSQL scale-out. The dispatch run of bench:dispatch
// with 1, 2 and 4 app instances on one database (pg-boss shares the jobs among them; the shop
// simulator sends every webhook to the first). Prints throughput per instance count and each
// instance's CPU per booked order: on a 2-core machine the instances share the same cores, so
// it is the CPU per order, not the instance count, that bounds throughput.
import { benchArgs, machine, ms, printSummary, type Figure } from './lib.ts';
import { extraInstances, runOrders, stackAppPid, withStack } from './orders.ts';

const { quick } = benchArgs();
const N = Number(process.env.BENCH_ORDERS ?? (quick ? 20 : 300));
const RATE = Number(process.env.BENCH_RATE ?? (quick ? 10 : 50));
const COUNTS = (process.env.BENCH_INSTANCES ?? (quick ? '1,2' : '1,2,4')).split(',').map(Number);

console.log(`scale-out benchmark (PostgreSQL): ${N} orders at ${RATE}/s with ${COUNTS.join(', ')} app instances; ${machine()}`);
const figures: Figure[] = [];
for (const count of COUNTS) {
  const r = await withStack('postgres', {}, async (stack, shop) => {
    const first = stackAppPid()!;
    const extra = await extraInstances(stack, count - 1);
    try {
      return await runOrders(stack, shop, { n: N, rate: RATE, appPids: [first, ...extra.map((p) => p.child.pid!)] });
    } finally {
      for (const p of extra) p.child.kill('SIGTERM');
      await Promise.all(extra.map((p) => p.exited));
    }
  });
  if (!r) break;
  console.log(`\n${count} instance${count > 1 ? 's' : ''}: booked ${r.booked}/${N}; ${r.throughput.toFixed(1)} orders/s; lag p99 ${ms(r.lag.p99)}; app CPU per order ${r.cpuPerOrderMs.toFixed(2)} ms in all (${r.cpuPerInstanceMs.map((c) => c.toFixed(2)).join(' + ')})`);
  figures.push(
    { name: `${count} instance(s) throughput`, value: r.throughput, unit: 'orders/s' },
    { name: `${count} instance(s) paid→CREATED p99`, value: r.lag.p99, unit: 'ms' },
    { name: `${count} instance(s) app CPU per order (all)`, value: r.cpuPerOrderMs, unit: 'ms', target: { op: '<=', limit: 5 } },
    { name: `${count} instance(s) lost`, value: r.lost, unit: 'orders', target: { op: '==', limit: 0 } },
    { name: `${count} instance(s) duplicated`, value: r.duplicated, unit: 'orders', target: { op: '==', limit: 0 } },
  );
}
printSummary('scale', figures);
process.exit(0);
