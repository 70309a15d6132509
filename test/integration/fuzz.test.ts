// Property: no request to the two webhook endpoints or the deliveries filters
// gets a 5xx, whatever the values (lone surrogates, NUL, huge or negative
// years, odd types, garbage). Bounded: NUM_RUNS cases per property and a time
// limit, so it runs in `npm test` on SQLite and PostgreSQL. FUZZ_SEED=<n>
// replays a run (fast-check prints the seed of a failure).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';
import { wellFormed } from '../../web/security/text.ts';
import { sessionToken } from '../support/session-token.ts';
import { paidOrder } from '../support/orders.ts';
import { connectCourierAccount, installSession, installShop, startScenario, WEBHOOK_SECRET, type Scenario } from '../support/scenario.ts';
import { shopifyWebhookHeaders } from '../support/shopify.ts';

const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const TIME_LIMIT_MS = 20_000;
const params = { numRuns: NUM_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) };

// Strings built mostly from pieces a database or a parser may choke on.
const nasty = fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d', '\ufffd', '\u202e', '%', '_', '\\', "'", '"', '%00', '%252', '\n', '😀', 'é', '#1001', 'gid://shopify/Order/1');
const weirdString = fc
  .array(fc.oneof({ arbitrary: nasty, weight: 3 }, { arbitrary: fc.string({ maxLength: 6 }), weight: 1 }, { arbitrary: fc.string({ unit: 'binary', maxLength: 4 }), weight: 1 }), { minLength: 1, maxLength: 6 })
  .map((p) => p.join(''));
const weirdDate = fc.oneof(
  fc.integer({ min: -300_000, max: 300_000 }).map((y) => `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}-01-01T00:00:00Z`),
  fc.integer({ min: 0, max: 99_999 }).map((y) => `${String(y).padStart(4, '0')}-12-31`),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  weirdString,
);
const weirdValue = fc.oneof(
  { arbitrary: weirdString, weight: 5 },
  { arbitrary: weirdDate, weight: 2 },
  { arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(weirdString, { maxLength: 2 }), fc.dictionary(weirdString, weirdString, { maxKeys: 2 })), weight: 1 },
);

let s: Scenario;
let endpointUrl: string;
const courierShop = 'fuzz-courier.myshopify.com';
const shopifyShop = 'fuzz-shopify.myshopify.com';
beforeAll(async () => {
  s = await startScenario();
  await installShop(s, courierShop, { settings: { autoDispatch: false } });
  ({ endpointUrl } = await connectCourierAccount(s, courierShop));
  await installSession(s, shopifyShop);
});
afterAll(async () => {
  await s?.close();
});

/** The status, with the body when it is a 5xx (for the counterexample report). */
async function statusOf(res: Response): Promise<string> {
  return res.status >= 500 ? `${res.status} ${await res.text()}` : (await res.arrayBuffer(), String(res.status));
}
const no5xx = (status: string) => expect(status, status).not.toMatch(/^5/);

describe('fuzz: no 5xx', () => {
  it('courier webhooks, signed, with any field values', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.record({ type: fc.oneof(fc.constant('delivery.status.updated'), weirdString), created_at: weirdValue, delivery_id: weirdValue, status: weirdValue, extra: weirdValue }), weirdString, async (f, idTail) => {
        const id = `evt_${n++}_${idTail}`;
        const body = JSON.stringify({ id, type: f.type, created_at: f.created_at, data: { delivery_id: f.delivery_id, status: f.status, extra: f.extra } });
        // Header values must be ByteStrings: the event id and type go in as the courier would send them (the body's, when they fit).
        const headerSafe = (v: string) => (/^[\x20-\x7e]*$/.test(v) ? v : 'x');
        const headers = signDeliveryWebhook({ secret: WEBHOOK_SECRET, body, timestampSec: Math.floor(Date.now() / 1000), eventId: headerSafe(id), type: headerSafe(f.type) });
        no5xx(await statusOf(await fetch(endpointUrl, { method: 'POST', headers, body })));
      }),
      params,
    );
  });

  it('courier webhooks, unsigned or garbled', async () => {
    await fc.assert(
      fc.asyncProperty(weirdString, fc.dictionary(fc.constantFrom('x-service-signature', 'x-service-timestamp', 'x-service-event-id', 'x-service-event', 'x-service-signature-version', 'content-type'), fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((v) => v.replace(/[^\x20-\x7e]/g, ''))), async (body, headers) => {
        no5xx(await statusOf(await fetch(endpointUrl, { method: 'POST', headers, body })));
      }),
      params,
    );
  });

  it('Shopify orders/paid, signed, with any order field values', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ name: weirdValue, email: weirdValue, created_at: weirdValue, note: weirdValue, city: weirdValue, address1: weirdValue, phone: weirdValue, title: weirdValue, total_price: weirdValue }),
        async (f) => {
          const base = paidOrder();
          const order = {
            ...base,
            name: f.name,
            email: f.email,
            created_at: f.created_at,
            note: f.note,
            total_price: f.total_price,
            shipping_address: { ...(base.shipping_address as object), city: f.city, address1: f.address1, phone: f.phone },
            shipping_lines: [{ ...((base.shipping_lines as object[])?.[0] ?? {}), title: f.title }],
          };
          const body = JSON.stringify(order);
          const res = await fetch(`${s.app.url}/api/webhooks`, { method: 'POST', headers: shopifyWebhookHeaders('orders/paid', shopifyShop, body), body });
          no5xx(await statusOf(res));
        },
      ),
      params,
    );
  });

  it('deliveries filters and order lookups', async () => {
    const auth = () => ({ authorization: `Bearer ${sessionToken(shopifyShop)}` });
    await fc.assert(
      fc.asyncProperty(
        // Each key is optional, and most have plausible values too, so one bad value is not always hidden behind another's 400.
        fc.record(
          {
            from: weirdDate,
            to: weirdDate,
            q: fc.oneof(weirdString, fc.constantFrom('#1001', '100%', 'a_b')),
            cursor: fc.oneof(weirdString, fc.bigInt({ min: 0n, max: 10n ** 16n }).map((n) => Buffer.from(`${n}:abc`).toString('base64url'))),
            status: fc.oneof(fc.constantFrom('PENDING', 'created,failed'), weirdString),
            limit: fc.oneof(fc.integer({ min: 1, max: 100 }).map(String), weirdString),
          },
          { requiredKeys: [] },
        ),
        weirdString,
        async (query, orderId) => {
          const qs = Object.entries(query).map(([k, v]) => `${k}=${encodeURIComponent(wellFormed(v))}`).join('&');
          no5xx(await statusOf(await fetch(`${s.app.url}/api/deliveries?${qs}`, { headers: auth() })));
          const rawQs = Object.entries(query).map(([k, v]) => `${k}=${v.replace(/[^\x21-\x7e]/g, '%00')}`).join('&'); // undecoded, %-sequences as they come
          no5xx(await statusOf(await fetch(`${s.app.url}/api/deliveries?${rawQs.replace(/#/g, '%23')}`, { headers: auth() })));
          no5xx(await statusOf(await fetch(`${s.app.url}/api/orders/${encodeURIComponent(wellFormed(orderId)) || 'x'}/delivery`, { headers: auth() })));
        },
      ),
      params,
    );
  });
});
