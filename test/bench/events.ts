// `npm run bench:events [-- --db=sqlite,postgres] [--quick]`: signed courier status webhooks at increasing rates
// against the app's endpoint (the real entry point in a child process): raw-body
// HMAC check, event stored once per id, processing job enqueued, 200. Prints
// events/s accepted and p50/p99 acknowledgement latency on SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { signDeliveryWebhook } from '../../web/delivery/index.ts';
import { benchArgs, benchDatabase, cli, machine, ms, openLoop, pool, startAppProcess, summary } from './lib.ts';

const { quick, providers } = benchArgs();
const RATES = (process.env.BENCH_RATES ?? (quick ? '20' : '50,100,200,400')).split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5));
const SHOP = 'events-bench.myshopify.com';
const SECRET = 'whsec_bench_events_0123456789';

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
  await client.close();
  await app.stop();
  await db.drop();
}
process.exit(0);
