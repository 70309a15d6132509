// Contract tests: the real DeliveryClient against the real sandbox courier over HTTP on
// 127.0.0.1. Retry timings are shortened through options; nothing asserts on elapsed time.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxCourier, type RunningSandbox } from '../../dev/sandbox/courier.ts';
import { SandboxControl } from '../../dev/sandbox/control.ts';
import {
  CourierConfigError, CredentialsError, DeliveryApiError, DeliveryClient, IdempotencyConflictError, OutcomeUnknownError, RejectedError, ScopeError, TokenCache, TransientError,
  serializeCreateOrder, type CreateOrderRequest, type DeliveryClientOptions,
} from '../../web/delivery/index.ts';
import { createLogger } from '../../web/ops/logger.ts';

const CLIENT_ID = 'sdd-test-client';
const CLIENT_SECRET = 'cs_test_Zq8Lm2Vx9Rt4Pw7Ky1Hn';
const STORE = 'store_sandbox_001';

let sb: RunningSandbox;
let ctl: SandboxControl;

beforeAll(async () => {
  sb = await startSandboxCourier({
    apps: [
      { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: ['orders:create', 'orders:read', 'quotes:create', 'webhooks:manage'], storeIds: [STORE], webhook: null },
      { clientId: 'no-create-scope', clientSecret: 'cs_test_other_0000000000', scopes: ['orders:read'], storeIds: [STORE], webhook: null },
    ],
  });
  ctl = new SandboxControl(sb.url);
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(async () => {
  await ctl.reset();
});

function request(reference: string, over: Partial<CreateOrderRequest> = {}): CreateOrderRequest {
  return {
    reference,
    channel: 'web',
    serviceType: 'SAME_DAY',
    pickup: { storeId: STORE },
    dropoff: { name: 'Thandi Nkosi', phone: '+27821234567', addressLine1: '12 Jan Smuts Ave', city: 'Johannesburg', country: 'ZA', latitude: -26.1715, longitude: 28.0317 },
    package: { size: 'SMALL', weightKg: '1.5' },
    amount: '250.00',
    currency: 'ZAR',
    ...over,
  };
}

interface Harness {
  client: DeliveryClient;
  sleeps: number[];
  logs: string[];
  clock: { now: number };
}

function harness(over: Partial<DeliveryClientOptions> = {}): Harness {
  const sleeps: number[] = [];
  const logs: string[] = [];
  const clock = { now: Date.now() };
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const client = new DeliveryClient({
    baseUrl: sb.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    tokenCacheKey: 'shop-1.myshopify.com:test',
    tokenCache: new TokenCache(),
    retry: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 60_000 },
    log: createLogger({ level: 'debug', destination: sink }),
    now: () => clock.now,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.now += ms;
    },
    ...over,
  });
  return { client, sleeps, logs, clock };
}

async function rejection(p: Promise<unknown>): Promise<DeliveryApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DeliveryApiError);
    return e as DeliveryApiError;
  }
  throw new Error('expected the call to fail');
}

