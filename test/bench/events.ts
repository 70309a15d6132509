// `npm run bench:events [-- --db=sqlite,postgres] [--quick]`: signed courier status webhooks at increasing rates
// against the app's endpoint (the real entry point in a child process): raw-body
// HMAC check, event stored once per id, processing job enqueued, 200. Prints
// events/s accepted and p50/p99 acknowledgement latency on SQLite and PostgreSQL, then
// (issue 24) the end-to-end figure: a burst of events for booked deliveries (4 statuses each,
// in order), how many per second are matched and applied until the last one is, and the app's CPU
// per applied event over that burst (intake and processing): the median of BENCH_BURSTS bursts (3).
import { randomUUID } from 'node:crypto';
import { signDeliveryWebhook } from '../../web/delivery/index.ts';
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import { benchArgs, benchDatabase, cli, cpuMsOf, machine, postgresCpuMs, ms, openLoop, pool, printSummary, startAppProcess, summary, type Figure } from './lib.ts';

const { quick, providers } = benchArgs();
const RATES = (process.env.BENCH_RATES ?? (quick ? '20' : '50,100,200,400')).split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5));
const SHOP = 'events-bench.myshopify.com';
const SECRET = 'whsec_bench_events_0123456789';
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? (quick ? 50 : 500));
const STATUSES = ['collected', 'in_transit', 'out_for_delivery', 'delivered'];
/** End-to-end bursts, each over new deliveries; their median is the figure. */
const BURSTS = Number(process.env.BENCH_BURSTS ?? (quick ? 1 : 3));
const TARGET = { sqlite: 500, postgres: 300 } as const;
const figures: Figure[] = [];

