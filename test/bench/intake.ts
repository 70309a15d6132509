// `npm run bench:intake [-- --db=sqlite,postgres] [--quick]`: signed orders/paid webhooks
// against the real app (its entry point in a child process: HMAC check, receipt, Delivery
// and dispatch job in one transaction) and, in the same run, against the floor
// (test/bench/floor.ts: raw body → the same HMAC check → one insert through the driver → 200).
// Prints saturation throughput (closed loop) of both and their ratio, p99 acknowledgement at
// fixed rates (open loop), the app's CPU per request and its idle RSS, and checks that every
// acknowledged order was recorded exactly once.
// BENCH_COURIER_FLOOD=<n> adds n unsigned courier webhooks per second to one shop's endpoint
// during the fixed-rate runs (issue 13: a flood must not slow Shopify intake).
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import { shopifyWebhookHeaders } from '../support/shopify.ts';
import { paidOrder } from '../support/orders.ts';
import { spawnApp } from '../support/process.ts';
import { API_SECRET, benchArgs, benchDatabase, cli, closedLoop, cpuMsOf, machine, ms, openLoop, pool, printSummary, rssMbOf, startAppProcess, summary, type Figure } from './lib.ts';

const { quick, providers } = benchArgs();
const SECONDS = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5));
const RATES = (process.env.BENCH_RATES ?? (quick ? '20' : '50,200')).split(',').map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? (quick ? 4 : 32));
/** How long the idle app's CPU is read before the load (an idle app's polls and timers). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? (quick ? 1 : 30));
const SHOP = 'bench.myshopify.com';
const FLOOD = Number(process.env.BENCH_COURIER_FLOOD ?? 0);
// Issue 24's targets: ≥ 30 % of the floor, p99 < 50 ms at 200/s, ≤ 1 ms CPU per request on SQLite.
const TARGETS = {
  sqlite: { saturation: 1000, floorShare: 30, p99At200: 50, cpu: 1 },
  postgres: { saturation: 500, floorShare: 30, p99At200: 50, cpu: null },
} as const;

/** Sends one signed orders/paid for a fresh order; throws unless 200. */
function sender(url: string) {
  const client = pool(url);
  return {
    client,
    async send() {
      const body = JSON.stringify(paidOrder());
      const res = await client.request({ method: 'POST', path: '/api/webhooks', headers: shopifyWebhookHeaders('orders/paid', SHOP, body, { secret: API_SECRET }), body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    },
  };
}

/** Unsigned courier webhooks at `rate` per second; each must be refused with 401. */
async function flood(url: string, path: string, rate: number) {
  const client = pool(url);
  const r = await openLoop(rate, SECONDS * 1000, async () => {
    const res = await client.request({ method: 'POST', path, body: '{}' });
    await res.body.text();
    if (res.statusCode !== 401) throw new Error(`HTTP ${res.statusCode}`);
  });
  await client.close();
  return r;
}

/** Saturation (closed loop) and p99 at each fixed rate for one server; counts what it acknowledged. */
async function measure(url: string, pid: number | undefined, label: string, floodPath?: string) {
  const s = sender(url);
  for (let i = 0; i < 10; i++) await s.send(); // warm the connections and code paths
  let acked = 10;
  const cpu0 = cpuMsOf(pid);
  const sat = await closedLoop(CONCURRENCY, SECONDS * 1000, () => s.send());
  acked += sat.done;
  const cpuPerRequest = (cpuMsOf(pid) - cpu0) / sat.done;
  console.log(`${label.padEnd(7)} saturation ${sat.perSecond.toFixed(0).padStart(6)} req/s (${CONCURRENCY} callers, ${sat.errors} errors)  CPU ${cpuPerRequest.toFixed(2)} ms/request`);
  await new Promise((r) => setTimeout(r, 1_000)); // let the backlog (queued jobs) drain a little
  const p99: Record<number, number> = {};
  for (const rate of RATES) {
    const [r, f] = await Promise.all([openLoop(rate, SECONDS * 1000, () => s.send()), floodPath && FLOOD ? flood(url, floodPath, FLOOD) : null]);
    if (f?.errors) console.log(`  courier flood: ${f.errors} requests not answered 401`);
    acked += r.latencies.length;
    const q = summary(r.latencies);
    p99[rate] = q.p99;
    console.log(`${label.padEnd(7)} ${String(rate).padStart(4)}/s offered  ${((r.latencies.length / r.elapsedMs) * 1000).toFixed(1).padStart(7)} req/s  p50 ${ms(q.p50).padStart(9)}  p99 ${ms(q.p99).padStart(9)}  max ${ms(q.max).padStart(9)}  errors ${r.errors}`);
  }
  await s.client.close();
  return { saturation: sat.perSecond, cpuPerRequest, p99, acked };
}

console.log(`intake benchmark: signed orders/paid, ${SECONDS} s per step, saturation with ${CONCURRENCY} callers, fixed rates ${RATES.join(', ')}/s; ${machine()}`);
const figures: Figure[] = [];
for (const provider of providers) {
  const db = await benchDatabase(provider);
  const floorDb = db && (await benchDatabase(provider));
  if (!db || !floorDb) continue;
  const floor = spawnApp({ FLOOR_DATABASE: floorDb.url, SHOPIFY_API_SECRET: API_SECRET }, { entry: 'test/bench/floor.ts' });
  process.once('exit', () => floor.child.kill('SIGKILL'));
  const floorUrl = await floor.url();
  const app = await startAppProcess(db.url);
  // Auto-dispatch on and no courier credentials: every order is recorded and its job queued; the
  // job ends at once in NEEDS_ATTENTION, so workers add realistic but light background load.
  cli(app.env, 'configure', SHOP, '--auto-dispatch', 'on');
  const endpointPath = new URL((JSON.parse(cli(app.env, 'show', SHOP, '--json')) as { environments: { test: { webhookUrl: string } } }).environments.test.webhookUrl).pathname;
  await new Promise((r) => setTimeout(r, 2_000));
  const idleRss = rssMbOf(app.proc.child.pid);
  const idleCpuBefore = cpuMsOf(app.proc.child.pid);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleCpu = (cpuMsOf(app.proc.child.pid) - idleCpuBefore) / (IDLE_SECONDS * 10);
  console.log(`\n${provider}${FLOOD ? ` (with ${FLOOD} unsigned courier webhooks/s to ${endpointPath.slice(0, 30)}…)` : ''}; app idle RSS ${idleRss.toFixed(0)} MB; idle CPU ${idleCpu.toFixed(2)} % of a core over ${IDLE_SECONDS} s`);
  const f = await measure(floorUrl, floor.child.pid, 'floor');
  const cpuBefore = cpuMsOf(app.proc.child.pid);
  const a = await measure(app.url, app.proc.child.pid, 'app', endpointPath);
  // Exactly once: every acknowledged order is one Delivery, once the inbox worker has caught up.
  const { database } = await openMigratedDatabase(db.url, { poolSize: 1 });
  const drainStart = Date.now();
  while ((await database.db.webhookInbox.count({ where: { state: 'pending' } })) > 0 && Date.now() - drainStart < 300_000) await new Promise((r) => setTimeout(r, 250));
  // The figure above counts the CPU spent while requests were answered; intake-first defers the inbox's
  // work past them. This one counts everything until the inbox is empty (jobs that ran meanwhile too).
  const cpuDrained = (cpuMsOf(app.proc.child.pid) - cpuBefore) / a.acked;
  console.log(`inbox drained ${((Date.now() - drainStart) / 1000).toFixed(1)} s after the last request; app CPU ${cpuDrained.toFixed(2)} ms per acknowledged request until then`);
  const recorded = await database.db.delivery.count();
  await database.close();
  console.log(`acknowledged ${a.acked} orders; recorded deliveries ${recorded}`);
  const t = TARGETS[provider];
  const share = (a.saturation / f.saturation) * 100;
  figures.push(
    { name: `${provider} intake saturation`, value: a.saturation, unit: 'req/s', target: { op: '>=', limit: t.saturation } },
    { name: `${provider} floor saturation`, value: f.saturation, unit: 'req/s' },
    { name: `${provider} intake / floor`, value: share, unit: '%', ...(t.floorShare ? { target: { op: '>=' as const, limit: t.floorShare } } : {}) },
    ...RATES.map((rate): Figure => ({ name: `${provider} intake p99 at ${rate} req/s`, value: a.p99[rate]!, unit: 'ms', ...(rate === 200 ? { target: { op: '<' as const, limit: t.p99At200 } } : {}) })),
    ...RATES.map((rate): Figure => ({ name: `${provider} floor p99 at ${rate} req/s`, value: f.p99[rate]!, unit: 'ms' })),
    { name: `${provider} app CPU per intake request`, value: a.cpuPerRequest, unit: 'ms', ...(t.cpu ? { target: { op: '<=' as const, limit: t.cpu } } : {}) },
    { name: `${provider} floor CPU per request`, value: f.cpuPerRequest, unit: 'ms' },
    { name: `${provider} app CPU per intake request until the inbox drained`, value: cpuDrained, unit: 'ms' },
    { name: `${provider} app idle RSS`, value: idleRss, unit: 'MB', target: { op: '<', limit: 150 } },
    { name: `${provider} app idle CPU`, value: idleCpu, unit: '% of a core' },
    { name: `${provider} lost`, value: Math.max(0, a.acked - recorded), unit: 'orders', target: { op: '==', limit: 0 } },
    { name: `${provider} duplicated`, value: Math.max(0, recorded - a.acked), unit: 'orders', target: { op: '==', limit: 0 } },
  );
  await app.stop();
  floor.child.kill('SIGTERM');
  await floor.exited;
  await db.drop();
  await floorDb.drop();
}
printSummary('intake', figures);
process.exit(0);
