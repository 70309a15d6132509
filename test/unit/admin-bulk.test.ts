// Bulk actions' pure parts (web/admin/services/bulk-rules.ts), and the contract
// between the orders-list extension's request and the endpoint's parser.
import { describe, expect, it } from 'vitest';
import { MissingCredentialsError } from '../../web/context.ts';
import { DeliveryApiError } from '../../web/delivery/index.ts';
import { ActionError } from '../../web/dispatch/service.ts';
import { ApiError } from '../../web/admin/errors.ts';
import { BULK_MAX_ORDERS, mapBounded, outcomeOfError, parseBulkRequest } from '../../web/admin/services/bulk-rules.ts';
import { ShopifyAdminError } from '../../web/shopify/admin-api.ts';
import { BULK_MAX, bulkRequest } from '../../extensions/order-bulk-action/src/request.ts';

const fieldsOf = (body: unknown): Record<string, string> => {
  try {
    parseBulkRequest(body);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    return (e as ApiError).errors ?? {};
  }
  throw new Error('accepted');
};

describe('parseBulkRequest', () => {
  it('accepts numeric ids and order GIDs, returns numeric ids once each in the order given', () => {
    expect(parseBulkRequest({ action: 'quote', orderIds: ['gid://shopify/Order/12', '34', '12'] })).toEqual({ action: 'quote', orderIds: ['12', '34'] });
  });

  it.each([
    [null, ['action', 'orderIds']],
    [[], ['action', 'orderIds']],
    [{ action: 'cancel', orderIds: ['1'] }, ['action']],
    [{ action: 'dispatch' }, ['orderIds']],
    [{ action: 'dispatch', orderIds: [] }, ['orderIds']],
    [{ action: 'dispatch', orderIds: '1,2' }, ['orderIds']],
    [{ action: 'dispatch', orderIds: ['1', 2, 'gid://shopify/Product/3', '4x'] }, ['orderIds.1', 'orderIds.2', 'orderIds.3']],
    [{ action: 'retry', orderIds: Array.from({ length: BULK_MAX_ORDERS + 1 }, (_, i) => String(i + 1)) }, ['orderIds']],
  ])('%j → 400 naming %j', (body, fields) => {
    expect(Object.keys(fieldsOf(body))).toEqual(fields);
  });

  it(`accepts exactly ${BULK_MAX_ORDERS} orders`, () => {
    expect(parseBulkRequest({ action: 'retry', orderIds: Array.from({ length: BULK_MAX_ORDERS }, (_, i) => String(i + 1)) }).orderIds).toHaveLength(BULK_MAX_ORDERS);
  });
});

describe('the orders-list extension sends what the endpoint accepts', () => {
  const selected = [{ id: 'gid://shopify/Order/5001' }, { id: 'gid://shopify/Order/5002' }];
  it.each(['dispatch', 'retry', 'quote'] as const)('%s: the JSON it posts parses to the same action and orders', (action) => {
    const sent = JSON.parse(JSON.stringify(bulkRequest(action, selected)));
    expect(parseBulkRequest(sent)).toEqual({ action, orderIds: ['5001', '5002'] });
  });

  it('refuses more orders than the endpoint at the same limit', () => {
    expect(BULK_MAX).toBe(BULK_MAX_ORDERS);
  });
});

describe('outcomeOfError', () => {
  it.each([
    [new ActionError('delivery is CREATED; nothing to retry'), { outcome: 'refused', code: 'not_allowed', message: 'delivery is CREATED; nothing to retry' }],
    [new ActionError('Test orders are never sent to the live courier', 422), { outcome: 'refused', code: 'not_eligible' }],
    [new ActionError('delivery x not found', 404), { outcome: 'not_found', code: null }],
    [new ApiError(404, 'Shopify has no order 1 on this shop'), { outcome: 'not_found', code: null }],
    [new ApiError(422, 'Cannot quote this order: no phone'), { outcome: 'refused', code: 'cannot_quote' }],
    [new DeliveryApiError('rejected', 'package.weightKg must be at most 1000', { status: 400 }), { outcome: 'refused', code: 'courier_rejected', message: expect.stringMatching(/^Courier: /) }],
    [new DeliveryApiError('credentials', 'bad client'), { outcome: 'refused', code: 'courier_credentials' }],
    [new DeliveryApiError('transient', 'HTTP 503'), { outcome: 'refused', code: 'courier_unavailable' }],
    [new MissingCredentialsError('No courier credentials for test'), { outcome: 'refused', code: 'courier_credentials' }],
    [new ShopifyAdminError('throttled', { retryable: true }), { outcome: 'refused', code: 'shopify_error' }],
  ])('%s', (e, expected) => {
    expect(outcomeOfError(e)).toMatchObject(expected);
  });

  it('has no rule for an unexpected error (the service logs it)', () => {
    expect(outcomeOfError(new TypeError('x is undefined'))).toBeNull();
  });
});

describe('mapBounded', () => {
  it('keeps the order of the items and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapBounded([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, n * 3));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(most).toBe(3);
  });

  it('handles no items', async () => {
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
  });
});
