import { describe, expect, it } from 'vitest';
import { adoptedResult, bookingFailure, duplicateReason, liveOrders, matchReference, nextCreateStep, summarise } from '../../web/dispatch/booking.ts';
import { checkFix } from '../../web/dispatch/fix.ts';
import { mapOrderToRequest, requestProblems, type MappingContext } from '../../web/dispatch/mapping.ts';
import { parseOrderSnapshot } from '../../web/order/snapshot.ts';
import { BadResponseError, errorDetails, OutcomeUnknownError, RejectedError, TransientError } from '../../web/delivery/errors.ts';
import { ShopifyAdminError } from '../../web/shopify/admin-api.ts';
import type { CourierOrderView } from '../../web/delivery/types.ts';
import { SettingsSchema } from '../../web/settings/schema.ts';
import { paidOrder } from '../support/orders.ts';

const view = (id: string, over: Partial<CourierOrderView> = {}): CourierOrderView => ({ id, raw: { id }, ...over });

describe('nextCreateStep: never a second create while one may be in flight', () => {
  it.each([
    ['nothing sent yet', null, 1_000, { kind: 'send' }],
    ['sent 1 s ago, window 30 s', 0, 1_000, { kind: 'wait', ms: 29_000 }],
    ['sent 1 ms before the window ends', 0, 29_999, { kind: 'wait', ms: 1 }],
    ['the window just ended', 0, 30_000, { kind: 'lookup' }],
    ['long ago', 0, 10 * 60_000, { kind: 'lookup' }],
  ] as const)('%s', (_n, sentAt, now, step) => {
    expect(nextCreateStep(sentAt, now, 30_000)).toEqual(step);
  });
});

describe('matchReference', () => {
  it('none found', () => expect(matchReference([], 'R1')).toBeNull());
  it('only exact references count; orders without one are taken as filtered by the service; ids deduplicated', () => {
    const m = matchReference([view('o1', { reference: 'R1' }), view('o2', { reference: 'R10' }), view('o3'), view('o1', { reference: 'R1' })], 'R1')!;
    expect(m.keep.id).toBe('o1');
    expect(m.all.map((o) => o.id)).toEqual(['o1', 'o3']);
  });
  it('keeps the one we recorded, listed first', () => {
    const m = matchReference([view('o1', { reference: 'R1' }), view('o2', { reference: 'R1' })], 'R1', 'o2')!;
    expect(m.keep.id).toBe('o2');
    expect(m.all.map((o) => o.id)).toEqual(['o2', 'o1']);
  });
  it('a preferred id not in the list falls back to the first', () => {
    expect(matchReference([view('o1', { reference: 'R1' })], 'R1', 'zz')!.keep.id).toBe('o1');
  });
  it('only other references: null', () => expect(matchReference([view('o2', { reference: 'R2' })], 'R1')).toBeNull());
});

describe('liveOrders', () => {
  const rows: Array<[string, Partial<CourierOrderView>, boolean]> = [
    ['failed delivery status', { deliveryStatus: 'failed' }, false],
    ['cancelled order status', { status: 'CANCELLED' }, false],
    ['returned', { deliveryStatus: 'returned' }, false],
    ['in transit', { deliveryStatus: 'in_transit' }, true],
    ['validated order, no delivery status', { status: 'VALIDATED' }, true],
    ['no status at all', {}, true],
    ['delivery status wins over the order status', { status: 'CANCELLED', deliveryStatus: 'picked_up' }, true],
  ];
  it.each(rows)('another order, %s: counted %s', (_name, other, counted) => {
    const m = matchReference([view('keep', { reference: 'R1' }), view('o2', { reference: 'R1', ...other })], 'R1', 'keep')!;
    expect(liveOrders(m).map((o) => o.id)).toEqual(counted ? ['keep', 'o2'] : ['keep']);
  });
  it('the kept order counts even when it has failed', () => {
    const m = matchReference([view('keep', { reference: 'R1', deliveryStatus: 'failed' })], 'R1', 'keep')!;
    expect(liveOrders(m).map((o) => o.id)).toEqual(['keep']);
  });
});

