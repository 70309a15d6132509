// More tables over the pure core, written against mutation-testing survivors
// (npm run test:mutation): courier order reads of unknown shape, and the
// mapping's fallbacks and bounds.
import { describe, expect, it } from 'vitest';
import { mapCreateOrderResponse, toOrderList, toOrderView } from '../../web/delivery/extract.ts';
import { channelFor, mapOrderToRequest, orderGrams, sizeFor, type MappingContext } from '../../web/dispatch/mapping.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { SettingsSchema } from '../../web/settings/schema.ts';
import { paidOrder } from '../support/orders.ts';

describe('toOrderView reads the plausible field names', () => {
  it.each([
    ['the spec-like envelope', { order: { id: 'o1', reference: 'R', status: 'VALIDATED', deliveryPrice: '75.50', currency: 'ZAR' }, dispatch: { id: 'j1' }, delivery: { id: 'd1', status: 'picked_up' } },
      { id: 'o1', reference: 'R', status: 'VALIDATED', deliveryPrice: '75.50', currency: 'ZAR', dispatchId: 'j1', deliveryId: 'd1', deliveryStatus: 'picked_up' }],
    ['camelCase alternatives on the order', { orderId: 'o2', merchantReference: 'R2', orderStatus: 'ACCEPTED', delivery_price: '12.00', currencyCode: 'USD', jobId: 'j2', deliveryId: 'd2', deliveryStatus: 'in_transit' },
      { id: 'o2', reference: 'R2', status: 'ACCEPTED', deliveryPrice: '12.00', currency: 'USD', dispatchId: 'j2', deliveryId: 'd2', deliveryStatus: 'in_transit' }],
    ['snake_case alternatives', { order_id: 'o3', order_status: 'x', price: '1', currency_code: 'EUR', job_id: 'j3', delivery_id: 'd3', delivery_status: 'delivered' },
      { id: 'o3', status: 'x', deliveryPrice: '1', currency: 'EUR', dispatchId: 'j3', deliveryId: 'd3', deliveryStatus: 'delivered' }],
    ['ids beside the order object', { orderId: 'o4', order: { reference: 'R4' }, reference: 'ignored', dispatchId: 'j4', delivery_id: 'd4', tracking: { status: 'at_pickup' } },
      { id: 'o4', reference: 'R4', dispatchId: 'j4', deliveryId: 'd4', deliveryStatus: 'at_pickup' }],
    ['a reference only beside the order', { order: { id: 'o5' }, reference: 'R5', dispatch_id: 'j5', order_id: 'zz' },
      { id: 'o5', reference: 'R5', dispatchId: 'j5' }],
    ['a lower-case order status is a delivery status', { id: 'o6', status: 'driver_assigned' }, { id: 'o6', status: 'driver_assigned', deliveryStatus: 'driver_assigned' }],
    ['an upper-case or mixed status is not', { id: 'o7', status: 'driver_Assigned' }, { id: 'o7', status: 'driver_Assigned' }],
    ['a status with a digit is not', { id: 'o8', status: 'step2' }, { id: 'o8', status: 'step2' }],
    ['a delivery id inside the order', { order: { id: 'o9', delivery: { id: 'd9' }, dispatch: { id: 'j9' } } }, { id: 'o9', deliveryId: 'd9', dispatchId: 'j9' }],
    ['a delivery id inside the dispatch', { id: 'o10', dispatch: { deliveryId: 'd10' } }, { id: 'o10', deliveryId: 'd10' }],
    ['the first readable price wins', { id: 'o11', deliveryPrice: 'n/a', delivery_price: '9.50', price: '1' }, { id: 'o11', deliveryPrice: '9.50' }],
  ])('%s', (_n, node, expected) => {
    const v = toOrderView(node);
    const { raw, ...rest } = v!;
    // Strict: a field the read lacks is absent, not undefined.
    expect(rest).toStrictEqual(expected);
    expect(raw).toEqual(node);
  });
  it.each([['null', null], ['a list', [{ id: 'x' }]], ['text', 'o1'], ['no id', { reference: 'R' }]])('%s is no order', (_n, node) => {
    expect(toOrderView(node)).toBeNull();
  });
});

