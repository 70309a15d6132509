// The sandbox courier over raw HTTP: the spec's wire format and our documented choices,
// checked without our client in the way.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startSandboxCourier, type RunningSandbox } from '../../dev/sandbox/courier.ts';
import { SandboxControl, SandboxControlError } from '../../dev/sandbox/control.ts';

const CLIENT_ID = 'sandbox-client-id';
const CLIENT_SECRET = 'sandbox-client-secret';

let sb: RunningSandbox;
let ctl: SandboxControl;

beforeAll(async () => {
  sb = await startSandboxCourier(); // the `npm run sandbox` defaults
  ctl = new SandboxControl(sb.url);
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(async () => {
  await ctl.reset();
});

async function call(method: 'GET' | 'POST', path: string, opts: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await request(`${sb.url}${path}`, { method, headers: opts.headers ?? {}, body: opts.body });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

async function token(): Promise<string> {
  const r = await call('POST', '/oauth/token', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
  });
  return r.json.access_token;
}

const SAMPLE =
  '{"reference":"S-1","channel":"web","serviceType":"SAME_DAY","pickup":{"storeId":"store_sandbox_001"},' +
  '"dropoff":{"name":"A B","phone":"+27821234567","addressLine1":"1 Main Rd","city":"Cape Town","country":"ZA","latitude":-33.92,"longitude":18.42},' +
  '"package":{"size":"SMALL","weightKg":1.25},"amount":250.00,"currency":"ZAR"}';

async function create(body = SAMPLE, key: string | null = 'key-1', bearer?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${bearer ?? (await token())}` };
  if (key !== null) headers['idempotency-key'] = key;
  return call('POST', '/v1/orders', { headers, body });
}

describe('POST /oauth/token', () => {
  it('issues a bearer token with token_type, expires_in and scope', async () => {
    const r = await call('POST', '/oauth/token', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
    });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.json).toEqual({ access_token: expect.stringMatching(/^sbx_at_/), token_type: 'Bearer', expires_in: 3600, scope: 'orders:create orders:read quotes:create webhooks:manage' });
  });

  it('also accepts a form-encoded body', async () => {
    const r = await call('POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }).toString(),
    });
    expect(r.status).toBe(200);
  });

  it.each([
    ['a wrong secret', { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: 'guess-1234' }, 401, 'invalid_client'],
    ['another grant type', { grant_type: 'password', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, 400, 'unsupported_grant_type'],
    ['no secret', { grant_type: 'client_credentials', client_id: CLIENT_ID }, 400, 'invalid_request'],
  ])('refuses %s (OAuth error shape, nothing echoed)', async (_name, body, status, error) => {
    const r = await call('POST', '/oauth/token', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.status).toBe(status);
    expect(r.json.error).toBe(error);
    expect(r.text).not.toContain('guess-1234');
  });
});

describe('POST /v1/orders', () => {
  it('answers 201 with exactly the spec fields; deliveryPrice a JSON number with two decimals', async () => {
    const r = await create();
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      request_id: expect.stringMatching(/^req_[0-9a-f]+$/),
      order: { id: expect.stringMatching(/^ord_[0-9a-f]+$/), reference: 'S-1', status: 'VALIDATED', deliveryPrice: 75, currency: 'ZAR' },
      dispatch: { id: expect.stringMatching(/^job_[0-9a-f]+$/) },
    });
    expect(r.text).toContain('"deliveryPrice":75.00,');
  });

  it('replays the original bytes for the same key and payload, even re-formatted', async () => {
    const a = await create();
    const pretty = JSON.stringify(JSON.parse(SAMPLE), null, 2).replace('"amount": 250', '"amount": 250.00');
    const b = await create(pretty);
    expect(b.status).toBe(201);
    expect(b.text).toBe(a.text);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(await ctl.ordersCreatedFor('S-1')).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with a different payload', async () => {
    await create();
    const r = await create(SAMPLE.replace('250.00', '251.00'));
    expect(r.status).toBe(409);
    expect(r.json.error.code).toBe('idempotency_conflict');
    expect(await ctl.ordersCreatedFor('S-1')).toBe(1);
  });

  it('keys are per app: another app may use the same key', async () => {
    await ctl.putApp('second-app', { clientSecret: 'second-secret-123' });
    await create();
    const t = await call('POST', '/oauth/token', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'second-app', client_secret: 'second-secret-123' }),
    });
    const r = await create(SAMPLE, 'key-1', t.json.access_token);
    expect(r.status).toBe(201);
    expect(await ctl.ordersCreatedFor('S-1')).toBe(2);
  });

  it.each([
    ['no Idempotency-Key', SAMPLE, null, 400, 'missing_idempotency_key', undefined],
    ['missing latitude', SAMPLE.replace('"latitude":-33.92,', ''), 'k', 400, 'validation_error', 'dropoff.latitude'],
    ['missing longitude', SAMPLE.replace(',"longitude":18.42', ''), 'k', 400, 'validation_error', 'dropoff.longitude'],
    ['weight as a string', SAMPLE.replace('1.25', '"1.25"'), 'k', 400, 'validation_error', 'package.weightKg'],
    ['no reference', SAMPLE.replace('"reference":"S-1",', ''), 'k', 400, 'validation_error', 'reference'],
    ['local phone', SAMPLE.replace('+27821234567', '0821234567'), 'k', 400, 'validation_error', 'dropoff.phone'],
    ['unknown pickup store', SAMPLE.replace('store_sandbox_001', 'store_x'), 'k', 422, 'unknown_pickup_store', 'pickup.storeId'],
    ['not JSON', '{"reference":', 'k', 400, 'invalid_json', undefined],
  ])('%s: the right status and code, naming the field', async (_name, body, key, status, code, field) => {
    const r = await create(body, key);
    expect(r.status).toBe(status);
    expect(r.json.error.code).toBe(code);
    expect(r.json.error.field).toBe(field);
    expect(r.json.request_id).toMatch(/^req_/);
    if (field) expect(r.json.error.message).toContain(field);
    expect((await ctl.stats()).ordersCreated).toBe(0);
  });

  it('missing coordinates say why they are needed', async () => {
    const r = await create(SAMPLE.replace('"latitude":-33.92,', ''), 'k');
    expect(r.json.error.message).toBe('dropoff.latitude is required (coordinates are needed for pricing and routing)');
  });

  it('needs a valid bearer token', async () => {
    const r = await call('POST', '/v1/orders', { headers: { 'content-type': 'application/json', 'idempotency-key': 'k' }, body: SAMPLE });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer');
    const bad = await create(SAMPLE, 'k', 'sbx_at_forged');
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('invalid_token');
  });

  it('expires tokens by the sandbox clock', async () => {
    const t = await token();
    await ctl.advanceClock(3_601_000);
    const r = await create(SAMPLE, 'k', t);
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('token_expired');
  });

  it('a drop-after-commit fault loses the response but keeps the order', async () => {
    await ctl.addFault({ route: 'create', type: 'drop_after_commit' });
    await expect(create()).rejects.toThrow();
    expect(await ctl.ordersCreatedFor('S-1')).toBe(1);
    expect((await ctl.requests({ route: 'create' }))[0]!.status).toBe(0);
    const again = await create();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await ctl.ordersCreatedFor('S-1')).toBe(1);
  });

  it('a 429 fault carries Retry-After', async () => {
    await ctl.addFault({ route: 'create', type: 'status', status: 429, retryAfter: '7' });
    const r = await create();
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('7');
    expect(r.json.error.code).toBe('rate_limited');
    expect((await ctl.faults())).toHaveLength(0);
  });
});

describe('reads and quote', () => {
  it('GET /v1/orders/:id returns the order envelope with delivery id and status', async () => {
    const created = (await create()).json;
    const r = await call('GET', `/v1/orders/${created.order.id}`, { headers: { authorization: `Bearer ${await token()}` } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      request_id: expect.stringMatching(/^req_/),
      order: { id: created.order.id, reference: 'S-1', status: 'VALIDATED', deliveryPrice: 75, currency: 'ZAR' },
      dispatch: { id: created.dispatch.id },
      delivery: { id: expect.stringMatching(/^delivery_/), status: 'pending' },
    });
    expect(r.text).toContain('"deliveryPrice":75.00');
  });

  it('GET /v1/orders?reference= returns {orders: [...]}', async () => {
    const created = (await create()).json;
    const auth = { authorization: `Bearer ${await token()}` };
    const r = await call('GET', '/v1/orders?reference=S-1', { headers: auth });
    expect(r.json.orders.map((o: { order: { id: string } }) => o.order.id)).toEqual([created.order.id]);
    expect((await call('GET', '/v1/orders?reference=none', { headers: auth })).json.orders).toEqual([]);
    expect((await call('GET', '/v1/orders', { headers: auth })).status).toBe(400);
  });

  it('POST /v1/pricing/quote returns {quote: {price, currency}} and needs no Idempotency-Key', async () => {
    const r = await call('POST', '/v1/pricing/quote', { headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' }, body: SAMPLE });
    expect(r.status).toBe(200);
    expect(r.json.quote).toMatchObject({ price: 75, currency: 'ZAR', serviceType: 'SAME_DAY' });
    expect(r.text).toContain('"price":75.00');
  });

  it('answers 404 and 405 as JSON errors', async () => {
    expect((await call('GET', '/v2/orders')).json.error.code).toBe('not_found');
    expect((await call('GET', '/oauth/token')).status).toBe(405);
  });
});

describe('control API', () => {
  it('reset clears orders, stats and faults', async () => {
    await create();
    await ctl.addFault({ route: 'any', type: 'latency', latencyMs: 1, count: 5 });
    await ctl.reset();
    const s = await ctl.state();
    expect(s.orders).toBe(0);
    expect(s.stats.ordersCreated).toBe(0);
    expect(s.faults).toEqual([]);
  });

  it('masks secrets in app listings', async () => {
    const [app] = await ctl.apps();
    expect(app!.clientSecret).not.toBe(CLIENT_SECRET);
    expect(app!.clientSecret).toMatch(/^••••/);
  });

  it('rejects a bad setting with a 400', async () => {
    await expect(ctl.updateSettings({ deliveryIdMode: 'nonsense' as 'order' })).rejects.toBeInstanceOf(SandboxControlError);
  });

  it('refuses to advance to an unreachable status', async () => {
    const created = (await create()).json;
    await ctl.advance(created.order.id, { to: 'picked_up' });
    await expect(ctl.advance(created.order.id, { to: 'cancelled' })).rejects.toMatchObject({ status: 409 });
  });
});
