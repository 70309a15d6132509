import { describe, expect, it } from 'vitest';
import { OrderPayloadError } from '../../web/order/snapshot.ts';
import { readCheck, readExchange, readOrderCurrency, readOrderJson, readLocationStores, readOverridesJson, readTestWebhooks, readTriedIds, writeOverridesJson, readFulfillmentOrderIds, writeFulfillmentOrderIds } from '../../web/db/json-columns.ts';

describe('JSON-in-text columns: each read gives its shape and its default', () => {
  it.each([
    ['overrides: empty text is no correction', () => readOverridesJson({ overridesJson: '' }), {}],
    ['overrides: as written', () => readOverridesJson({ overridesJson: writeOverridesJson({ phone: '082 555 1234', latitude: -26.1, longitude: 28 }) }), { phone: '082 555 1234', latitude: -26.1, longitude: 28 }],
    ['location stores: none stored', () => readLocationStores({ locationStores: null }), {}],
    ['location stores: no row', () => readLocationStores(null), {}],
    ['exchange: not JSON is kept as text', () => readExchange('<html>'), '<html>'],
    ['exchange: nothing sent', () => readExchange(null), null],
    ['test webhooks: unreadable text is none', () => readTestWebhooks('{oops'), []],
    ['test webhooks: not a list is none', () => readTestWebhooks('{"a":1}'), []],
    ['tried ids: not a list is unknown', () => readTriedIds('"x"'), null],
    ['tried ids: a list', () => readTriedIds('["a","b"]'), ['a', 'b']],
    ['fulfillment orders: none stored', () => readFulfillmentOrderIds({ fulfillmentOrderIds: null }), []],
    ['fulfillment orders: as written', () => readFulfillmentOrderIds({ fulfillmentOrderIds: writeFulfillmentOrderIds(['gid://shopify/FulfillmentOrder/1']) }), ['gid://shopify/FulfillmentOrder/1']],
    ['check record: unreadable is none', () => readCheck('{oops'), undefined],
    ['check record: empty is none', () => readCheck(''), undefined],
  ])('%s', (_n, read, expected) => {
    expect(read()).toEqual(expected);
  });

  it('stored corrections outside the correction shape are refused, not passed to dispatch', () => {
    expect(() => readOverridesJson({ overridesJson: '{"latitude":"north"}' })).toThrow();
  });

  // The write-back reads only the currency: it must be what the whole snapshot's read gives, or refused as it is.
  it.each([
    ['as stored', { id: 1, currency: 'ZAR' }],
    ['absent: the default', { id: 1 }],
    ['empty', { id: 1, currency: '' }],
    ['not text', { id: 1, currency: 710 }],
  ])('order currency %s: as readOrderJson gives it', (_n, order) => {
    const row = { orderJson: JSON.stringify(order) };
    let whole: string | Error;
    try {
      whole = readOrderJson(row).currency;
    } catch (e) {
      whole = e as Error;
    }
    if (whole instanceof Error) {
      expect(whole).toBeInstanceOf(OrderPayloadError);
      expect(() => readOrderCurrency(row)).toThrow(OrderPayloadError);
    } else expect(readOrderCurrency(row)).toBe(whole);
  });
});
