// Sandbox webhooks, received by a tiny 127.0.0.1 receiver and checked with our verifier.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxCourier, type RunningSandbox } from '../../dev/sandbox/courier.ts';
import { SandboxControl } from '../../dev/sandbox/control.ts';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../dev/sandbox/receiver.ts';
import { DeliveryClient, TokenCache, serializeCreateOrder, verifyDeliveryWebhook, type CreateOrderResult } from '../../web/delivery/index.ts';

const CLIENT_ID = 'sdd-webhook-client';
const CLIENT_SECRET = 'cs_test_webhooks_0123456789';
const WEBHOOK_SECRET = 'whsec_test_Nf3kP0qS8vXb2LdR';
const STORE = 'store_sandbox_001';

let sb: RunningSandbox;
let ctl: SandboxControl;
let rx: WebhookReceiver | undefined;
let client: DeliveryClient;

beforeAll(async () => {
  sb = await startSandboxCourier({
    apps: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: ['orders:create', 'orders:read', 'quotes:create', 'webhooks:manage'], storeIds: [STORE], webhook: null }],
    webhookRetryDelaysMs: [10, 20, 40],
    webhookTimeoutMs: 2_000,
  });
  ctl = new SandboxControl(sb.url);
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(async () => {
  await ctl.reset();
  client = new DeliveryClient({ baseUrl: sb.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenCache: new TokenCache(), retry: { baseDelayMs: 5 } });
});
afterEach(async () => {
  await rx?.close();
  rx = undefined;
});

async function receiver(respond?: (i: number) => number): Promise<WebhookReceiver> {
  rx = await startWebhookReceiver(respond ? { respond } : {});
  await ctl.setWebhook(CLIENT_ID, { url: rx.url, secret: WEBHOOK_SECRET });
  return rx;
}

async function createOrder(reference: string): Promise<CreateOrderResult> {
  const body = serializeCreateOrder({
    reference, channel: 'web', serviceType: 'SAME_DAY', pickup: { storeId: STORE },
    dropoff: { name: 'Sipho Dlamini', phone: '+27831234567', addressLine1: '3 Oxford Rd', city: 'Johannesburg', country: 'ZA', latitude: -26.14, longitude: 28.04 },
    package: { size: 'SMALL', weightKg: '0.8' }, amount: '120.00', currency: 'ZAR',
  });
  return client.createOrder({ body, idempotencyKey: `key-${reference}` });
}

/** The sandbox records a delivery after the receiver answered: poll until it has. */
async function logOf(n: number) {
  for (let i = 0; i < 400; i++) {
    const log = (await ctl.webhookLog()).filter((e) => e.result !== 'held');
    if (log.length >= n) return log;
    await new Promise((d) => setTimeout(d, 10));
  }
  throw new Error(`webhook log never reached ${n} entries`);
}

const verify = (w: ReceivedWebhook, secrets = [WEBHOOK_SECRET]) =>
  verifyDeliveryWebhook({ headers: w.headers as Record<string, string | string[] | undefined>, rawBody: w.rawBody, secrets, nowMs: Date.now() });

const payload = (w: ReceivedWebhook) => JSON.parse(w.rawBody.toString('utf8')) as { id: string; type: string; created_at: string; data: { delivery_id: string; status: string } };