function signed(deliveryRef: string, status: string) {
  const id = `evt_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: deliveryRef, status } });
  return { body, headers: signDeliveryWebhook({ secret: SECRET, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' }) };
}

console.log(`events benchmark: signed delivery.status.updated webhooks, ${SECONDS} s per rate, open loop; ${machine()}`);
for (const provider of providers) {
  const db = await benchDatabase(provider);
  if (!db) continue;
  const app = await startAppProcess(db.url);
  cli({ ...app.env, COURIER_WEBHOOK_SECRET: SECRET }, 'configure', SHOP, '--webhook-secret', 'env');
  const shown = JSON.parse(cli(app.env, 'show', SHOP, '--json')) as { environments: { test: { endpointId: string } } };
  const path = `/webhooks/delivery/${shown.environments.test.endpointId}`;
  const client = pool(app.url);
  console.log(`\n${provider}`);
  console.log(`${'rate'.padStart(8)} ${'accepted/s'.padStart(11)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)} ${'errors'.padStart(7)}`);
  for (const rate of RATES) {
    // Deliveries the app does not know: each event is stored, acknowledged, and later kept UNMATCHED.
    const r = await openLoop(rate, SECONDS * 1000, async () => {
      const id = `evt_${randomUUID().replace(/-/g, '')}`;
      const body = JSON.stringify({ id, type: 'delivery.status.updated', created_at: new Date().toISOString(), data: { delivery_id: `delivery_${randomUUID()}`, status: 'in_transit' } });
      const headers = signDeliveryWebhook({ secret: SECRET, body, timestampSec: Math.floor(Date.now() / 1000), eventId: id, type: 'delivery.status.updated' });
      const res = await client.request({ method: 'POST', path, headers, body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    });
    const s = summary(r.latencies);
    console.log(`${String(rate).padStart(6)}/s ${((r.latencies.length / r.elapsedMs) * 1000).toFixed(1).padStart(11)} ${ms(s.p50).padStart(10)} ${ms(s.p99).padStart(10)} ${ms(s.max).padStart(10)} ${String(r.errors).padStart(7)}`);
  }
  // End to end: booked deliveries (CREATED, their courier id known), every one sent its statuses in order.
  const { database } = await openMigratedDatabase(db.url, { poolSize: 2 });
  // The rate steps leave thousands of acknowledged events still queued (400/s offered is past saturation):
  // the end-to-end burst starts once each has been processed once, so its figure is its own.
  const drainStart = performance.now();
  while ((await database.db.courierEvent.count({ where: { state: 'RECEIVED' } })) > 0 && performance.now() - drainStart < 300_000) await new Promise((r) => setTimeout(r, 250));
  console.log(`rate steps' events processed ${((performance.now() - drainStart) / 1000).toFixed(1)} s after the last step`);
  const shop = await database.db.shop.findUniqueOrThrow({ where: { domain: SHOP } });
  /** One burst over `DELIVERIES` new booked deliveries (ids `bench-<round>-<n>`). */
  async function burst(round: number) {
    const key = (i: number) => `bench-${round}-${i}`;
    const created = new Date();
    for (let i = 0; i < DELIVERIES; i += 100) {
      const batch = Array.from({ length: Math.min(100, DELIVERIES - i) }, (_, j) => key(i + j));
      await database.db.delivery.createMany({ data: batch.map((k) => ({ id: k, shopId: shop.id, shopifyOrderId: k, orderName: `#${k}`, environment: 'test', status: 'CREATED', orderJson: '{}', courierOrderId: `ord_${k}`, createdAt: created })) });
      await database.db.courierRef.createMany({ data: batch.map((k) => ({ deliveryId: k, shopId: shop.id, environment: 'test', generation: 1, kind: 'delivery', value: `dlv_${k}` })) });
    }
    // A shop's tables have statistics (autovacuum analyzes them); 500 rows inserted a second ago do not,
    // and PostgreSQL then updated each delivery through its status index, past the other 499 CREATED rows.
    if (provider === 'postgres') await database.db.$executeRawUnsafe('ANALYZE "Delivery", "CourierRef", "CourierEvent"');
    const before = await database.db.courierEvent.count({ where: { state: 'PROCESSED' } });
    const started = performance.now();
    const cpuBefore = cpuMsOf(app.proc.child.pid);
    const pgCpuBefore = provider === 'postgres' ? postgresCpuMs() : NaN;
    // Round by round (status n of every delivery before status n+1), as fast as the app acknowledges.
    let errors = 0;
    for (const status of STATUSES) {
      const refs = Array.from({ length: DELIVERIES }, (_, i) => `dlv_${key(i)}`);
      for (let i = 0; i < refs.length; i += 64) {
        await Promise.all(refs.slice(i, i + 64).map(async (ref) => {
          const { body, headers } = signed(ref, status);
          const res = await client.request({ method: 'POST', path, headers, body });
          await res.body.text();
          if (res.statusCode !== 200) errors++;
        }));
      }
    }
    const sentMs = performance.now() - started;
    const total = DELIVERIES * STATUSES.length;
    let applied = 0;
    while (performance.now() - started < 300_000) {
      applied = (await database.db.courierEvent.count({ where: { state: 'PROCESSED' } })) - before;
      if (applied >= total) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const appliedMs = performance.now() - started;
    // Intake and processing together (less noisy than the rate on a shared machine; no target).
    const cpuPerEvent = (cpuMsOf(app.proc.child.pid) - cpuBefore) / Math.max(1, applied);
    // The server's share of the two cores (its backends, writers and autovacuum).
    const pgCpuPerEvent = provider === 'postgres' ? (postgresCpuMs() - pgCpuBefore) / Math.max(1, applied) : NaN;
    const delivered = await database.db.delivery.count({ where: { id: { startsWith: `bench-${round}-` }, courierStatus: 'delivered' } });
    const wrongOrder = await database.db.deliveryEvent.count({ where: { deliveryId: { startsWith: `bench-${round}-` }, kind: 'courier_status', applied: false } });
    const perSecond = (applied / appliedMs) * 1000;
    console.log(`end to end, burst ${round + 1}/${BURSTS}: ${total} events for ${DELIVERIES} deliveries sent in ${(sentMs / 1000).toFixed(1)} s (${errors} errors), ${applied} applied in ${(appliedMs / 1000).toFixed(1)} s = ${perSecond.toFixed(0)}/s; ${delivered} delivered; ${wrongOrder} arrived out of order; app CPU ${cpuPerEvent.toFixed(2)} ms per applied event${provider === 'postgres' ? `, PostgreSQL CPU ${pgCpuPerEvent.toFixed(2)} ms` : ''}`);
    return { perSecond, cpuPerEvent, pgCpuPerEvent, notApplied: total - applied, wrongOrder };
  }
  // The machine's CPU time varies from run to run: the median of several bursts is the figure.
  const runs = [];
  for (let round = 0; round < BURSTS; round++) runs.push(await burst(round));
  const median = (xs: number[]) => summary(xs).p50;
  const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
  if (BURSTS > 1) console.log(`end to end, median of ${BURSTS} bursts: ${median(runs.map((r) => r.perSecond)).toFixed(0)} events applied per second (${runs.map((r) => r.perSecond.toFixed(0)).join(', ')})`);
  figures.push(
    { name: `${provider} events applied per second`, value: median(runs.map((r) => r.perSecond)), unit: 'events/s', target: { op: '>=', limit: TARGET[provider] } },
    { name: `${provider} app CPU per applied event`, value: median(runs.map((r) => r.cpuPerEvent)), unit: 'ms' },
    ...(provider === 'postgres' ? [{ name: 'postgres database CPU per applied event', value: median(runs.map((r) => r.pgCpuPerEvent)), unit: 'ms' }] : []),
    { name: `${provider} events not applied`, value: sum(runs.map((r) => r.notApplied)), unit: 'events', target: { op: '==', limit: 0 } },
    { name: `${provider} events applied out of order`, value: sum(runs.map((r) => r.wrongOrder)), unit: 'events', target: { op: '==', limit: 0 } },
  );
  await database.close();
  await client.close();
  await app.stop();
  await db.drop();
}
printSummary('events', figures);
process.exit(0);
