import { describe, expect, it } from 'vitest';
import { CreateOrderRequestSchema, type CreateOrderRequest } from '../../web/delivery/types.ts';
import { parseCreateOrderBody, serializeCreateOrder } from '../../web/delivery/serialize.ts';
import { CourierConfigError } from '../../web/delivery/errors.ts';
import { decimalTextOf, NumberText, parseJsonExact, toPlainDecimal } from '../../web/delivery/json.ts';

// The spec's short sample request: only the fields it lists.
const SHORT_SAMPLE: CreateOrderRequest = {
  reference: 'ORDER-1001',
  channel: 'web',
  serviceType: 'SAME_DAY',
  pickup: { storeId: 'store_sandbox_001' },
  dropoff: { name: 'Thandi Nkosi', phone: '+27821234567', addressLine1: '12 Jan Smuts Ave', city: 'Johannesburg', country: 'ZA', latitude: -26.1715, longitude: 28.0317 },
  package: { size: 'SMALL', weightKg: '1.5' },
  amount: '250.00',
  currency: 'ZAR',
};

const FULL: CreateOrderRequest = {
  ...SHORT_SAMPLE,
  sellerType: 'merchant',
  fulfilmentType: 'on_demand',
  originSystem: 'shopify',
  dropoff: { ...SHORT_SAMPLE.dropoff, addressLine2: 'Rosebank', email: 'thandi@example.com' },
  package: { size: 'SMALL', weightKg: '1.500', category: 'standard' },
  notes: 'Ring the bell',
  metadata: { customerId: '77', cartId: 'c-1' },
};

describe('CreateOrderRequestSchema', () => {
  it('accepts the spec short sample request and the full field table', () => {
    expect(CreateOrderRequestSchema.safeParse(SHORT_SAMPLE).success).toBe(true);
    expect(CreateOrderRequestSchema.safeParse(FULL).success).toBe(true);
  });
});

describe('serializeCreateOrder', () => {
  it('writes the short sample exactly, money and weight as number literals with their text', () => {
    expect(serializeCreateOrder(SHORT_SAMPLE)).toBe(
      '{"reference":"ORDER-1001","channel":"web","serviceType":"SAME_DAY","pickup":{"storeId":"store_sandbox_001"},' +
        '"dropoff":{"name":"Thandi Nkosi","phone":"+27821234567","addressLine1":"12 Jan Smuts Ave","city":"Johannesburg","country":"ZA","latitude":-26.1715,"longitude":28.0317},' +
        '"package":{"size":"SMALL","weightKg":1.5},"amount":250.00,"currency":"ZAR"}',
    );
  });

  it('orders keys as the spec tables do and sorts metadata keys', () => {
    const s = serializeCreateOrder(FULL);
    const keys = Object.keys(JSON.parse(s));
    expect(keys).toEqual(['reference', 'channel', 'sellerType', 'fulfilmentType', 'originSystem', 'serviceType', 'pickup', 'dropoff', 'package', 'amount', 'currency', 'notes', 'metadata']);
    expect(Object.keys(JSON.parse(s).dropoff)).toEqual(['name', 'phone', 'addressLine1', 'addressLine2', 'city', 'country', 'latitude', 'longitude', 'email']);
    expect(s).toContain('"package":{"size":"SMALL","weightKg":1.500,"category":"standard"}');
    expect(s).toContain('"metadata":{"cartId":"c-1","customerId":"77"}');
  });

  it('is deterministic whatever order the input object was built in', () => {
    const reversed = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).reverse()) as T;
    const rebuilt: CreateOrderRequest = { ...reversed(FULL), dropoff: reversed(FULL.dropoff), metadata: { cartId: 'c-1', customerId: '77' } };
    expect(Object.keys(rebuilt)[0]).not.toBe('reference');
    expect(serializeCreateOrder(rebuilt)).toBe(serializeCreateOrder(FULL));
  });

  it.each([
    ['amount', '0.50', '"amount":0.50'],
    ['amount', '1999999.99', '"amount":1999999.99'],
    ['amount', '250', '"amount":250'],
    ['amount', '0.005', '"amount":0.005'],
    ['weightKg', '0.001', '"weightKg":0.001'],
  ] as const)('%s %s is written as %s', (field, value, expected) => {
    const req = field === 'amount' ? { ...SHORT_SAMPLE, amount: value } : { ...SHORT_SAMPLE, package: { size: 'SMALL', weightKg: value } };
    expect(serializeCreateOrder(req)).toContain(expected);
  });

  const refusals: [string, (r: any) => unknown, string, RegExp][] = [
    ['missing latitude', (r: any) => delete r.dropoff.latitude, 'dropoff.latitude', /dropoff\.latitude is required/],
    ['missing storeId', (r: any) => delete r.pickup.storeId, 'pickup.storeId', /required/],
    ['blank reference', (r: any) => (r.reference = '   '), 'reference', /required/],
    ['amount with leading zero', (r: any) => (r.amount = '01.00'), 'amount', /decimal string/],
    ['amount in exponent form', (r: any) => (r.amount = '1e3'), 'amount', /decimal string/],
    ['negative amount', (r: any) => (r.amount = '-1.00'), 'amount', /decimal string/],
    ['amount as a float', (r: any) => (r.amount = 250.1), 'amount', /string/],
    ['four decimal places', (r: any) => (r.amount = '1.0001'), 'amount', /decimal string/],
    ['zero weight', (r: any) => (r.package.weightKg = '0.000'), 'package.weightKg', /greater than zero/],
    ['local phone number', (r: any) => (r.dropoff.phone = '0821234567'), 'dropoff.phone', /international/],
    ['phone with spaces', (r: any) => (r.dropoff.phone = '+27 82 123 4567'), 'dropoff.phone', /international/],
    ['lower-case country', (r: any) => (r.dropoff.country = 'za'), 'dropoff.country', /two-letter/],
    ['latitude out of range', (r: any) => (r.dropoff.latitude = 91), 'dropoff.latitude', /90/],
    ['NaN longitude', (r: any) => (r.dropoff.longitude = Number.NaN), 'dropoff.longitude', /./],
    ['currency as a word', (r: any) => (r.currency = 'rand'), 'currency', /three-letter/],
    ['unknown top-level field', (r: any) => (r.colour = 'red'), 'colour', /unknown field colour/],
    ['non-string metadata value', (r: any) => (r.metadata = { n: 1 }), 'metadata.n', /string/],
  ];
  it.each(refusals)('refuses %s with a CourierConfigError naming the field', (_name, mutate, field, message) => {
    const r = structuredClone(SHORT_SAMPLE);
    mutate(r);
    let err: unknown;
    try {
      serializeCreateOrder(r);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CourierConfigError);
    expect((err as CourierConfigError).field).toBe(field);
    expect((err as CourierConfigError).message).toMatch(message);
  });
});

