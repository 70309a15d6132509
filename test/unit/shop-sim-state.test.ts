// The shop simulator's state alone (dev/shop-sim/state.ts, shopify-api.ts): no server, no
// sender; sample orders from dev/shop-sim/orders.
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES_DIR, fixturesIn } from '../../dev/shop-sim/fixtures.ts';
import { accessToken, openApp } from '../../dev/shop-sim/shopify-api.ts';
import { SimState } from '../../dev/shop-sim/state.ts';
import { HttpError } from '../../dev/shop-sim/errors.ts';

const API_KEY = 'state-key';
const API_SECRET = 'state-secret';

function setup() {
  return new SimState({ apiKey: API_KEY, apiSecret: API_SECRET, settings: { appUrl: 'http://app.test', webhookRetryDelaysMs: [10], webhookTimeoutMs: 100 }, fixtures: fixturesIn(DEFAULT_FIXTURES_DIR) });
}

const failure = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof HttpError ? `${e.status} ${e.message}` : String(e);
  }
  return 'no error';
};

describe('SimState', () => {
  it('creates shops on first use by name or domain, and refuses what is not a shop domain', () => {
    const state = setup();
    expect(state.getShop('demo')).toBe(state.getShop('https://DEMO.myshopify.com/'));
    expect(state.shopView(state.getShop('demo'))).toMatchObject({ shop: 'demo.myshopify.com', installed: false, orders: 0 });
    expect(failure(() => state.getShop('not a shop'))).toMatch(/^400 "not a shop" is not a shop domain/);
    expect(failure(() => state.getShop('other', false))).toMatch(/^404 no shop other.myshopify.com/);
  });

  it('places a fixture once, again only with fresh ids, and records a webhook without sending it', () => {
    const state = setup();
    const s = state.getShop('demo');
    const first = state.placeOrder(s, { fixture: 'sandton-same-day' });
    expect(failure(() => state.placeOrder(s, { fixture: 'sandton-same-day' }))).toMatch(/^409 order \d+ .* already exists/);
    const copy = state.placeOrder(s, { fixture: 'sandton-same-day', ids: 'fresh' });
    expect(copy.id).not.toBe(first.id);
    expect(failure(() => state.placeOrder(s, { fixture: '../secrets' }))).toMatch(/^400 fixture must be a file name/);
    const d = state.recordDelivery(s.domain, 'orders/paid', first.payload, { orderId: first.id });
    expect(d).toMatchObject({ seq: 1, state: 'pending', attempts: [], url: 'http://app.test/api/webhooks' });
    expect(state.orderView(s, first).webhooks).toEqual([{ seq: 1, topic: 'orders/paid', webhookId: d.webhookId, state: 'pending' }]);
    const again = state.recordDelivery(s.domain, 'orders/paid', null, { redeliver: d });
    expect(again).toMatchObject({ seq: 2, webhookId: d.webhookId, body: d.body, redeliveryOf: 1 });
  });

  it('cancels as Shopify does: not twice, not with a fulfillment unless forced, closing open work', () => {
    const state = setup();
    const s = state.getShop('demo');
    const o = state.placeOrder(s, { fixture: 'sandton-same-day' });
    expect(failure(() => state.cancelOrder(s, o.id, { reason: 'bored' }))).toMatch(/^400 reason must be one of/);
    state.cancelOrder(s, o.id, {});
    expect(o.payload.cancel_reason).toBe('customer');
    expect(o.fulfillmentOrders.every((f) => f.status === 'CLOSED')).toBe(true);
    expect(failure(() => state.cancelOrder(s, o.id, {}))).toMatch(/^409 order .* was already cancelled/);
  });

  it('token exchange for an installed shop only; uninstall revokes; reset forgets everything', () => {
    const state = setup();
    const s = state.getShop('demo');
    const exchange = () => accessToken(state, s, 'application/json', JSON.stringify({
      client_id: API_KEY, client_secret: API_SECRET, grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: openApp(state, s, '/', '1').sessionToken, subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token',
    }), new URLSearchParams());
    expect(exchange()).toMatchObject({ status: 400, body: { error: 'invalid_subject_token' } });
    state.managedInstall(s, 'read_orders');
    const ok = exchange();
    expect(ok).toMatchObject({ status: 200, body: { scope: 'read_orders' } });
    expect(s.accessToken).toBe((ok.body as { access_token: string }).access_token);
    state.revokeTokens(s);
    expect(state.metaOf(s).installed).toBe(false);
    state.patchSettings({ webhookTimeoutMs: 7 });
    state.reset();
    expect(state.shops.size).toBe(0);
    expect(state.settings.webhookTimeoutMs).toBe(100);
  });
});
