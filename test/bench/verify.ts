// `npm run bench:verify`: courier webhook verifications per second for a 2 KB body.
// Prints figures only; nothing here is asserted (timings do not belong in tests).
import { performance } from 'node:perf_hooks';
import { signDeliveryWebhook, verifyDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';

const SECRET = 'whsec_bench_0123456789abcdef';
const ts = Math.floor(Date.now() / 1000);

// A realistic event padded to exactly 2048 bytes.
const base = { id: 'evt_bench_0001', type: 'delivery.status.updated', created_at: new Date(ts * 1000).toISOString(), data: { delivery_id: 'delivery_bench_0001', status: 'in_transit', note: '' } };
const overhead = Buffer.byteLength(JSON.stringify(base));
base.data.note = 'x'.repeat(2048 - overhead);
const body = JSON.stringify(base);
const raw = Buffer.from(body, 'utf8');
if (raw.length !== 2048) throw new Error(`body is ${raw.length} bytes, expected 2048`);

const headers = signDeliveryWebhook({ secret: SECRET, body, timestampSec: ts, eventId: base.id, type: base.type });

function run(label: string, secrets: string[], durationMs = 1_000): void {
  const nowMs = Date.now();
  for (let i = 0; i < 2_000; i++) verifyDeliveryWebhook({ headers, rawBody: raw, secrets, nowMs }); // warm-up
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs) {
    for (let i = 0; i < 500; i++) {
      const r = verifyDeliveryWebhook({ headers, rawBody: raw, secrets, nowMs });
      if (!r.ok) throw new Error(`verification failed: ${r.reason}`);
    }
    n += 500;
    elapsed = performance.now() - start;
  }
  const perSec = Math.round((n / elapsed) * 1000);
  console.log(`${label.padEnd(44)} ${perSec.toLocaleString('en-US').padStart(10)} verifications/s  (${((elapsed * 1000) / n).toFixed(1)} µs each)`);
}

console.log(`webhook verify benchmark: ${raw.length}-byte body, HMAC-SHA256, Node ${process.version}`);
run('1 secret (normal)', [SECRET]);
run('2 secrets, match on the second (rotation)', ['whsec_previous_secret_value', SECRET]);
