// `npm run bench:intake`: signed orders/paid webhooks at increasing rates
// against the real app (its entry point in a child process: HMAC check,
// receipt, Delivery + dispatch job in one transaction), with a bare Express
// server (also a child process) measured in the same run as the baseline.
// Prints req/s, p50/p99 acknowledgement latency and the ratio to the baseline.
// BENCH_COURIER_FLOOD=<n> adds n unsigned courier webhooks per second to one
// shop's endpoint during each measurement of the app (issue 13: a flood must
// not slow Shopify intake).
import { shopifyWebhookHeaders } from '../support/shopify.ts';
import { paidOrder } from '../support/orders.ts';
import { spawnApp } from '../support/process.ts';
import { API_SECRET, benchDatabase, cli, machine, ms, openLoop, pool, startAppProcess, summary } from './lib.ts';

const RATES = (process.env.BENCH_RATES ?? '25,50,100,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SHOP = 'bench.myshopify.com';
const FLOOD = Number(process.env.BENCH_COURIER_FLOOD ?? 0);

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

async function measure(url: string, rate: number) {
  const client = pool(url);
  const bodies = Array.from({ length: Math.round(rate * SECONDS) }, () => JSON.stringify(paidOrder()));
  // Warm the connection pool and the server's code paths.
  for (let i = 0; i < 5; i++) {
    const b = JSON.stringify(paidOrder());
    await (await client.request({ method: 'POST', path: '/api/webhooks', headers: shopifyWebhookHeaders('orders/paid', SHOP, b, { secret: API_SECRET }), body: b })).body.text();
  }
  const r = await openLoop(rate, SECONDS * 1000, async (i) => {
    const body = bodies[i]!;
    const res = await client.request({ method: 'POST', path: '/api/webhooks', headers: shopifyWebhookHeaders('orders/paid', SHOP, body, { secret: API_SECRET }), body });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  });
  await client.close();
  return { ...summary(r.latencies), errors: r.errors, rps: (r.latencies.length / r.elapsedMs) * 1000 };
}

console.log(`intake benchmark: signed orders/paid, ${SECONDS} s per rate, open loop, app and baseline as child processes; ${machine()}`);
const bare = spawnApp({}, { entry: 'test/bench/bare-express.ts' });
process.once('exit', () => bare.child.kill('SIGKILL'));
const bareUrl = await bare.url();
for (const provider of ['sqlite', 'postgres'] as const) {
  const db = await benchDatabase(provider);
  if (!db) continue;
  const app = await startAppProcess(db.url);
  // Auto-dispatch on and no courier credentials: every order is recorded and its job queued; the
  // job ends at once in NEEDS_ATTENTION, so workers add realistic but light background load.
  cli(app.env, 'configure', SHOP, '--auto-dispatch', 'on');
  const endpointPath = new URL((JSON.parse(cli(app.env, 'show', SHOP, '--json')) as { environments: { test: { webhookUrl: string } } }).environments.test.webhookUrl).pathname;
  console.log(`\n${provider}${FLOOD ? ` (with ${FLOOD} unsigned courier webhooks/s to ${endpointPath.slice(0, 30)}…)` : ''}`);
  console.log(`${'rate'.padStart(8)} ${'req/s'.padStart(8)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)} ${'errors'.padStart(7)}   bare Express p50 / p99   ratio p50 / p99`);
  for (const rate of RATES) {
    const base = await measure(bareUrl, rate);
    const [a, f] = await Promise.all([measure(app.url, rate), FLOOD ? flood(app.url, endpointPath, FLOOD) : null]);
    if (f?.errors) console.log(`  courier flood: ${f.errors} requests not answered 401`);
    console.log(
      `${String(rate).padStart(6)}/s ${a.rps.toFixed(1).padStart(8)} ${ms(a.p50).padStart(10)} ${ms(a.p99).padStart(10)} ${ms(a.max).padStart(10)} ${String(a.errors).padStart(7)}   ${ms(base.p50).padStart(9)} / ${ms(base.p99).padEnd(9)}   ${(a.p50 / base.p50).toFixed(1)}× / ${(a.p99 / base.p99).toFixed(1)}×`,
    );
  }
  const recorded = (JSON.parse(cli(app.env, "deliveries", SHOP, "--limit", "1000", "--json")) as unknown[]).length;
  console.log(`recorded deliveries: ${recorded}`);
  await app.stop();
  await db.drop();
}
bare.child.kill('SIGTERM');
await bare.exited;
console.log('\ntarget: intake p99 under 25 ms');
process.exit(0);