describe('token', () => {
  it('makes one token request for 100 sequential calls', async () => {
    const { client } = harness();
    for (let i = 0; i < 100; i++) await client.findOrdersByReference(`R-${i}`);
    const stats = await ctl.stats();
    expect(stats.tokenRequests).toBe(1);
    expect((await ctl.requests({ route: 'list' })).length).toBe(100);
  });

  it('makes one token request for 100 concurrent first calls', async () => {
    const { client } = harness();
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => client.findOrdersByReference(`R-${i}`)));
    expect(results).toHaveLength(100);
    expect((await ctl.stats()).tokenRequests).toBe(1);
  });

  it('shares the cache between clients with the same key, not across keys', async () => {
    const cache = new TokenCache();
    await harness({ tokenCache: cache, tokenCacheKey: 'a:test' }).client.findOrdersByReference('x');
    await harness({ tokenCache: cache, tokenCacheKey: 'a:test' }).client.findOrdersByReference('x');
    expect((await ctl.stats()).tokenRequests).toBe(1);
    await harness({ tokenCache: cache, tokenCacheKey: 'a:live' }).client.findOrdersByReference('x');
    expect((await ctl.stats()).tokenRequests).toBe(2);
  });

  it('requests a new token once the cached one reaches expires_in minus the margin', async () => {
    await ctl.putApp(CLIENT_ID, { tokenTtlSec: 120 });
    const { client, clock } = harness();
    await client.findOrdersByReference('x');
    clock.now += 100_000; // 120 s - 12 s margin = 108 s: still valid
    await client.findOrdersByReference('x');
    expect((await ctl.stats()).tokenRequests).toBe(1);
    clock.now += 10_000; // 110 s: past the margin
    await client.findOrdersByReference('x');
    expect((await ctl.stats()).tokenRequests).toBe(2);
  });

  it('uses the documented default lifetime (300 s) when expires_in is absent', async () => {
    await ctl.putApp(CLIENT_ID, { omitExpiresIn: true });
    const { client, clock } = harness();
    const t = await client.fetchToken();
    expect(t.expiresAt).toBe(clock.now + 270_000);
    expect(t.tokenType).toBe('Bearer');
    expect(t.scope).toContain('orders:create');
  });

  it('refreshes once on a 401 from an API call (token revoked) and repeats the call once', async () => {
    const { client } = harness();
    await client.findOrdersByReference('x');
    await ctl.revokeTokens();
    await client.findOrdersByReference('x');
    expect((await ctl.stats()).tokenRequests).toBe(2);
    expect((await ctl.requests({ route: 'list' })).map((r) => r.status)).toEqual([200, 401, 200]);
  });

  it('refreshes on a 401 when the service expired the token earlier than the client expected', async () => {
    const { client } = harness();
    await client.findOrdersByReference('x');
    await ctl.advanceClock(2 * 3600_000); // sandbox clock only: the client still trusts its token
    await client.findOrdersByReference('x');
    expect((await ctl.stats()).tokenRequests).toBe(2);
  });

  it('gives a CredentialsError when a freshly issued token is refused too, without looping', async () => {
    const { client } = harness();
    await ctl.addFault({ route: 'list', type: 'status', status: 401, count: 5 });
    const e = await rejection(client.findOrdersByReference('x'));
    expect(e).toBeInstanceOf(CredentialsError);
    expect(e.retryable).toBe(false);
    expect((await ctl.requests({ route: 'list' })).length).toBe(2);
    expect((await ctl.stats()).tokenRequests).toBe(2);
  });

  it.each([
    ['a wrong secret (401 invalid_client)', {}, 401],
    ['an unknown client id (401)', { clientId: 'nobody' }, 401],
  ])('gives a CredentialsError for %s and does not retry', async (_name, over, status) => {
    const { client } = harness({ clientSecret: 'cs_test_wrong_secret_value', ...over });
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-1')), idempotencyKey: 'k-1' }));
    expect(e).toBeInstanceOf(CredentialsError);
    expect(e.status).toBe(status);
    expect(e.message).toMatch(/did not accept the client id and secret/);
    expect((await ctl.stats()).tokenRequests).toBe(1);
    expect((await ctl.stats()).createRequests).toBe(0);
  });

  it('gives a CredentialsError for a 400 from the token endpoint', async () => {
    await ctl.addFault({ route: 'token', type: 'status', status: 400, body: '{"error":"invalid_request"}' });
    const e = await rejection(harness().client.fetchToken());
    expect(e).toBeInstanceOf(CredentialsError);
    expect(e.code).toBe('invalid_request');
    expect((await ctl.stats()).tokenRequests).toBe(1);
  });

  it('retries a 503 from the token endpoint', async () => {
    await ctl.addFault({ route: 'token', type: 'status', status: 503, count: 2 });
    const { client, sleeps } = harness();
    await client.fetchToken();
    expect(sleeps).toHaveLength(2);
    expect((await ctl.stats()).tokensIssued).toBe(1);
  });

  it('fetchToken always asks for a fresh token', async () => {
    const { client } = harness();
    await client.fetchToken();
    await client.fetchToken();
    expect((await ctl.stats()).tokenRequests).toBe(2);
  });
});