describe('status webhooks', () => {
  it('every step is a signed delivery.status.updated event our verifier accepts', async () => {
    const r = await receiver();
    const order = await createOrder('W-1');
    const { emitted } = await ctl.advance(order.orderId, { to: 'delivered' });
    expect(emitted).toEqual(['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered']);
    const got = await r.waitFor(6);
    const view = await client.getOrder(order.orderId);
    for (const w of got) {
      const v = verify(w);
      expect(v.ok, JSON.stringify(v)).toBe(true);
      const p = payload(w);
      expect(p.id).toMatch(/^evt_/);
      expect(w.headers['x-service-event-id']).toBe(p.id);
      expect(w.headers['x-service-event']).toBe('delivery.status.updated');
      expect(w.headers['x-service-signature-version']).toBe('v1');
      expect(w.headers['x-service-signature']).toBe(`t=${w.headers['x-service-timestamp']},v1=${(w.headers['x-service-signature'] as string).split('v1=')[1]}`);
      expect(w.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(p.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Object.keys(p.data).sort()).toEqual(['delivery_id', 'status']); // spec-faithful: nothing extra by default
      expect(p.data.delivery_id).toBe(view.deliveryId);
    }
    expect(got.map((w) => payload(w).data.status)).toEqual(emitted);
    expect(view.deliveryStatus).toBe('delivered');
    expect(view.deliveryId).toMatch(/^delivery_/);
    expect(view.deliveryId).not.toBe(order.orderId);
  });

  it.each([
    ['order', (o: CreateOrderResult) => o.orderId],
    ['dispatch', (o: CreateOrderResult) => o.dispatchId],
  ] as const)('deliveryIdMode %s makes data.delivery_id equal that id', async (mode, expected) => {
    await ctl.updateSettings({ deliveryIdMode: mode });
    const r = await receiver();
    const order = await createOrder(`W-mode-${mode}`);
    await ctl.advance(order.orderId);
    const [w] = await r.waitFor(1);
    expect(payload(w!).data.delivery_id).toBe(expected(order));
    expect((await client.getOrder(order.orderId)).deliveryId).toBe(expected(order));
  });

  it('the bad-signature switch produces webhooks our verifier rejects', async () => {
    await ctl.updateSettings({ badSignatures: true });
    const r = await receiver();
    const order = await createOrder('W-2');
    await ctl.advance(order.orderId);
    const [w] = await r.waitFor(1);
    expect(verify(w!)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect((await logOf(1))[0]).toMatchObject({ badSignature: true });
  });

  it('a stale sandbox clock produces webhooks outside the replay window', async () => {
    const r = await receiver();
    const order = await createOrder('W-3');
    await ctl.advanceClock(-10 * 60_000);
    await ctl.advance(order.orderId);
    const [w] = await r.waitFor(1);
    expect(verify(w!)).toMatchObject({ ok: false, reason: 'timestamp_outside_window' });
  });

  it('retries a delivery the receiver answered with 500, re-signed, same event id and body', async () => {
    const r = await receiver((i) => (i < 2 ? 500 : 200));
    const order = await createOrder('W-4');
    await ctl.advance(order.orderId);
    const got = await r.waitFor(3);
    expect(got.map((w) => w.answered)).toEqual([500, 500, 200]);
    expect(new Set(got.map((w) => w.headers['x-service-event-id'])).size).toBe(1);
    expect(new Set(got.map((w) => w.rawBody.toString('utf8'))).size).toBe(1);
    for (const w of got) expect(verify(w).ok).toBe(true);
    const log = await logOf(3);
    expect(log.map((e) => [e.attempt, e.result, e.httpStatus])).toEqual([[1, 'failed', 500], [2, 'failed', 500], [3, 'delivered', 200]]);
  });

  it('sends one delivery\'s events in order: the next waits for the previous one\'s retries', async () => {
    const r = await receiver((i) => (i === 0 ? 500 : 200));
    const order = await createOrder('W-4b');
    await ctl.advance(order.orderId, { to: 'picked_up' });
    const got = await r.waitFor(4);
    expect(got.map((w) => [payload(w).data.status, w.answered])).toEqual([['accepted', 500], ['accepted', 200], ['driver_assigned', 200], ['picked_up', 200]]);
  });

  it('gives up after the configured retries', async () => {
    const r = await receiver(() => 503);
    const order = await createOrder('W-5');
    await ctl.advance(order.orderId);
    await r.waitFor(4); // first try + 3 retries
    const log = await logOf(4);
    expect(log.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    expect(log.every((e) => e.result === 'failed')).toBe(true);
  });

  it('retries after a network error (nobody listening)', async () => {
    const order = await createOrder('W-6');
    const dead = await startWebhookReceiver();
    const deadUrl = dead.url;
    await dead.close();
    await ctl.setWebhook(CLIENT_ID, { url: deadUrl, secret: WEBHOOK_SECRET });
    await ctl.advance(order.orderId);
    const log = await logOf(4);
    expect(log.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    expect(log[0]!.error).toBeTruthy();
  });

  it('the duplicate switch sends each event twice with the same id and body', async () => {
    await ctl.updateSettings({ duplicateSends: true });
    const r = await receiver();
    const order = await createOrder('W-7');
    await ctl.advance(order.orderId);
    const got = await r.waitFor(2);
    expect(got[0]!.headers['x-service-event-id']).toBe(got[1]!.headers['x-service-event-id']);
    expect(got[0]!.rawBody.equals(got[1]!.rawBody)).toBe(true);
    for (const w of got) expect(verify(w).ok).toBe(true);
  });

  it('the out-of-order switch delivers a batch newest first', async () => {
    await ctl.updateSettings({ outOfOrder: true, outOfOrderBatchSize: 3 });
    const r = await receiver();
    const order = await createOrder('W-8');
    await ctl.advance(order.orderId, { to: 'picked_up' });
    const got = await r.waitFor(3);
    expect(got.map((w) => payload(w).data.status)).toEqual(['picked_up', 'driver_assigned', 'accepted']);
    await ctl.advance(order.orderId);
    expect((await ctl.state()).heldWebhooks).toBe(1);
    expect(await ctl.flushWebhooks()).toEqual({ sent: 1 });
    await r.waitFor(4);
  });

  it('with webhooks switched off nothing is sent and the log says so', async () => {
    await ctl.updateSettings({ webhooksEnabled: false });
    const r = await receiver();
    const order = await createOrder('W-9');
    await ctl.advance(order.orderId, { steps: 2 });
    expect((await ctl.webhookLog()).map((e) => e.result)).toEqual(['suppressed', 'suppressed']);
    expect(r.received).toHaveLength(0);
    expect((await client.getOrder(order.orderId)).deliveryStatus).toBe('driver_assigned');
  });

  it('without a configured endpoint, status changes are logged as not sent', async () => {
    const order = await createOrder('W-13');
    await ctl.advance(order.orderId);
    expect((await ctl.webhookLog()).map((e) => [e.result, e.error])).toEqual([['suppressed', 'no webhook endpoint configured']]);
  });

  it('failure and cancellation paths', async () => {
    const r = await receiver();
    const a = await createOrder('W-10');
    const b = await createOrder('W-11');
    await ctl.advance(a.orderId, { outcome: 'returned', steps: 20 });
    await ctl.advance(b.orderId, { to: 'cancelled' });
    const got = await r.waitFor(11);
    const statuses = (order: CreateOrderResult, deliveryId: string) => got.filter((w) => payload(w).data.delivery_id === deliveryId).map((w) => payload(w).data.status);
    const da = (await client.getOrder(a.orderId)).deliveryId!;
    const db = (await client.getOrder(b.orderId)).deliveryId!;
    expect(statuses(a, da)).toEqual(['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivery_attempted', 'failed', 'returned']);
    expect(statuses(b, db)).toEqual(['accepted', 'driver_assigned', 'cancelled']);
  });

  it('advances on a schedule when a step interval is set', async () => {
    const r = await receiver();
    const order = await createOrder('W-12');
    await ctl.updateSettings({ stepIntervalMs: 10 });
    await r.waitFor(6);
    await ctl.updateSettings({ stepIntervalMs: 0 });
    expect((await ctl.order(order.orderId)).deliveryStatus).toBe('delivered');
    expect(r.received.map((w) => payload(w).data.status)).toEqual(['accepted', 'driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered']);
  });
});

describe('POST /v1/webhooks/test', () => {
  it('sends one signed event to the configured endpoint and reports the result', async () => {
    const r = await receiver();
    const res = await client.sendTestWebhook();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: true, response_status: 200, url: r.url });
    expect(r.received).toHaveLength(1);
    const v = verify(r.received[0]!);
    expect(v.ok).toBe(true);
    expect((res.body as { event_id: string }).event_id).toBe(r.received[0]!.headers['x-service-event-id']);
  });

  it('reports a receiver that refuses it', async () => {
    await receiver(() => 401);
    const res = await client.sendTestWebhook();
    expect(res.body).toMatchObject({ delivered: false, response_status: 401 });
    expect((await logOf(1)).filter((e) => e.test)).toHaveLength(1); // not retried
  });
});