describe('adoptedResult', () => {
  it('carries every field the read has', () => {
    const r = adoptedResult(view('o1', { reference: 'R1', status: 'VALIDATED', deliveryPrice: '75.00', currency: 'ZAR', dispatchId: 'job_1', deliveryId: 'delivery_1' }), 'R1');
    expect(r).toEqual({
      requestId: '', orderId: 'o1', orderStatus: 'VALIDATED', reference: 'R1', deliveryPrice: '75.00', currency: 'ZAR', dispatchId: 'job_1', deliveryId: 'delivery_1',
      httpStatus: 200, responseText: JSON.stringify({ id: 'o1' }), attempts: 0,
    });
  });
  it('fields the read lacks stay empty; the reference is ours', () => {
    const r = adoptedResult({ id: 'o9', raw: undefined }, 'R9');
    expect(r).toMatchObject({ orderStatus: 'UNKNOWN', reference: 'R9', deliveryPrice: '', currency: '', dispatchId: '', responseText: 'null' });
    expect('deliveryId' in r).toBe(false);
  });
});

describe('duplicates', () => {
  it('lists every order and job id, says which one is tracked and which to cancel', () => {
    const all = summarise([view('o1', { dispatchId: 'job_1', status: 'VALIDATED' }), view('o2'), view('o3', { dispatchId: 'job_3' })]);
    expect(all).toEqual([
      { orderId: 'o1', dispatchId: 'job_1', status: 'VALIDATED' },
      { orderId: 'o2', dispatchId: null, status: null },
      { orderId: 'o3', dispatchId: 'job_3', status: null },
    ]);
    expect(duplicateReason(all)).toBe(
      'The courier holds 3 orders for this Shopify order: order o1 (job job_1), order o2, order o3 (job job_3). ' +
        'This app tracks order o1 (job job_1); cancel order o2, order o3 (job job_3) in the courier portal, then mark this resolved.',
    );
  });
});

const ctx = (over: Partial<MappingContext> = {}): MappingContext => ({
  shopDomain: 'rooibos.myshopify.com', environment: 'test', settings: SettingsSchema.parse({}), pickupStoreId: 'store_default', locationStores: {}, locationId: null, overrides: {}, ...over,
});

describe('our own request validation names the field and the limit', () => {
  it.each([
    ['a 301-character name', { name: 'N'.repeat(301) }, 'dropoff.name is 301 characters; the limit is 255; correct the name with Fix'],
    ['a 256-character address2', { address2: 'A'.repeat(256) }, 'dropoff.addressLine2 is 256 characters; the limit is 255; correct the address2 with Fix'],
    ['a 129-character city', { city: 'C'.repeat(129) }, 'dropoff.city is 129 characters; the limit is 128; correct the city with Fix'],
  ])('%s → invalid_field', (_n, address, message) => {
    const r = mapOrderToRequest(parseOrderSnapshot(paidOrder({ shipping_address: address })), ctx());
    expect(r).toEqual({ ok: false, problems: [{ code: 'invalid_field', message }] });
  });

  it('a field without a Fix option is still named', () => {
    const r = mapOrderToRequest(parseOrderSnapshot(paidOrder()), ctx());
    expect(r.ok).toBe(true);
    const req = (r as { ok: true; request: Parameters<typeof requestProblems>[0] }).request;
    expect(requestProblems({ ...req, channel: 'x'.repeat(65) })).toEqual([{ code: 'invalid_field', message: 'channel is 65 characters; the limit is 64' }]);
    expect(requestProblems({ ...req, dropoff: { ...req.dropoff, email: 'nope' } })).toEqual([{ code: 'invalid_field', message: 'dropoff.email must be an e-mail address; correct the email with Fix' }]);
    expect(requestProblems(req)).toEqual([]);
  });

  it('corrections replace the address fields; an empty address2 or e-mail is left out', () => {
    const r = mapOrderToRequest(
      parseOrderSnapshot(paidOrder({ shipping_address: { name: 'N'.repeat(301) } })),
      ctx({ overrides: { name: 'Thandi N', address1: '1 Oxford Rd', address2: '', city: 'Rosebank', email: '' } }),
    );
    expect(r.ok).toBe(true);
    const req = (r as { ok: true; request: { dropoff: Record<string, unknown> } }).request;
    expect(req.dropoff).toMatchObject({ name: 'Thandi N', addressLine1: '1 Oxford Rd', city: 'Rosebank' });
    expect('addressLine2' in req.dropoff).toBe(false);
    expect('email' in req.dropoff).toBe(false);
  });
});