describe('createOrder', () => {
  it('creates an order and returns the spec fields, price as exact text', async () => {
    const { client } = harness();
    const r = await client.createOrder({ body: serializeCreateOrder(request('R-1')), idempotencyKey: 'k-1' });
    expect(r).toMatchObject({ orderStatus: 'VALIDATED', reference: 'R-1', deliveryPrice: '75.00', currency: 'ZAR', httpStatus: 201, attempts: 1 });
    expect(r.requestId).toMatch(/^req_/);
    expect(r.orderId).toMatch(/^ord_/);
    expect(r.dispatchId).toMatch(/^job_/);
    expect(r.responseText).toContain('"deliveryPrice":75.00');
    expect(await ctl.ordersCreatedFor('R-1')).toBe(1);
  });

  it('replays: the same key and body return identical ids and create nothing new', async () => {
    const { client } = harness();
    const body = serializeCreateOrder(request('R-2'));
    const a = await client.createOrder({ body, idempotencyKey: 'k-2' });
    const b = await client.createOrder({ body, idempotencyKey: 'k-2' });
    expect([b.orderId, b.dispatchId, b.requestId, b.deliveryPrice]).toEqual([a.orderId, a.dispatchId, a.requestId, a.deliveryPrice]);
    expect(b.responseText).toBe(a.responseText);
    expect(b.replayed).toBe(true);
    expect(await ctl.ordersCreatedFor('R-2')).toBe(1);
  });

  it('reusing a key with a different payload is a typed conflict, not retried', async () => {
    const { client } = harness();
    await client.createOrder({ body: serializeCreateOrder(request('R-3')), idempotencyKey: 'k-3' });
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-3', { amount: '260.00' })), idempotencyKey: 'k-3' }));
    expect(e).toBeInstanceOf(IdempotencyConflictError);
    expect(e.kind).toBe('conflict');
    expect(e.status).toBe(409);
    expect(e.retryable).toBe(false);
    expect(JSON.parse(e.body!).error.code).toBe('idempotency_conflict');
    expect((await ctl.stats()).createRequests).toBe(2);
    expect(await ctl.ordersCreatedFor('R-3')).toBe(1);
  });

  it.each([
    ['two 503s', [{ route: 'create', type: 'status', status: 503, count: 2 }], 3],
    ['a 500 then a 502', [{ route: 'create', type: 'status', status: 500 }, { route: 'create', type: 'status', status: 502 }], 3],
    ['a 429 without Retry-After', [{ route: 'create', type: 'status', status: 429 }], 2],
    [
      '503, 429 and 504 in a row',
      [
        { route: 'create', type: 'status', status: 503 },
        { route: 'create', type: 'status', status: 429, retryAfter: '0' },
        { route: 'create', type: 'status', status: 504 },
      ],
      4,
    ],
  ] as const)('retries %s with the same key and byte-identical body; exactly one order', async (_name, faults, attempts) => {
    await ctl.addFault(faults.map((f) => ({ ...f })));
    const { client, sleeps } = harness();
    const r = await client.createOrder({ body: serializeCreateOrder(request('R-4')), idempotencyKey: 'k-4' });
    expect(r.attempts).toBe(attempts);
    expect(sleeps).toHaveLength(attempts - 1);
    expect(await ctl.ordersCreatedFor('R-4')).toBe(1);
    const posts = await ctl.requests({ route: 'create' });
    expect(posts).toHaveLength(attempts);
    expect(new Set(posts.map((p) => p.idempotencyKey))).toEqual(new Set(['k-4']));
    expect(new Set(posts.map((p) => p.bodySha256)).size).toBe(1);
    const [order] = await ctl.orders({ reference: 'R-4' });
    expect(r.orderId).toBe(order!.id);
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    await ctl.addFault([
      { route: 'create', type: 'status', status: 429, retryAfter: '2' },
      { route: 'create', type: 'status', status: 503, retryAfter: new Date(Date.now() + 3_600_000).toUTCString() },
    ]);
    const { client, sleeps, clock } = harness({ retry: { baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 2 * 3_600_000 } });
    clock.now = Date.now();
    await client.createOrder({ body: serializeCreateOrder(request('R-5')), idempotencyKey: 'k-5' });
    expect(sleeps[0]).toBe(2_000);
    expect(sleeps[1]).toBeGreaterThan(3_500_000); // about an hour; never shortened to the backoff
    expect(await ctl.ordersCreatedFor('R-5')).toBe(1);
  });

  it('gives up with a TransientError after maxAttempts; the order can be created later with the same key', async () => {
    await ctl.addFault({ route: 'create', type: 'status', status: 503, count: 3 });
    const { client } = harness({ retry: { maxAttempts: 3, baseDelayMs: 5 } });
    const body = serializeCreateOrder(request('R-6'));
    const e = await rejection(client.createOrder({ body, idempotencyKey: 'k-6' }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e).toMatchObject({ kind: 'transient', status: 503, retryable: true, attempts: 3 });
    expect(e.message).toMatch(/after 3 attempts/);
    expect(await ctl.ordersCreatedFor('R-6')).toBe(0);
    await client.createOrder({ body, idempotencyKey: 'k-6' });
    expect(await ctl.ordersCreatedFor('R-6')).toBe(1);
  });

  it('stops at the overall deadline', async () => {
    await ctl.addFault({ route: 'create', type: 'status', status: 503, count: 50 });
    const { client, sleeps } = harness({ retry: { maxAttempts: 50, baseDelayMs: 1_000, maxDelayMs: 1_000, deadlineMs: 3_000 } });
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-7')), idempotencyKey: 'k-7' }));
    expect(e).toBeInstanceOf(TransientError);
    expect(e.message).toMatch(/deadline/);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(3_000);
  });

  // The outcome of these is unknown: the courier may hold the order, or still be booking it, and need
  // not dedupe a key in flight. The client never resends them; the caller looks the order up by reference.
  it.each([
    ['a dropped connection after the order was created', { route: 'create', type: 'drop_after_commit' }, 1],
    ['a dropped connection before anything happened', { route: 'create', type: 'drop' }, 0],
  ] as const)('does not resend after %s: OutcomeUnknownError, one POST, the reference search tells', async (_name, fault, orders) => {
    await ctl.addFault({ ...fault });
    const { client, sleeps } = harness();
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-4d')), idempotencyKey: 'k-4d' }));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e).toMatchObject({ kind: 'transient', retryable: true, outcomeUnknown: true });
    expect(e.message).toMatch(/may have booked it/);
    expect(sleeps).toHaveLength(0);
    expect(await ctl.requests({ route: 'create' })).toHaveLength(1);
    expect((await client.findOrdersByReference('R-4d')).length).toBe(orders);
  });

  it('does not resend a create that timed out while the courier was still booking it', async () => {
    await ctl.updateSettings({ createHoldMs: 1_500, dedupeInFlight: false });
    const { client } = harness({ requestTimeoutMs: 300 });
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-8')), idempotencyKey: 'k-8' }));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e.message).toMatch(/timed out/);
    await new Promise((done) => setTimeout(done, 1_600));
    expect(await ctl.ordersCreatedFor('R-8')).toBe(1);
    expect(await ctl.requests({ route: 'create' })).toHaveLength(1);
  });

  it('a refused connection reached nobody: retried, and a plain TransientError in the end', async () => {
    const { client, sleeps } = harness({ baseUrl: 'http://127.0.0.1:1' });
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-8r')), idempotencyKey: 'k-8r' }));
    expect(e).not.toBeInstanceOf(OutcomeUnknownError);
    expect(e).toBeInstanceOf(TransientError);
    expect(sleeps.length).toBe(4);
  });

  it('returns a 4xx validation error with the field named, and does not retry it', async () => {
    const { client, sleeps } = harness();
    // 1500 kg passes our schema but the courier refuses it
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-9', { package: { size: 'SMALL', weightKg: '1500' } })), idempotencyKey: 'k-9' }));
    expect(e).toBeInstanceOf(RejectedError);
    expect(e).toMatchObject({ kind: 'rejected', status: 400, code: 'validation_error', field: 'package.weightKg', retryable: false });
    expect(e.message).toMatch(/^The courier rejected the delivery order \(HTTP 400 validation_error\): package\.weightKg must be/);
    expect(e.message).not.toMatch(/\n/);
    expect(JSON.parse(e.body!).error.field).toBe('package.weightKg');
    expect(sleeps).toHaveLength(0);
    expect((await ctl.stats()).createRequests).toBe(1);
  });

  it('an unknown pickup store is a rejection naming pickup.storeId', async () => {
    const { client } = harness();
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-10', { pickup: { storeId: 'store_elsewhere' } })), idempotencyKey: 'k-10' }));
    expect(e).toMatchObject({ kind: 'rejected', status: 422, field: 'pickup.storeId', code: 'unknown_pickup_store' });
    expect((await ctl.stats()).createRequests).toBe(1);
  });

  it('refuses to send without an Idempotency-Key or with a body missing coordinates', async () => {
    const { client } = harness();
    const body = serializeCreateOrder(request('R-11'));
    for (const key of ['', '   ', undefined as unknown as string]) {
      const e = await rejection(client.createOrder({ body, idempotencyKey: key }));
      expect(e).toBeInstanceOf(CourierConfigError);
      expect(e.message).toMatch(/Idempotency-Key/);
    }
    const noCoords = body.replace(',"latitude":-26.1715', '');
    const e = await rejection(client.createOrder({ body: noCoords, idempotencyKey: 'k-11' }));
    expect(e).toBeInstanceOf(CourierConfigError);
    expect((e as CourierConfigError).field).toBe('dropoff.latitude');
    expect((await ctl.stats()).tokenRequests + (await ctl.stats()).createRequests).toBe(0);
  });

  it('a missing scope is a ScopeError naming orders:create', async () => {
    const { client } = harness({ clientId: 'no-create-scope', clientSecret: 'cs_test_other_0000000000' });
    const e = await rejection(client.createOrder({ body: serializeCreateOrder(request('R-12')), idempotencyKey: 'k-12' }));
    expect(e).toBeInstanceOf(ScopeError);
    expect(e).toMatchObject({ kind: 'scope', status: 403, scope: 'orders:create', retryable: false });
    expect(e.message).toMatch(/orders:create/);
    expect((await ctl.stats()).createRequests).toBe(1);
  });

  it('a 2xx without the spec fields is a BadResponseError that points at the reference', async () => {
    await ctl.addFault({ route: 'create', type: 'status', status: 201, body: '{"ok":true}' });
    const e = await rejection(harness().client.createOrder({ body: serializeCreateOrder(request('R-13')), idempotencyKey: 'k-13' }));
    expect(e).toMatchObject({ kind: 'bad_response', status: 201 });
    expect(e.message).toMatch(/look it up by reference R-13/);
  });
});

describe('other calls', () => {
  it('reads an order by id with its delivery status and delivery id', async () => {
    const { client } = harness();
    const created = await client.createOrder({ body: serializeCreateOrder(request('R-20')), idempotencyKey: 'k-20' });
    await ctl.advance(created.orderId, { to: 'driver_assigned' });
    const view = await client.getOrder(created.orderId);
    const snap = await ctl.order(created.orderId);
    expect(view).toMatchObject({
      id: created.orderId, reference: 'R-20', status: 'VALIDATED', deliveryStatus: 'driver_assigned',
      deliveryId: snap.deliveryId, dispatchId: created.dispatchId, deliveryPrice: '75.00', currency: 'ZAR',
    });
    expect(view.deliveryId).toMatch(/^delivery_/);
  });

  it('an unknown order id is a 404 rejection', async () => {
    const e = await rejection(harness().client.getOrder('ord_missing'));
    expect(e).toMatchObject({ kind: 'rejected', status: 404 });
  });

  it('finds orders by reference (list), and none is an empty list', async () => {
    const { client } = harness();
    const created = await client.createOrder({ body: serializeCreateOrder(request('R 21/ü')), idempotencyKey: 'k-21' });
    expect((await client.findOrdersByReference('R 21/ü')).map((o) => o.id)).toEqual([created.orderId]);
    expect(await client.findOrdersByReference('R-none')).toEqual([]);
  });

  it('quotes with the create-order body and creates nothing', async () => {
    const { client } = harness();
    const q = await client.quote(serializeCreateOrder(request('R-22', { package: { size: 'MEDIUM', weightKg: '3.5' } })));
    expect(q).toMatchObject({ price: '99.00', currency: 'ZAR' }); // 75.00 + MEDIUM 15.00 + 2 started kg over 2 kg at 4.50
    expect((await ctl.stats()).ordersCreated).toBe(0);
  });

  it('the test webhook needs webhooks:manage', async () => {
    await ctl.putApp(CLIENT_ID, { scopes: ['orders:create'] });
    const e = await rejection(harness().client.sendTestWebhook());
    expect(e).toBeInstanceOf(ScopeError);
    expect((e as ScopeError).scope).toBe('webhooks:manage');
  });

  it('the test webhook without a configured endpoint is a rejection the merchant can read', async () => {
    const e = await rejection(harness().client.sendTestWebhook());
    expect(e).toMatchObject({ kind: 'rejected', status: 422, code: 'webhook_not_configured' });
  });

  it('refuses an insecure or malformed base URL', () => {
    expect(() => harness({ baseUrl: 'http://courier.example.com' })).toThrow(CourierConfigError);
    expect(() => harness({ baseUrl: 'https://id:pw@courier.example.com' })).toThrow(/user name or password/);
  });

  it('a connection refused is transient', async () => {
    const dead = await startSandboxCourier();
    const url = dead.url;
    await dead.close();
    const e = await rejection(harness({ baseUrl: url, retry: { maxAttempts: 2, baseDelayMs: 1 } }).client.getOrder('ord_1'));
    expect(e).toBeInstanceOf(TransientError);
    expect(e.message).toMatch(/refused/);
  });
});

describe('secrets', () => {
  it('never appear in log lines or error messages, even when the service echoes them', async () => {
    const { client, logs } = harness();
    const errors: DeliveryApiError[] = [];
    const attempt = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        errors.push(e as DeliveryApiError);
      }
    };
    await attempt(client.createOrder({ body: serializeCreateOrder(request('S-1')), idempotencyKey: 's-1' }));
    await ctl.revokeTokens();
    await ctl.addFault({ route: 'create', type: 'status', status: 503 });
    await attempt(client.createOrder({ body: serializeCreateOrder(request('S-2')), idempotencyKey: 's-2' }));
    await attempt(client.createOrder({ body: serializeCreateOrder(request('S-2', { amount: '1.00' })), idempotencyKey: 's-2' }));
    await attempt(client.createOrder({ body: serializeCreateOrder(request('S-3', { pickup: { storeId: 'nope' } })), idempotencyKey: 's-3' }));
    // a token endpoint that quotes the secret back in its error
    await ctl.addFault({ route: 'token', type: 'status', status: 401, body: JSON.stringify({ error: 'invalid_client', error_description: `client_secret ${CLIENT_SECRET} is wrong` }) });
    await attempt(harness({ tokenCacheKey: 'other' }).client.fetchToken());
    await attempt(harness({ clientSecret: 'cs_test_wrong_secret_value' }).client.fetchToken());
    await attempt(harness({ clientId: 'no-create-scope', clientSecret: 'cs_test_other_0000000000' }).client.createOrder({ body: serializeCreateOrder(request('S-4')), idempotencyKey: 's-4' }));

    expect(errors.map((e) => e.kind).sort()).toEqual(['conflict', 'credentials', 'credentials', 'rejected', 'scope']);
    expect(logs.length).toBeGreaterThan(5);
    const texts = [...logs, ...errors.flatMap((e) => [e.message, e.body ?? '', JSON.stringify(e), String(e.stack)])];
    for (const t of texts) {
      expect(t).not.toContain(CLIENT_SECRET);
      expect(t).not.toContain('cs_test_wrong_secret_value');
      expect(t).not.toContain('cs_test_other_0000000000');
      expect(t).not.toMatch(/sbx_at_[0-9a-f]{8}/);
    }
    expect(errors.find((e) => e.kind === 'credentials' && e.body)?.body).toContain('[redacted]');
  });
});
