// Reading courier responses whose shapes the spec does not show: quote, order read,
// reference search, error bodies; plus the exact create response.
import { describe, expect, it } from 'vitest';
import { extractQuote, mapCreateOrderResponse, mapQuoteResponse, toOrderList, toOrderView } from '../../web/delivery/extract.ts';
import { parseJsonExact } from '../../web/delivery/json.ts';
import { describeErrorBody, fieldFromError, isIdempotencyConflict, isIdempotencyInProgress, normaliseField, oneLine, scrubSecrets } from '../../web/delivery/errors.ts';
import { validateBaseUrl } from '../../web/delivery/url.ts';

const CREATE_201 = '{"request_id":"req_1","order":{"id":"ord_1","reference":"R-1","status":"VALIDATED","deliveryPrice":84.50,"currency":"ZAR"},"dispatch":{"id":"job_1"}}';

describe('mapCreateOrderResponse', () => {
  it('reads the spec response, price as its exact text', () => {
    expect(mapCreateOrderResponse(CREATE_201, { requestReference: 'R-1' })).toEqual({
      ok: true,
      value: { requestId: 'req_1', orderId: 'ord_1', orderStatus: 'VALIDATED', reference: 'R-1', deliveryPrice: '84.50', currency: 'ZAR', dispatchId: 'job_1' },
    });
  });

  it.each([
    ['an integer price', CREATE_201.replace('84.50', '84'), { deliveryPrice: '84' }],
    ['a price as a decimal string', CREATE_201.replace('84.50', '"84.50"'), { deliveryPrice: '84.50' }],
    ['a price in exponent form', CREATE_201.replace('84.50', '8.45e1'), { deliveryPrice: '84.5' }],
    ['extra unknown fields', CREATE_201.replace('"dispatch"', '"eta":"2025-01-01T10:00:00Z","dispatch"'), { orderId: 'ord_1' }],
    ['a delivery element', CREATE_201.replace('"dispatch"', '"delivery":{"id":"delivery_9"},"dispatch"'), { deliveryId: 'delivery_9' }],
    ['order.deliveryId', CREATE_201.replace('"status"', '"deliveryId":"delivery_8","status"'), { deliveryId: 'delivery_8' }],
    ['no reference echoed', CREATE_201.replace('"reference":"R-1",', ''), { reference: 'R-1' }],
    ['no request_id (header fallback)', CREATE_201.replace('"request_id":"req_1",', ''), { requestId: 'req_h' }],
  ])('tolerates %s', (_name, text, expected) => {
    const r = mapCreateOrderResponse(text, { requestReference: 'R-1', headers: { 'x-request-id': 'req_h' } });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toMatchObject(expected);
  });

  it.each([
    ['not JSON', '<html>', /not JSON/],
    ['no order id', CREATE_201.replace('"id":"ord_1",', ''), /order\.id/],
    ['no dispatch', CREATE_201.replace(',"dispatch":{"id":"job_1"}', ''), /dispatch/],
    ['no price', CREATE_201.replace('"deliveryPrice":84.50,', ''), /deliveryPrice/],
    ['a price that is not a number', CREATE_201.replace('84.50', '"free"'), /deliveryPrice/],
  ])('refuses %s', (_name, text, problem) => {
    const r = mapCreateOrderResponse(text, { requestReference: 'R-1' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(problem);
  });
});

describe('extractQuote', () => {
  it.each([
    ['sandbox shape', '{"request_id":"r","quote":{"price":75.00,"currency":"ZAR"}}', '75.00', 'ZAR'],
    ['flat price', '{"price":75.10,"currency":"ZAR"}', '75.10', 'ZAR'],
    ['deliveryPrice', '{"deliveryPrice":80.00,"currency":"ZAR"}', '80.00', 'ZAR'],
    ['snake case under data', '{"data":{"delivery_price":"81.00","currency_code":"ZAR"}}', '81.00', 'ZAR'],
    ['total', '{"total":90.5}', '90.5', null],
    ['money object', '{"quote":{"price":{"amount":"70.00","currency":"ZAR"}}}', '70.00', 'ZAR'],
    ['list of quotes', '{"quotes":[{"fee":66.60,"currency":"ZAR"},{"fee":99.00}]}', '66.60', 'ZAR'],
    ['currency at the root only', '{"currency":"ZAR","pricing":{"cost":55.55}}', '55.55', 'ZAR'],
    ['price preferred over an echoed order amount', '{"amount":250.00,"price":75.00,"currency":"ZAR"}', '75.00', 'ZAR'],
    ['quote element preferred over root fields', '{"amount":250.00,"quote":{"total":60.00}}', '60.00', null],
  ])('%s', (_name, text, price, currency) => {
    expect(extractQuote(parseJsonExact(text))).toEqual({ price, currency });
  });

  it.each([
    ['no price field', '{"eta":"soon","currency":"ZAR"}'],
    ['price that is not a number', '{"price":"call us"}'],
    ['an array of numbers', '[75]'],
  ])('finds nothing in %s', (_name, text) => {
    expect(extractQuote(parseJsonExact(text))).toBeNull();
  });

  it('reports a clear problem through mapQuoteResponse', () => {
    expect(mapQuoteResponse('{"eta":1}')).toEqual({ ok: false, problem: 'the quote response has no recognisable price field' });
    expect(mapQuoteResponse('nope')).toEqual({ ok: false, problem: 'the quote response is not JSON' });
  });
});

describe('toOrderView / toOrderList', () => {
  const envelope = '{"order":{"id":"ord_1","reference":"R-1","status":"VALIDATED","deliveryPrice":84.50,"currency":"ZAR"},"dispatch":{"id":"job_1"},"delivery":{"id":"delivery_1","status":"picked_up"}}';

  it.each([
    ['the sandbox envelope', envelope, { id: 'ord_1', reference: 'R-1', status: 'VALIDATED', deliveryStatus: 'picked_up', deliveryId: 'delivery_1', dispatchId: 'job_1', deliveryPrice: '84.50', currency: 'ZAR' }],
    ['a bare order with camelCase ids', '{"id":"ord_2","status":"VALIDATED","deliveryId":"delivery_2","dispatchId":"job_2","deliveryStatus":"in_transit"}', { id: 'ord_2', deliveryId: 'delivery_2', dispatchId: 'job_2', deliveryStatus: 'in_transit' }],
    ['a bare order with snake_case ids', '{"id":"ord_3","delivery_id":"delivery_3","dispatch_id":"job_3","delivery_status":"delivered"}', { id: 'ord_3', deliveryId: 'delivery_3', dispatchId: 'job_3', deliveryStatus: 'delivered' }],
    ['a lower-case order status taken as delivery status', '{"id":"ord_4","status":"driver_assigned"}', { id: 'ord_4', status: 'driver_assigned', deliveryStatus: 'driver_assigned' }],
    ['an upper-case order status is not a delivery status', '{"id":"ord_5","status":"VALIDATED"}', { id: 'ord_5', status: 'VALIDATED' }],
  ])('%s', (_name, text, expected) => {
    const v = toOrderView(parseJsonExact(text));
    expect(v).toMatchObject(expected);
    if (!('deliveryStatus' in expected)) expect(v?.deliveryStatus).toBeUndefined();
  });

  it('has no view without an id', () => {
    expect(toOrderView(parseJsonExact('{"reference":"R"}'))).toBeNull();
  });

  it.each([
    ['a bare list', `[${envelope}]`, ['ord_1']],
    ['{orders: [...]}', `{"orders":[${envelope},{"id":"ord_9"}]}`, ['ord_1', 'ord_9']],
    ['{data: [...]}', `{"data":[${envelope}]}`, ['ord_1']],
    ['{data: {orders: [...]}}', `{"data":{"orders":[${envelope}]}}`, ['ord_1']],
    ['a single envelope', envelope, ['ord_1']],
    ['a single order under data', '{"data":{"id":"ord_7"}}', ['ord_7']],
    ['an empty list', '{"orders":[]}', []],
  ])('reference search: %s', (_name, text, ids) => {
    expect(toOrderList(parseJsonExact(text))?.map((o) => o.id)).toEqual(ids);
  });

  it('reference search: something that is not an order', () => {
    expect(toOrderList(parseJsonExact('{"message":"ok"}'))).toBeNull();
  });
});

describe('describeErrorBody / fieldFromError', () => {
  it.each([
    ['sandbox shape', '{"error":{"code":"validation_error","message":"dropoff.latitude is required","field":"dropoff.latitude"}}', { code: 'validation_error', field: 'dropoff.latitude' }],
    ['OAuth', '{"error":"invalid_client","error_description":"Client authentication failed"}', { code: 'invalid_client', message: 'Client authentication failed' }],
    ['RFC 7807', '{"title":"Bad Request","detail":"Invalid body","invalid_params":[{"name":"dropoff.longitude","reason":"required"}]}', { message: 'Invalid body', field: 'dropoff.longitude' }],
    ['errors list with JSON pointer', '{"errors":[{"pointer":"/dropoff/phone","message":"bad phone"}]}', { message: 'bad phone', field: 'dropoff.phone' }],
    ['zod-like issues', '{"message":"Invalid","errors":[{"path":["package","weightKg"],"message":"Required"}]}', { field: 'package.weightKg' }],
    ['flat message and param', '{"message":"missing","param":"body.pickup.storeId","code":"missing_param"}', { field: 'pickup.storeId', code: 'missing_param' }],
    ['scope named', '{"error":{"code":"forbidden","message":"Missing scope orders:create"}}', { scope: 'orders:create' }],
    ['error class is not a field', '{"error":{"name":"ValidationError","message":"bad"}}', { message: 'bad' }],
    ['plain text', 'Service Unavailable', { message: 'Service Unavailable' }],
    ['an HTML page', '<html><body>502</body></html>', {}],
  ])('%s', (_name, text, expected) => {
    const info = describeErrorBody(text);
    expect(info).toMatchObject(expected);
    if (_name === 'error class is not a field') expect(info.field).toBeUndefined();
  });

  it.each([
    [{ message: 'dropoff.latitude is required' }, 'dropoff.latitude'],
    [{ message: 'latitude is required' }, 'dropoff.latitude'],
    [{ message: 'storeId not found for merchant' }, 'pickup.storeId'],
    [{ message: 'name is required' }, 'dropoff.name'],
    [{ message: 'something failed' }, undefined],
    [{ field: 'x.y', message: 'latitude' }, 'x.y'],
  ])('field from %j', (info, expected) => {
    expect(fieldFromError(info)).toBe(expected);
  });

  it.each([
    [409, { code: 'idempotency_conflict' }, true, false],
    [409, { code: 'idempotency_key_in_use', message: 'A request with this key is in progress' }, false, true],
    [422, { message: 'Idempotency key reused with a different payload' }, true, false],
    [400, { message: 'Idempotency-Key header is required' }, false, false],
    [422, { message: 'dropoff.latitude is required' }, false, false],
  ])('HTTP %i %j: conflict %s, in progress %s', (status, info, conflict, inProgress) => {
    expect(isIdempotencyConflict(status, info)).toBe(conflict);
    expect(isIdempotencyInProgress(info)).toBe(inProgress);
  });

  it('normalises field spellings, scrubs secrets, keeps messages on one line', () => {
    expect(normaliseField('/dropoff/latitude')).toBe('dropoff.latitude');
    expect(normaliseField('dropoff[latitude]')).toBe('dropoff.latitude');
    expect(scrubSecrets('bad secret s3cr3t-value here', ['s3cr3t-value', undefined, 'ab'])).toBe('bad secret [redacted] here');
    expect(oneLine('a\n  b\tc')).toBe('a b c');
    expect(oneLine('x'.repeat(400)).length).toBe(300);
  });
});

describe('validateBaseUrl', () => {
  it.each([
    ['https://api.courier.example', { ok: true, url: 'https://api.courier.example' }],
    ['https://api.courier.example/', { ok: true, url: 'https://api.courier.example' }],
    ['https://api.courier.example/delivery/', { ok: true, url: 'https://api.courier.example/delivery' }],
    ['http://127.0.0.1:4010', { ok: true, url: 'http://127.0.0.1:4010' }],
    ['http://localhost:4010', { ok: true, url: 'http://localhost:4010' }],
    ['http://api.courier.example', { ok: false }],
    ['https://user:pw@api.courier.example', { ok: false }],
    ['https://api.courier.example?x=1', { ok: false }],
    ['ftp://api.courier.example', { ok: false }],
    ['not a url', { ok: false }],
  ])('%s', (input, expected) => {
    expect(validateBaseUrl(input)).toMatchObject(expected);
  });
});
