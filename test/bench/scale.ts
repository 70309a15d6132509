// `npm run bench:scale [-- --quick]`: PostgreSQL scale-out. The dispatch run of bench:dispatch
// with 1, 2 and 4 app instances on one database (pg-boss shares the jobs among them; the shop
// simulator sends every webhook to the first). Prints, per instance count, throughput, the app's
// CPU per booked order, PostgreSQL's own CPU per booked order (every postgres process, from /proc)
// and the round trips the instances sent per booked order (test/bench/count-statements.ts,
// preloaded in each), then the model they give: orders/s per database core and per app core.
// On a 2-core machine the instances and the database share the same cores, so it is the CPU per
// order, not the instance count, that bounds throughput here.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/paths.ts';
import { benchArgs, machine, ms, postgresCpuMs, printSummary, statementsSentBy, type Figure } from './lib.ts';
import { extraInstances, runOrders, stackAppPid, withStack } from './orders.ts';

const { quick } = benchArgs();
const N = Number(process.env.BENCH_ORDERS ?? (quick ? 20 : 300));
const RATE = Number(process.env.BENCH_RATE ?? (quick ? 10 : 50));
const COUNTS = (process.env.BENCH_INSTANCES ?? (quick ? '1,2' : '1,2,4')).split(',').map(Number);
const CORES = availableParallelism();
// The shop's Admin API plan in the simulator. Plus by default: on Standard (100 points/s) one shop's
// ~27 points per order cap it near 4 orders/s whatever the instance count, and this bench is about the database.
const PLAN = process.env.BENCH_SHOPIFY_PLAN ?? 'plus';

// Each instance's statement counts (its last snapshot, by statement); BENCH_STATEMENTS_DIR keeps them.
const dir = process.env.BENCH_STATEMENTS_DIR ?? mkdtempSync(join(tmpdir(), 'bench-scale-'));
if (!process.env.BENCH_STATEMENTS_DIR) process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const statementsFile = (pid: number) => join(dir, `statements-${pid}.txt`);
const countingEnv = {
  NODE_OPTIONS: `${process.env.BENCH_APP_NODE_OPTIONS ?? ''} --import ${join(ROOT, 'test/bench/count-statements.ts')}`.trim(),
  COUNT_STATEMENTS_FILE: join(dir, 'statements-{pid}.txt'),
};

console.log(`scale-out benchmark (PostgreSQL): ${N} orders at ${RATE}/s with ${COUNTS.join(', ')} app instances, the shop on Shopify's ${PLAN} API limits; ${machine()}`);
const figures: Figure[] = [];
for (const count of COUNTS) {
  const r = await withStack('postgres', countingEnv, async (stack, shop) => {
    await stack.sim.setApiLimits(shop, { plan: PLAN });
    const first = stackAppPid()!;
    const extra = await extraInstances(stack, count - 1);
    const appPids = [first, ...extra.map((p) => p.child.pid!)];
    const counters = async () => ({
      roundTrips: (await statementsSentBy(appPids, statementsFile)).reduce((a, b) => a + b, 0),
      postgresCpuMs: postgresCpuMs(),
    });
    try {
      const run = await runOrders(stack, shop, { n: N, rate: RATE, appPids, counters });
      return { ...run, shopify: await stack.sim.apiLimits(shop) };
    } finally {
      for (const p of extra) p.child.kill('SIGTERM');
      await Promise.all(extra.map((p) => p.exited));
    }
  });
  if (!r) break;
  const per = (v: number | undefined) => (v ?? NaN) / Math.max(1, r.booked);
  const dbMs = per(r.countersUsed.postgresCpuMs);
  const roundTrips = per(r.countersUsed.roundTrips);
  console.log(
    `\n${count} instance${count > 1 ? 's' : ''}: booked ${r.booked}/${N}; ${r.throughput.toFixed(1)} orders/s; lag p99 ${ms(r.lag.p99)}; ` +
      `per booked order: app CPU ${r.cpuPerOrderMs.toFixed(2)} ms in all (${r.cpuPerInstanceMs.map((c) => c.toFixed(2)).join(' + ')}), ` +
      `PostgreSQL CPU ${dbMs.toFixed(2)} ms, ${roundTrips.toFixed(1)} round trips`,
  );
  console.log(`  Shopify: ${r.shopify.spent} points spent in ${r.shopify.paidCalls} calls, ${r.shopify.throttled} THROTTLED answers`);
  const b = r.breakdown;
  if (b) console.log(`  paid→CREATED p50/p99: before the courier call ${ms(b.beforeCall.p50)}/${ms(b.beforeCall.p99)}, the courier ${ms(b.courier.p50)}/${ms(b.courier.p99)}, after it ${ms(b.after.p50)}/${ms(b.after.p99)}`);
  // The model: a core spent only on the database books 1000/dbMs orders a second, one spent only on
  // the app 1000/appMs; here both share CORES cores, so CORES·1000/(app + db) bounds the throughput.
  const perDbCore = 1000 / dbMs;
  const perAppCore = 1000 / r.cpuPerOrderMs;
  const bound = (CORES * 1000) / (r.cpuPerOrderMs + dbMs);
  console.log(
    `  model: one database core carries ${perDbCore.toFixed(0)} orders/s, one app core ${perAppCore.toFixed(0)}; ` +
      `with a app cores and d database cores, throughput <= min(a·${perAppCore.toFixed(0)}, d·${perDbCore.toFixed(0)}); ` +
      `on this machine's ${CORES} shared cores <= ${bound.toFixed(0)} orders/s (measured ${r.throughput.toFixed(1)}: ${r.throughput < bound / 2 ? 'not CPU-bound; the offered rate or waits set it' : 'CPU-bound'})`,
  );
  figures.push(
    { name: `${count} instance(s) throughput`, value: r.throughput, unit: 'orders/s' },
    { name: `${count} instance(s) paid→CREATED p99`, value: r.lag.p99, unit: 'ms' },
    { name: `${count} instance(s) app CPU per order (all)`, value: r.cpuPerOrderMs, unit: 'ms', target: { op: '<=', limit: 5 } },
    { name: `${count} instance(s) postgres CPU per order`, value: dbMs, unit: 'ms' },
    { name: `${count} instance(s) round trips per order`, value: roundTrips, unit: 'statements' },
    { name: `${count} instance(s) orders/s per database core`, value: perDbCore, unit: 'orders/s' },
    { name: `${count} instance(s) orders/s per app core`, value: perAppCore, unit: 'orders/s' },
    { name: `${count} instance(s) lost`, value: r.lost, unit: 'orders', target: { op: '==', limit: 0 } },
    { name: `${count} instance(s) orders not CREATED by the deadline`, value: r.notCreated, unit: 'orders', target: { op: '==', limit: 0 } },
    { name: `${count} instance(s) duplicated`, value: r.duplicated, unit: 'orders', target: { op: '==', limit: 0 } },
  );
}
printSummary('scale', figures);
process.exit(0);