describe('checkFix: the same checks for the admin API and the CLI', () => {
  const order = parseOrderSnapshot(paidOrder());
  it.each([
    ['a valid ZA phone', { phone: '082 555 1234' }, { ok: true, fix: { phone: '082 555 1234' } }],
    ['a phone invalid for the destination', { phone: '12345' }, { ok: false, errors: { phone: "Phone '12345' is not a valid ZA number" } }],
    ['a ZA-invalid local number', { phone: '0825' }, { ok: false, errors: { phone: "Phone '0825' is not a valid ZA number" } }],
    ['coordinates as text', { latitude: '-26.1', longitude: '28.05' }, { ok: true, fix: { latitude: -26.1, longitude: 28.05 } }],
    ['coordinates with spaces, as CLI arguments come', { latitude: ' -26.1 ', longitude: '+28.05' }, { ok: true, fix: { latitude: -26.1, longitude: 28.05 } }],
    ['a null latitude is not 0', { latitude: null, longitude: 28 }, { ok: false, errors: { latitude: 'expected decimal degrees, e.g. -26.1076' } }],
    ['an empty latitude is not 0', { latitude: '', longitude: 28 }, { ok: false, errors: { latitude: 'expected decimal degrees, e.g. -26.1076' } }],
    ['a boolean longitude is not 1', { latitude: -26.1, longitude: true }, { ok: false, errors: { longitude: 'expected decimal degrees, e.g. 28.0567' } }],
    ['a latitude that is not a number', { latitude: 'abc', longitude: '28' }, { ok: false, errors: { latitude: 'expected decimal degrees, e.g. -26.1076' } }],
    ['a latitude out of range', { latitude: '-91', longitude: '28' }, { ok: false, errors: { latitude: 'must be between -90 and 90' } }],
    ['a longitude out of range', { latitude: -26, longitude: 180.5 }, { ok: false, errors: { longitude: 'must be between -180 and 180' } }],
    ['a phone of spaces', { phone: '   ' }, { ok: false, errors: { phone: 'enter a phone number' } }],
    ['latitude alone', { latitude: -26.1 }, { ok: false, errors: { longitude: 'enter both latitude and longitude' } }],
    ['longitude alone', { longitude: 28 }, { ok: false, errors: { latitude: 'enter both latitude and longitude' } }],
    ['null island', { latitude: 0, longitude: 0 }, { ok: false, errors: { latitude: '0, 0 is not a real address location' } }],
    ['on the equator', { latitude: 0, longitude: 32.5 }, { ok: true, fix: { latitude: 0, longitude: 32.5 } }],
    ['on the prime meridian', { latitude: 51.5, longitude: 0 }, { ok: true, fix: { latitude: 51.5, longitude: 0 } }],
    ['nothing', {}, { ok: false, errors: { phone: 'enter a correction: phone, coordinates, name, address or e-mail' } }],
    ['a name at the limit', { name: 'N'.repeat(255) }, { ok: true, fix: { name: 'N'.repeat(255) } }],
    ['a name over the limit', { name: 'N'.repeat(256) }, { ok: false, errors: { name: 'recipient name may be at most 255 characters' } }],
    ['an empty name', { name: '  ' }, { ok: false, errors: { name: 'enter the recipient name' } }],
    ['an empty address2 removes it', { address2: '' }, { ok: true, fix: { address2: '' } }],
    ['a bad e-mail', { email: 'x@' }, { ok: false, errors: { email: 'must be an e-mail address' } }],
    ['an unknown field', { colour: 'red' }, { ok: false, errors: { fix: expect.stringContaining('colour') } }],
    ['a bad field and a bad phone', { name: '', phone: 'x' }, { ok: false, errors: { name: 'enter the recipient name' } }],
  ])('%s', (_n, input, expected) => {
    const r = checkFix(input, order);
    expect(r).toMatchObject(expected);
    // Only the fields given come back: nothing undefined.
    if (r.ok) expect(r.fix).toStrictEqual((expected as { fix: object }).fix);
  });
  it('an order without a shipping address checks the phone without a country', () => {
    expect(checkFix({ phone: '0825551234' }, parseOrderSnapshot(paidOrder({ shipping_address: null })))).toEqual({ ok: false, errors: { phone: "Phone '0825551234' is not a valid international number" } });
  });
});

