// `npm run bench:slots -- --db=sqlite,postgres`: the cart block's app proxy, GET /storefront/slots,
// signed as Shopify signs it, against the app's real entry point: latency at a fixed rate and the
// saturation throughput, for a shop with 7 days of 2 h slots and some places taken.
// Prints figures only; nothing here is asserted (timings do not belong in tests).
import { createHmac } from 'node:crypto';
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import { API_SECRET, benchArgs, benchDatabase, cli, closedLoop, machine, openLoop, printSummary, startAppProcess, summary, type Figure } from './lib.ts';

const { quick, providers } = benchArgs();
const SECONDS = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5));
const RATE = Number(process.env.BENCH_RATE ?? (quick ? 20 : 200));
const CONCURRENCY = 16;
const SHOP = 'bench-slots.myshopify.com';
const DAY = { open: '08:00', close: '18:00' };

function signedUrl(base: string): string {
  const params: Record<string, string> = { shop: SHOP, logged_in_customer_id: '', path_prefix: '/apps/same-day', timestamp: String(Math.floor(Date.now() / 1000)) };
  const message = Object.keys(params).map((k) => `${k}=${params[k]}`).sort().join('');
  return `${base}/storefront/slots?${new URLSearchParams({ ...params, signature: createHmac('sha256', API_SECRET).update(message).digest('hex') })}`;
}

console.log(`app proxy slots benchmark: ${SECONDS} s at ${RATE}/s, then ${CONCURRENCY} callers; ${machine()}`);
const figures: Figure[] = [];
for (const provider of providers) {
  const db = await benchDatabase(provider);
  if (!db) continue;
  const app = await startAppProcess(db.url);
  const windows = { default: { timeZone: 'Africa/Johannesburg', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: null, closures: [], prepMinutes: 30 } };
  cli(app.env, 'configure', SHOP, '--settings', JSON.stringify({ windows, slots: { enabled: true, capacity: 10, daysAhead: 6 } }));
  // Some places taken, so the answer reads counts.
  const { database } = await openMigratedDatabase(db.url, { poolSize: 1 });
  const shop = await database.db.shop.findUniqueOrThrow({ where: { domain: SHOP } });
  const first = await (await fetch(signedUrl(app.url))).json() as { days: Array<{ slots: Array<{ start: string }> }> };
  const starts = first.days.flatMap((d) => d.slots.map((s) => s.start));
  for (const [i, start] of starts.entries()) await database.db.slotCount.create({ data: { shopId: shop.id, windowKey: 'default', slotStart: start, count: i % 11 } });
  await database.close();
  const get = async () => {
    const r = await fetch(signedUrl(app.url));
    if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
    await r.arrayBuffer();
  };
  for (let i = 0; i < 50; i++) await get(); // warm-up
  const open = await openLoop(RATE, SECONDS * 1000, get);
  const s = summary(open.latencies);
  const sat = await closedLoop(CONCURRENCY, SECONDS * 1000, get);
  console.log(`${provider}: ${starts.length} slots; at ${RATE}/s p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms (errors ${open.errors}); saturation ${sat.perSecond.toFixed(0)}/s (errors ${sat.errors})`);
  figures.push(
    { name: `${provider} proxy slots p50`, value: s.p50, unit: 'ms' },
    { name: `${provider} proxy slots p99`, value: s.p99, unit: 'ms', target: { op: '<=', limit: 100 } },
    { name: `${provider} proxy slots per second (saturation)`, value: sat.perSecond, unit: '/s' },
    { name: `${provider} proxy errors`, value: open.errors + sat.errors, unit: '', target: { op: '==', limit: 0 } },
  );
  await app.stop();
}
printSummary('slots', figures);
process.exit(0);