describe('parseCreateOrderBody', () => {
  it('reads a serialised body back to the same typed request, money as exact text', () => {
    for (const req of [SHORT_SAMPLE, FULL]) {
      const r = parseCreateOrderBody(serializeCreateOrder(req));
      expect(r).toEqual({ ok: true, request: { ...req, metadata: req.metadata } });
    }
    const r = parseCreateOrderBody(serializeCreateOrder(FULL));
    expect(r.ok && r.request.package.weightKg).toBe('1.500');
  });

  it('accepts other whitespace and key order (a body stored by an earlier version)', () => {
    const pretty = JSON.stringify(JSON.parse(serializeCreateOrder(SHORT_SAMPLE)), null, 2).replace('250', '250.00');
    expect(parseCreateOrderBody(pretty).ok).toBe(true);
  });

  it.each([
    // [name, body, field, message]
    ['not JSON', '{', '', /^body is not valid JSON$/],
    ['an array', '[]', '', /^body is not a JSON object$/],
    ['JSON null', 'null', '', /^body is not a JSON object$/],
    ['a JSON string', '"ORDER-1001"', '', /^body is not a JSON object$/],
    ['amount as a string on the wire', serializeCreateOrder(SHORT_SAMPLE).replace('"amount":250.00', '"amount":"250.00"'), 'amount', /must be a JSON number/],
    ['weight as a string on the wire', serializeCreateOrder(SHORT_SAMPLE).replace('"weightKg":1.5', '"weightKg":"1.5"'), 'package.weightKg', /must be a JSON number/],
    ['amount in exponent form', serializeCreateOrder(SHORT_SAMPLE).replace('"amount":250.00', '"amount":2.5e2'), 'amount', /decimal string/],
    ['missing longitude', serializeCreateOrder(SHORT_SAMPLE).replace(',"longitude":28.0317', ''), 'dropoff.longitude', /dropoff\.longitude is required/],
    ['metadata as a list', serializeCreateOrder(SHORT_SAMPLE).replace('"currency":"ZAR"', '"currency":"ZAR","metadata":["c-1"]'), 'metadata', /^metadata: /],
  ])('rejects %s', (_name, body, field, message) => {
    const r = parseCreateOrderBody(body);
    expect(r).toMatchObject({ ok: false, field, message: expect.stringMatching(message) });
  });
});

describe('exact decimals', () => {
  it.each([
    ['250.00', '250.00'], ['250', '250'], ['0.5', '0.5'], ['-1.20', '-1.20'], ['2.5e2', '250'], ['2.50E+2', '250'],
    ['1e-2', '0.01'], ['12.5e-1', '1.25'], ['007.10', '7.10'], ['-0', '0'], ['1e40', null], ['abc', null], ['1.', null], ['.5', null], ['', null],
  ] as const)('toPlainDecimal(%s) = %s', (input, expected) => {
    expect(toPlainDecimal(input)).toBe(expected);
  });

  it('keeps the source text of JSON numbers that floats would change', () => {
    const tree = parseJsonExact('{"a":250.00,"b":0.1,"c":12345678901234567890.12,"d":[1.10]}') as Record<string, unknown>;
    expect(decimalTextOf(tree.a)).toBe('250.00');
    expect(decimalTextOf(tree.c)).toBe('12345678901234567890.12');
    expect((tree.d as NumberText[])[0]).toEqual(new NumberText('1.10'));
    expect(decimalTextOf('75.50')).toBe('75.50');
    expect(decimalTextOf(75.5)).toBeNull(); // a float is never trusted as money text
  });
});
