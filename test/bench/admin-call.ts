// `npm run bench:admin-call [-- --quick]`: the app's CPU per Shopify Admin GraphQL call, the
// client only (web/shopify/admin-api.ts: pacing, the HTTP exchange, the cost report), against a
// server in another process that answers the booking write with a full bucket. Beside it, the
// same POST through undici's fetch and through undici's request, for reference: a sale makes a
// few calls per order (docs/benchmarks.md). Then the same calls paced, each started by a timer
// (15 and 50 a second), beside a timer that starts nothing: what a call costs when it is not
// one of a stream, as a sale's bookings paced by the Shopify bucket are.
import { spawn } from 'node:child_process';
import { fetch, request } from 'undici';
import { installShopifyRouting } from '../../dev/shop-sim/route.ts';
import { createAdminApi } from '../../web/shopify/admin-api.ts';
import { BOOKING_WRITE } from '../../web/shopify/operations.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { machine, printSummary, type Figure } from './lib.ts';

const quick = process.argv.includes('--quick');
const CALLS = Number(process.env.BENCH_CALLS ?? (quick ? 200 : 3_000));
const ROUNDS = quick ? 1 : 3;
const PACED_RATES = quick ? [50] : [15, 50];
const PACED_SECONDS = quick ? 0.5 : 5;
const SHOP = 'admin-call-bench.myshopify.com';

// The answer Shopify gives a booking write, with its cost. The bucket is far larger than any plan's
// and its refund is reported, so the pacer settles each call and never waits: only CPU is measured.
const SERVER = `
import http from 'node:http';
const body = JSON.stringify({
  data: { metafieldsSet: { metafields: [{ key: 'status', namespace: 'same_day_dispatch', value: 'CREATED' }], userErrors: [] }, tagsAdd: { node: { id: 'gid://shopify/Order/1' }, userErrors: [] } },
  extensions: { cost: { requestedQueryCost: 20, actualQueryCost: 10, throttleStatus: { maximumAvailable: 1e9, currentlyAvailable: 1e9, restoreRate: 1e9 } } },
});
http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); }); })
  .listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;

const server = spawn(process.execPath, ['--input-type=module', '-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve, reject) => {
  server.once('error', reject);
  server.stdout.once('data', (d) => resolve(Number(String(d).trim())));
});
const log = createLogger({ level: 'silent' });
installShopifyRouting(`http://127.0.0.1:${port}`, log);

const orderGid = 'gid://shopify/Order/1';
const variables = {
  id: orderGid,
  tags: ['same-day-dispatch'],
  metafields: [{ ownerId: orderGid, namespace: 'same_day_dispatch', key: 'status', type: 'single_line_text_field', value: 'CREATED' }],
};
const url = `https://${SHOP}/admin/api/2026-10/graphql.json`;
const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-shopify-access-token': 'shpat_bench' };
const payload = JSON.stringify({ query: BOOKING_WRITE, variables });

const api = createAdminApi({ apiVersion: '2026-10', accessToken: async () => 'shpat_bench', log, maxAttempts: 1 });
const ways: Record<string, () => Promise<unknown>> = {
  "the app's Admin API client": () => api.request(SHOP, BOOKING_WRITE, variables, { priority: 'background' }),
  'undici fetch': async () => (await fetch(url, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(20_000) })).json(),
  'undici request': async () => (await request(url, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(20_000) })).body.json(),
};

/** CPU (user + system) of this process per call, sequential calls after a warm-up. */
async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(300, CALLS); i++) await call();
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / CALLS;
}

/** CPU of this process per call when calls start `rate` times a second, each on its own timer. */
async function cpuPerPacedCall(call: () => Promise<unknown>, rate: number): Promise<number> {
  const n = Math.round(rate * PACED_SECONDS);
  const started = performance.now();
  const before = process.cpuUsage();
  const running: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    running.push(call());
  }
  await Promise.all(running);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}
const paced: Record<string, () => Promise<unknown>> = {
  "the app's Admin API client": ways["the app's Admin API client"]!,
  'undici request': ways['undici request']!,
  'a timer alone': async () => {},
};

console.log(`admin-call benchmark: ${CALLS} sequential booking writes per way, ${ROUNDS} rounds (the least kept); ${machine()}`);
const best = new Map<string, number>();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, call] of Object.entries(ways)) {
      const ms = await cpuPerCall(call);
      best.set(name, Math.min(best.get(name) ?? Infinity, ms));
      console.log(`  round ${round}: ${name.padEnd(28)} ${ms.toFixed(3)} ms CPU per call`);
    }
    for (const rate of PACED_RATES) {
      for (const [name, call] of Object.entries(paced)) {
        const ms = await cpuPerPacedCall(call, rate);
        best.set(`${name} at ${rate}/s`, Math.min(best.get(`${name} at ${rate}/s`) ?? Infinity, ms));
        console.log(`  round ${round}: ${`${name}, ${rate} a second`.padEnd(42)} ${ms.toFixed(3)} ms CPU per call`);
      }
    }
  }
} finally {
  server.kill();
}
const figures: Figure[] = [
  { name: 'admin API client CPU per call', value: best.get("the app's Admin API client")!, unit: 'ms' },
  { name: 'undici fetch CPU per call', value: best.get('undici fetch')!, unit: 'ms' },
  { name: 'undici request CPU per call', value: best.get('undici request')!, unit: 'ms' },
  ...PACED_RATES.flatMap((rate): Figure[] => [
    { name: `admin API client CPU per call at ${rate}/s`, value: best.get(`the app's Admin API client at ${rate}/s`)!, unit: 'ms' },
    { name: `undici request CPU per call at ${rate}/s`, value: best.get(`undici request at ${rate}/s`)!, unit: 'ms' },
    { name: `timer wake CPU at ${rate}/s`, value: best.get(`a timer alone at ${rate}/s`)!, unit: 'ms' },
  ]),
];
printSummary('admin-call', figures);
process.exit(0);