describe('toOrderList', () => {
  const ids = (x: unknown) => toOrderList(x)?.map((o) => o.id) ?? null;
  it.each([
    ['a bare list, skipping what is not an order', [{ id: 'a' }, 3, { id: 'b' }], ['a', 'b']],
    ['orders', { orders: [{ id: 'a' }] }, ['a']],
    ['data', { data: [{ id: 'a' }] }, ['a']],
    ['items', { items: [{ id: 'a' }] }, ['a']],
    ['results', { results: [{ id: 'a' }] }, ['a']],
    ['content', { content: [{ id: 'a' }] }, ['a']],
    ['data.orders', { data: { orders: [{ id: 'a' }, { id: 'b' }] } }, ['a', 'b']],
    ['an empty list', { orders: [] }, []],
    ['a single order', { order: { id: 'a' } }, ['a']],
    ['a single order under data', { data: { id: 'a' } }, ['a']],
    ['an object that is no order', { total: 0 }, null],
    ['text', 'x', null],
    ['null', null, null],
  ])('%s', (_n, root, expected) => expect(ids(root)).toEqual(expected));
});

describe('mapCreateOrderResponse', () => {
  const ok = JSON.stringify({ request_id: 'req_1', order: { id: 'o', reference: 'R', status: 'VALIDATED', deliveryPrice: 5, currency: 'ZAR' }, dispatch: { id: 'j' } });
  it('the request id falls back to the x-request-id, then request-id header, then empty', () => {
    const noId = JSON.stringify({ order: { id: 'o', reference: 'R', status: 'VALIDATED', deliveryPrice: 5, currency: 'ZAR' }, dispatch: { id: 'j' } });
    expect(mapCreateOrderResponse(ok, { requestReference: 'R', headers: { 'x-request-id': 'h1' } })).toMatchObject({ ok: true, value: { requestId: 'req_1' } });
    expect(mapCreateOrderResponse(noId, { requestReference: 'R', headers: { 'x-request-id': 'h1', 'request-id': 'h2' } })).toMatchObject({ ok: true, value: { requestId: 'h1' } });
    expect(mapCreateOrderResponse(noId, { requestReference: 'R', headers: { 'request-id': 'h2' } })).toMatchObject({ ok: true, value: { requestId: 'h2' } });
    expect(mapCreateOrderResponse(noId, { requestReference: 'R' })).toMatchObject({ ok: true, value: { requestId: '' } });
  });
  it('names the missing part of an unusable response', () => {
    expect(mapCreateOrderResponse(JSON.stringify({ order: { id: 'o' } }), { requestReference: 'R' })).toEqual({ ok: false, problem: expect.stringMatching(/^the response has no usable (order|dispatch)/) });
    expect(mapCreateOrderResponse('[]', { requestReference: 'R' })).toEqual({ ok: false, problem: expect.stringMatching(/^the response has no usable/) });
  });
});

describe('channelFor', () => {
  it.each([
    [null, 'web'], ['web', 'web'], ['WEB', 'web'], ['shopify_draft_order', 'web'], ['checkout', 'web'], ['pos', 'pos'],
    ['iphone', 'app'], ['android', 'app'], ['mobile_app', 'app'], ['shop_app', 'app'], ['shop', 'app'],
    ['facebook', 'social'], ['instagram', 'social'], ['tiktok', 'social'], ['pinterest', 'social'], ['snapchat', 'social'], ['youtube', 'social'], ['social', 'social'],
    ['amazon', 'marketplace'], ['ebay', 'marketplace'], ['google', 'marketplace'], ['walmart', 'marketplace'], ['takealot', 'marketplace'], ['580111', 'marketplace'],
    ['x580111', 'web'], ['580111x', 'web'], ['something_else', 'web'],
  ])('%s → %s', (source, channel) => expect(channelFor(source)).toBe(channel));
});

