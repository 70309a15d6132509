// A booking's metafields and a shop's booking writes together (web/shopify/operations.ts):
// the metafields each order sends, the shared document's sizes, and when a shared write counts as done.
import { describe, expect, it } from 'vitest';
import type { AdminApi } from '../../web/shopify/admin-api.ts';
import { BOOKINGS_PER_WRITE, BOOKINGS_WRITES, bookingMetafields, bookingsWriteDocument, METAFIELDS_PER_SET, writeBookings, type BookingToWrite } from '../../web/shopify/operations.ts';

const GID = 'gid://shopify/Order/1';
const booked = { status: 'accepted', jobId: 'JOB-1', courierOrderId: 'ord_1', price: '95.00', currency: 'ZAR' };

describe('bookingMetafields', () => {
  it.each([
    ['every field, in the shop currency: four', booked, 'ZAR', ['status', 'job_id', 'courier_order_id', 'delivery_price'], null],
    ['currency compared without case', booked, 'zar', ['status', 'job_id', 'courier_order_id', 'delivery_price'], null],
    ['the shop currency unknown (erased): the price goes in', booked, null, ['status', 'job_id', 'courier_order_id', 'delivery_price'], null],
    ['another currency: no price, and why', booked, 'USD', ['status', 'job_id', 'courier_order_id'], /95\.00 ZAR not written: .*shop's currency \(USD\)/],
    ['no job id, no order id, no price: the status alone', { status: 'accepted' }, 'ZAR', ['status'], null],
    ['a price without a currency: left out, nothing to explain', { ...booked, currency: null }, 'ZAR', ['status', 'job_id', 'courier_order_id'], null],
  ] as const)('%s', (_name, m, shopCurrency, keys, problem) => {
    const r = bookingMetafields(GID, m, shopCurrency);
    expect(r.withPrice.map((f) => f.key)).toEqual(keys);
    expect(r.metafields.map((f) => f.key)).toEqual(keys.filter((k) => k !== 'delivery_price'));
    if (problem) expect(r.priceProblem).toMatch(problem);
    else expect(r.priceProblem).toBeNull();
    expect(new Set(r.withPrice.map((f) => f.ownerId))).toEqual(new Set([GID]));
  });

  it('six orders of four fit one metafieldsSet', () => {
    expect(BOOKINGS_PER_WRITE * 4).toBeLessThanOrEqual(METAFIELDS_PER_SET);
  });
});

describe('bookingsWriteDocument', () => {
  it.each([1, 0, BOOKINGS_PER_WRITE + 1, 2.5])('refuses %s orders', (n) => expect(() => bookingsWriteDocument(n)).toThrow(RangeError));
  it('n orders: one metafieldsSet and n aliased tagsAdd, named by n', () => {
    const doc = bookingsWriteDocument(4);
    expect(doc).toMatch(/mutation BookingsWrite4\(/);
    expect(doc.match(/metafieldsSet\(/g)).toHaveLength(1);
    expect(doc.match(/t\d: tagsAdd\(id: \$id\d, tags: \$tags\)/g)).toEqual(['t0: tagsAdd(id: $id0, tags: $tags)', 't1: tagsAdd(id: $id1, tags: $tags)', 't2: tagsAdd(id: $id2, tags: $tags)', 't3: tagsAdd(id: $id3, tags: $tags)']);
    expect(BOOKINGS_WRITES.map((d) => /BookingsWrite(\d)/.exec(d)![1])).toEqual(['2', '3', '4', '5', '6']);
  });
});

describe('writeBookings', () => {
  const items = (n: number): BookingToWrite[] => Array.from({ length: n }, (_, i) => ({ orderGid: `gid://shopify/Order/${i + 1}`, metafields: { ...booked, jobId: `JOB-${i}` }, shopCurrency: 'ZAR' }));
  function answering(data: Record<string, unknown>) {
    const sent: Array<{ query: string; variables: Record<string, unknown> }> = [];
    const api: AdminApi = { request: async (_shop, query, variables = {}) => (sent.push({ query, variables }), data) as any };
    return { api, sent };
  }
  const ok = { userErrors: [] };

  it('sends every order once: their metafields in one list, an id each, the tag once', async () => {
    const { api, sent } = answering({ metafieldsSet: ok, t0: ok, t1: ok, t2: ok });
    expect(await writeBookings(api, 's.myshopify.com', items(3))).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.query).toBe(BOOKINGS_WRITES[1]);
    const v = sent[0]!.variables as { metafields: Array<{ ownerId: string }>; tags: string[] } & Record<string, unknown>;
    expect(v.metafields).toHaveLength(12);
    expect([v.id0, v.id1, v.id2]).toEqual(['gid://shopify/Order/1', 'gid://shopify/Order/2', 'gid://shopify/Order/3']);
    expect(v.tags).toEqual(['same-day-dispatched']);
  });

  it.each([
    ['the metafields refused (all or nothing)', { metafieldsSet: { userErrors: [{ message: 'no' }] }, t0: ok, t1: ok }],
    ["one order's tag refused", { metafieldsSet: ok, t0: ok, t1: { userErrors: [{ message: 'no' }] } }],
    ['a tag answer missing', { metafieldsSet: ok, t0: ok }],
    ['the metafields answer missing', { t0: ok, t1: ok }],
  ])('%s: not done', async (_name, data) => {
    expect(await writeBookings(answering(data).api, 's.myshopify.com', items(2))).toBe(false);
  });

  it('seven orders (28 metafields, over the 25 one set takes): refused before anything is sent', async () => {
    const { api, sent } = answering({});
    await expect(writeBookings(api, 's.myshopify.com', [...items(6), ...items(1)])).rejects.toThrow(/more than 25 metafields/);
    expect(sent).toEqual([]);
  });
});
