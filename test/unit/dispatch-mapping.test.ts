import { describe, expect, it } from 'vitest';
import { channelFor, dropoffPhone, idempotencyKey, mapOrderToRequest, type MappingContext } from '../../web/dispatch/mapping.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { SettingsSchema } from '../../web/settings/schema.ts';
import { loadOrderFixture, paidOrder } from '../support/orders.ts';

const ctx = (over: Partial<MappingContext> = {}): MappingContext => ({
  shopDomain: 'rooibos.myshopify.com',
  environment: 'test',
  settings: SettingsSchema.parse({}),
  pickupStoreId: 'store_default',
  locationStores: { '71000000001': 'store_rosebank' },
  locationId: null,
  overrides: {},
  ...over,
});

const map = (changes: Record<string, unknown> = {}, c: Partial<MappingContext> = {}) => mapOrderToRequest(parseOrderSnapshot(paidOrder(changes)), ctx(c));

describe('mapOrderToRequest', () => {
  it('maps the Sandton fixture field by field', () => {
    const order = loadOrderFixture('sandton-same-day');
    const r = mapOrderToRequest(parseOrderSnapshot(order), ctx());
    expect(r).toEqual({
      ok: true,
      request: {
        reference: '5912345678901234',
        channel: 'web',
        sellerType: 'merchant',
        fulfilmentType: 'on_demand',
        originSystem: 'shopify',
        serviceType: 'SAME_DAY',
        pickup: { storeId: 'store_default' },
        dropoff: {
          name: 'Thandi Nkosi',
          phone: '+27825551234',
          addressLine1: '12 Rivonia Road',
          addressLine2: 'Sandhurst',
          city: 'Sandton',
          country: 'ZA',
          latitude: -26.1076,
          longitude: 28.0567,
          email: 'thandi.nkosi@example.co.za',
        },
        package: { size: 'SMALL', weightKg: '2.35', category: 'standard' },
        amount: '1249.90',
        currency: 'ZAR',
        notes: 'Gate code 4411. Call on arrival.',
        metadata: { orderName: '#1001', shopDomain: 'rooibos.myshopify.com', orderGid: 'gid://shopify/Order/5912345678901234' },
      },
    });
  });

  it('keeps an order id beyond 2^53 exact (from the GID)', () => {
    const r = mapOrderToRequest(
      parseOrderSnapshot({ ...loadOrderFixture('sandton-same-day'), id: 9007199254740993, admin_graphql_api_id: 'gid://shopify/Order/9007199254740993' }),
      ctx(),
    );
    expect(r.ok && r.request.reference).toBe('9007199254740993');
  });

  it.each<[string, Record<string, unknown>, Partial<MappingContext>, (req: any) => unknown, unknown]>([
    ['the fulfilling location picks the store', {}, { locationId: '71000000001' }, (q) => q.pickup.storeId, 'store_rosebank'],
    ['an unmapped location falls back to the default store', {}, { locationId: '71000000009' }, (q) => q.pickup.storeId, 'store_default'],
    ['a local-format phone is made international', { shipping_address: { phone: '082 555 1234' } }, {}, (q) => q.dropoff.phone, '+27825551234'],
    ['no address phone: the order phone', { shipping_address: { phone: null }, phone: '0215550000' }, {}, (q) => q.dropoff.phone, '+27215550000'],
    ['a corrected phone wins', { shipping_address: { phone: '0825' } }, { overrides: { phone: '0831234567' } }, (q) => q.dropoff.phone, '+27831234567'],
    ['corrected coordinates win', { shipping_address: { latitude: null, longitude: null } }, { overrides: { latitude: -33.9249, longitude: 18.4241 } }, (q) => [q.dropoff.latitude, q.dropoff.longitude], [-33.9249, 18.4241]],
    ['the weight sums shippable lines when total_weight is absent', { total_weight: null }, {}, (q) => q.package.weightKg, '2.35'],
    ['no weight at all: the default weight', { total_weight: 0, line_items: [{ id: 1, grams: 0, quantity: 1, requires_shipping: true }] }, {}, (q) => q.package.weightKg, '1'],
    ['heavier parcels get a bigger size', { total_weight: 7200 }, {}, (q) => q.package.size, 'MEDIUM'],
    ['beyond every rule: the largest size', { total_weight: 40000 }, {}, (q) => q.package.size, 'LARGE'],
    ['a whole-number total gets two places', { total_price: '1250' }, {}, (q) => q.amount, '1250.00'],
    ['a point-of-sale order', { source_name: 'pos' }, {}, (q) => q.channel, 'pos'],
    ['no note, no notes field', { note: null }, {}, (q) => 'notes' in q, false],
    ['no address2, no addressLine2', { shipping_address: { address2: null } }, {}, (q) => 'addressLine2' in q.dropoff, false],
    ['a long note is cut to 500 characters', { note: 'x'.repeat(900) }, {}, (q) => q.notes.length, 500],
  ])('%s', (_name, changes, c, pick, expected) => {
    const r = map(changes, c);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(pick(r.request)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, Partial<MappingContext>, string, string]>([
    ['no shipping address', { shipping_address: null }, {}, 'no_shipping_address', 'No shipping address'],
    ['no coordinates', { shipping_address: { latitude: null, longitude: null } }, {}, 'missing_coordinates', 'Shipping address has no coordinates'],
    ['coordinates 0,0', { shipping_address: { latitude: 0, longitude: 0 } }, {}, 'missing_coordinates', 'Shipping address has no coordinates'],
    ['a short phone', { shipping_address: { phone: '0825' }, phone: null, customer: { phone: null } }, {}, 'invalid_phone', "Phone '0825' is not a valid ZA number"],
    ['no phone anywhere', { shipping_address: { phone: null }, phone: null, customer: { phone: null } }, {}, 'missing_phone', 'No phone number on the shipping address or the order'],
    // The customer's contact details need read_customers and are deprecated: never used.
    ['only the customer has a phone', { shipping_address: { phone: null }, phone: null, customer: { id: 1, phone: '0825551234' } }, {}, 'missing_phone', 'No phone number on the shipping address or the order'],
    ['no street or city', { shipping_address: { address1: null, city: '' } }, {}, 'incomplete_address', 'Shipping address has no street address, city'],
    ['no pickup store', {}, { pickupStoreId: null, locationStores: {} }, 'missing_pickup_store', 'No pickup store is set for the test environment'],
    ['an invalid total', { total_price: 'free' }, {}, 'invalid_amount', "Order total 'free ZAR' is not a valid amount"],
  ])('%s → NEEDS_ATTENTION reason', (_name, changes, c, code, message) => {
    const r = map(changes, c);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toContainEqual({ code, message });
  });

  it('reports every problem at once', () => {
    const r = map({ shipping_address: { latitude: null, phone: '0825' }, phone: null, customer: { phone: null } }, { pickupStoreId: null, locationStores: {} });
    expect(!r.ok && r.problems.map((p) => p.code).sort()).toEqual(['invalid_phone', 'missing_coordinates', 'missing_pickup_store']);
  });
});

describe('idempotencyKey', () => {
  it('is stable per generation and differs across generations, environments and shops', () => {
    const k = idempotencyKey('test', 'a.myshopify.com', '5912345678901234', 1);
    expect(idempotencyKey('test', 'a.myshopify.com', '5912345678901234', 1)).toBe(k);
    expect(k).toMatch(/^sdd-test-[0-9a-f]{12}-5912345678901234-g1$/);
    expect(new Set([k, idempotencyKey('test', 'a.myshopify.com', '5912345678901234', 2), idempotencyKey('live', 'a.myshopify.com', '5912345678901234', 1), idempotencyKey('test', 'b.myshopify.com', '5912345678901234', 1)]).size).toBe(4);
  });
});

describe('channelFor', () => {
  it.each([
    ['web', 'web'], [null, 'web'], ['pos', 'pos'], ['iphone', 'app'], ['android', 'app'], ['instagram', 'social'],
    ['amazon', 'marketplace'], ['580111', 'marketplace'], ['shopify_draft_order', 'web'], ['something-new', 'web'],
  ])('%s → %s', (source, channel) => expect(channelFor(source)).toBe(channel));
});

describe('dropoffPhone: the phone the courier gets, which the admin page shows', () => {
  const order = (changes: Record<string, unknown>) => parseOrderSnapshot(paidOrder(changes));
  it.each([
    ['the address phone, international', { shipping_address: { phone: '082 555 1234' } }, {}, { e164: '+27825551234' }],
    ['an unusable address phone: the order phone', { shipping_address: { phone: '0825' }, phone: '021 555 0000' }, {}, { e164: '+27215550000' }],
    ['a correction wins over both', { shipping_address: { phone: '082 555 1234' } }, { phone: '083 123 4567' }, { e164: '+27831234567' }],
    ['none usable: the problem names the first', { shipping_address: { phone: '0825' }, phone: null }, {}, { problem: { code: 'invalid_phone', message: "Phone '0825' is not a valid ZA number" } }],
  ])('%s', (_n, changes, overrides, expected) => {
    expect(dropoffPhone(order(changes), overrides)).toEqual(expected);
  });
});