describe('errorDetails: every courier validation detail', () => {
  it.each([
    ['the sandbox shape', { error: { code: 'validation_error', message: 'a', details: [{ field: 'dropoff.name', message: 'is too long' }, { field: 'package.weightKg', message: 'package.weightKg must be at most 1000' }] } }, ['dropoff.name: is too long', 'package.weightKg must be at most 1000']],
    ['{errors:[...]} with strings', { errors: ['first', ' ', 'second'] }, ['first', 'second']],
    ['RFC 7807 invalid_params', { title: 'bad', invalid_params: [{ name: 'city', reason: 'is not served' }, { name: 'city', reason: 'city unknown' }] }, ['city: is not served', 'city unknown']],
    ['a root details list', { details: [{ path: ['dropoff', 'phone'], code: 'invalid' }, {}, 7] }, ['dropoff.phone: invalid']],
    ['a field without message', { errors: [{ field: 'amount' }] }, ['amount']],
    ['no list', { error: { message: 'nope' } }, []],
  ])('%s', (_n, body, lines) => {
    expect(errorDetails(JSON.stringify(body))).toEqual(lines);
  });
  it('text that is not JSON, or nothing, has no details', () => {
    expect(errorDetails('<html>')).toEqual([]);
    expect(errorDetails(undefined)).toEqual([]);
    expect(errorDetails('null')).toEqual([]);
  });
});

describe('bookingFailure (a dispatch job out of attempts)', () => {
  const courier = (m: string) => ({ reasonCode: 'courier_unavailable', message: `Courier could not be reached after every retry: ${m}` });
  const booking = (m: string) => ({ reasonCode: 'booking_failed', message: `Booking failed after every retry: ${m}` });
  it.each([
    ['courier 5xx', new TransientError('HTTP 503 from the courier'), courier('HTTP 503 from the courier')],
    ['create with no answer', new OutcomeUnknownError('timed out after 10000 ms'), courier('timed out after 10000 ms')],
    // runDispatch wraps a 2xx it could not read so the queue retries it.
    ['unreadable courier answer, wrapped', new Error('not JSON', { cause: new BadResponseError('not JSON') }), courier('not JSON')],
    ['database', new Error('Timed out fetching a new connection from the connection pool'), booking('Timed out fetching a new connection from the connection pool')],
    ['programming error', new TypeError("Cannot read properties of undefined (reading 'id')"), booking("Cannot read properties of undefined (reading 'id')")],
    ['Shopify', new ShopifyAdminError('Shopify answered HTTP 502', { retryable: true, status: 502 }), booking('Shopify answered HTTP 502')],
    ['a courier refusal wrapped by something else', new Error('x', { cause: new RejectedError('x') }), booking('x')],
    ['not an Error', 'boom', booking('boom')],
  ])('%s', (_what, error, failure) => {
    expect(bookingFailure(error)).toEqual(failure);
  });
});
