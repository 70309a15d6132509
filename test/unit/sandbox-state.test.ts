// The sandbox courier's state alone (dev/sandbox/state.ts): no server, no sender, a fixed clock.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_APP, DEFAULT_SANDBOX_SETTINGS } from '../../dev/sandbox/model.ts';
import { SandboxState } from '../../dev/sandbox/state.ts';
import type { OutgoingEvent } from '../../dev/sandbox/webhooks.ts';
import type { SandboxSettings } from '../../dev/sandbox/types.ts';

const SAMPLE = {
  reference: 'S-1', channel: 'web', serviceType: 'SAME_DAY', pickup: { storeId: 'store_sandbox_001' },
  dropoff: { name: 'A B', phone: '+27821234567', addressLine1: '1 Main Rd', city: 'Cape Town', country: 'ZA', latitude: -33.92, longitude: 18.42 },
  package: { size: 'SMALL', weightKg: 1.25 }, amount: 250, currency: 'ZAR',
};

function setup(settings: Partial<SandboxSettings> = {}) {
  let clock = 1_700_000_000_000;
  const events: OutgoingEvent[] = [];
  const state = new SandboxState({ settings: { ...DEFAULT_SANDBOX_SETTINGS, ...settings }, apps: [DEFAULT_SANDBOX_APP], now: () => clock, emit: (e) => events.push(e) });
  const app = state.apps.get(DEFAULT_SANDBOX_APP.clientId)!;
  const tokenOf = () => {
    const r = state.issueToken('application/json', JSON.stringify({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret }));
    return JSON.parse(r.body).access_token as string;
  };
  return { state, app, events, tokenOf, tick: (ms: number) => (clock += ms) };
}

describe('SandboxState', () => {
  it('replays a create with the same key and payload, refuses another payload, and does not remember failures', () => {
    const { state, app } = setup();
    const body = JSON.stringify(SAMPLE);
    const first = state.createOrder(app, 'k1', body, 'r1');
    expect(first.status).toBe(201);
    // Same JSON value, other key order: a replay with the first answer.
    const again = state.createOrder(app, 'k1', JSON.stringify(Object.fromEntries(Object.entries(SAMPLE).reverse())), 'r2');
    expect(again).toEqual({ ...first, headers: { 'idempotent-replayed': 'true' } });
    expect(state.createOrder(app, 'k1', JSON.stringify({ ...SAMPLE, reference: 'S-2' }), 'r3').status).toBe(409);
    const invalid = state.createOrder(app, 'k2', JSON.stringify({ ...SAMPLE, currency: undefined }), 'r4');
    expect(invalid.status).toBe(400);
    expect(state.createOrder(app, 'k2', body, 'r5').status).toBe(201);
    expect(state.stats).toMatchObject({ ordersCreated: 2, idempotentReplays: 1, idempotencyConflicts: 1, ordersByReference: { 'S-1': 2 } });
    expect(JSON.parse(state.createOrder(app, undefined, body, 'r6').body).error.code).toBe('missing_idempotency_key');
  });

  it('authenticates bearer tokens: missing, unknown, expired on the clock, missing scope', () => {
    const { state, app, tokenOf, tick } = setup();
    const code = (auth: string | undefined, route: 'create' | 'get' = 'create') => {
      const r = state.authenticate(auth, route, 'r');
      return 'app' in r ? 'ok' : `${r.reply.status} ${JSON.parse(r.reply.body).error.code}`;
    };
    expect(code(undefined)).toBe('401 unauthorized');
    expect(code('Bearer nope')).toBe('401 invalid_token');
    const token = tokenOf();
    expect(code(`Bearer ${token}`)).toBe('ok');
    app.scopes = ['orders:create'];
    expect(code(`Bearer ${token}`, 'get')).toBe('403 insufficient_scope');
    tick(DEFAULT_SANDBOX_SETTINGS.tokenTtlSec * 1000);
    expect(code(`Bearer ${token}`)).toBe('401 token_expired');
  });

  it('steps every order toward its outcome on tick, emitting one signed-to-be event per step', () => {
    const { state, app, events } = setup({ acceptedStep: false });
    state.createOrder(app, 'k1', JSON.stringify(SAMPLE), 'r1');
    const [order] = state.orders.values();
    for (let i = 0; i < 10; i++) state.tick();
    expect(order!.history.map((h) => h.status)).toEqual(['driver_assigned', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered']);
    expect(events.map((e) => e.status)).toEqual(order!.history.map((h) => h.status));
    expect(JSON.parse(events[0]!.body)).toMatchObject({ type: 'delivery.status.updated', data: { delivery_id: order!.deliveryId, status: 'driver_assigned' } });
    expect(state.advance(order!, { to: 'picked_up' })).toMatchObject({ status: 409 });
  });

  it('uses each fault the number of times it was added, then forgets it; reset restores the start', () => {
    const { state } = setup();
    state.addFaults([{ route: 'create', type: 'status', status: 503, count: 2 }]);
    expect(state.takeFault('get', ['status'])).toBeUndefined();
    expect(state.takeFault('create', ['status'])?.status).toBe(503);
    expect(state.takeFault('create', ['status'])?.status).toBe(503);
    expect(state.takeFault('create', ['status'])).toBeUndefined();
    state.patchSettings({ latencyMs: 50 });
    state.putApp('other', { clientSecret: 'x' });
    state.reset();
    expect(state.settings).toEqual(DEFAULT_SANDBOX_SETTINGS);
    expect([...state.apps.keys()]).toEqual([DEFAULT_SANDBOX_APP.clientId]);
  });
});