const settings = SettingsSchema.parse({});
describe('size, weight and address fallbacks', () => {
  it('a size rule includes its own maximum', () => {
    const [first, second] = settings.package.sizes;
    const g = (kg: string) => Math.round(Number(kg) * 1000);
    expect(sizeFor(g(first!.maxKg), settings)).toBe(first!.size);
    expect(sizeFor(g(first!.maxKg) + 1, settings)).toBe(second!.size);
    expect(sizeFor(10_000_000, settings)).toBe(settings.package.largestSize);
  });
  it('total_weight when positive, else the shippable lines', () => {
    const o = (changes: Record<string, unknown>) => parseOrderSnapshot(paidOrder(changes));
    expect(orderGrams(o({ total_weight: 1234.4 }))).toBe(1234);
    expect(orderGrams(o({ total_weight: 0 }))).toBe(2350 - 2350 + 900 * 2 + 550);
    expect(orderGrams(o({ total_weight: 0, line_items: [{ id: 1, title: 'a', quantity: 3, grams: 100, price: '1', requires_shipping: true }, { id: 2, title: 'b', quantity: 1, grams: 999, price: '1', requires_shipping: false }] }))).toBe(300);
  });

  const ctx: MappingContext = { shopDomain: 's.myshopify.com', environment: 'test', settings, pickupStoreId: 'store', locationStores: {}, locationId: null, overrides: {} };
  const map = (changes: Record<string, unknown>, over: Partial<MappingContext> = {}) => mapOrderToRequest(parseOrderSnapshot(paidOrder(changes)), { ...ctx, ...over });
  const dropoff = (r: ReturnType<typeof map>) => (r.ok ? r.request.dropoff : null);
  it.each([
    ['the address name', { name: 'A B', first_name: 'C', last_name: 'D', company: 'E' }, 'A B'],
    ['first and last name', { name: null, first_name: 'C', last_name: 'D', company: 'E' }, 'C D'],
    ['the last name alone', { name: null, first_name: null, last_name: 'D', company: 'E' }, 'D'],
    ['the company', { name: null, first_name: null, last_name: null, company: 'E' }, 'E'],
  ])('recipient: %s', (_n, address, name) => expect(dropoff(map({ shipping_address: address }))?.name).toBe(name));
  it('no recipient and no country are named problems', () => {
    expect(map({ shipping_address: { name: null, first_name: null, last_name: null, company: null, country_code: null } })).toEqual({
      ok: false, problems: [{ code: 'incomplete_address', message: 'Shipping address has no recipient name, country' }],
    });
  });
  // The customer record is not read (it needs read_customers, and its email/phone are deprecated).
  it('e-mail: the order, then the contact e-mail, never the customer', () => {
    const customer = { email: 'thandi.nkosi@example.co.za', phone: '+27825551234' };
    expect(dropoff(map({ email: 'a@x.co', contact_email: 'b@x.co' }))?.email).toBe('a@x.co');
    expect(dropoff(map({ email: null, contact_email: 'b@x.co', customer }))?.email).toBe('b@x.co');
    expect(dropoff(map({ email: null, contact_email: null, customer }))).not.toHaveProperty('email');
  });
  it('the phone: the shipping address, then the order, never the customer; lower-case country codes work', () => {
    const customer = { email: 'thandi.nkosi@example.co.za', phone: '+27825559999' };
    expect(dropoff(map({ shipping_address: { phone: null, country_code: 'za' }, phone: '082 555 1234', customer }))?.phone).toBe('+27825551234');
    expect(map({ shipping_address: { phone: null }, phone: null, customer })).toMatchObject({ ok: false, problems: [{ code: 'missing_phone' }] });
    expect(map({ shipping_address: { phone: '12' }, phone: null, customer: null })).toMatchObject({ ok: false, problems: [{ code: 'invalid_phone', message: "Phone '12' is not a valid ZA number" }] });
  });
  it('a currency must be three letters', () => {
    expect(map({ currency: 'RAND' })).toMatchObject({ ok: false, problems: [{ code: 'invalid_amount' }] });
    expect(map({ currency: 'xZAR' })).toMatchObject({ ok: false, problems: [{ code: 'invalid_amount' }] });
    expect(map({ currency: 'zar' }).ok).toBe(true);
  });
  it.each([
    ['the poles and the date line', 90, 180, true],
    ['just outside latitude', 90.0001, 10, false],
    ['just outside longitude', 10, -180.0001, false],
    ['0, 0', 0, 0, false],
    ['0 latitude alone is real', 0, 18.4, true],
    ['0 longitude alone is real', 51.5, 0, true],
  ])('coordinates: %s', (_n, latitude, longitude, ok) => {
    const r = map({ shipping_address: { latitude: null, longitude: null } }, { overrides: { latitude, longitude } });
    expect(r.ok).toBe(ok);
    if (!ok) expect(r).toMatchObject({ problems: [{ code: 'missing_coordinates' }] });
  });
});
