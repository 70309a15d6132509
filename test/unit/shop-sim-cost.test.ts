// The shop simulator's model of Shopify's calculated query cost and leaky bucket
// (dev/shop-sim/cost.ts), as shopify.dev documents it, with every answer checked
// against the pinned Admin schema.
import { describe, expect, it } from 'vitest';
import { parse, type OperationDefinitionNode } from 'graphql';
import * as ops from '../../web/shopify/operations.ts';
import { adminSchema, answerProblems } from '../../dev/shop-sim/contract.ts';
import { actualCost, CostBucket, MAX_QUERY_COST, PLANS, requestedCost } from '../../dev/shop-sim/cost.ts';
import { handleAdminGraphql, SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { OPERATION_COST } from '../../web/shopify/operation-costs.ts';

const schema = adminSchema();
const TOKEN = 'shpat_cost';

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2026-03-02T10:00:00Z')) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('requested cost, as shopify.dev documents it', () => {
  it.each([
    ['scalars and enums cost 0; the object holding them 1', 'query { shop { name currencyCode } }', 1],
    ['an object inside an object', 'query { shop { name billingAddress { city } } }', 2],
    ['a connection: 2 + first × one node', 'query { products(first: 10) { nodes { id title } } }', 12],
    ['edges { node } costs like nodes', 'query { products(first: 10) { edges { node { id } } pageInfo { hasNextPage } } }', 12],
    ['nested connections multiply', 'query { orders(first: 5) { nodes { id lineItems(first: 10) { nodes { id } } } } }', 2 + 5 * (1 + 2 + 10)],
    ['a connection sized by a variable', 'query Q($n: Int) { products(first: $n) { nodes { id } } }', 2 + 25],
    ['a mutation field costs 10, whatever its payload selects', 'mutation { tagsAdd(id: "gid://shopify/Order/1", tags: ["x"]) { node { id } userErrors { field message } } }', 10],
    ['two mutation fields in one document cost 10 each', 'mutation { a: tagsAdd(id: "gid://shopify/Order/1", tags: ["x"]) { userErrors { message } } b: tagsAdd(id: "gid://shopify/Order/2", tags: ["x"]) { userErrors { message } } }', 20],
  ])('%s', (_name, query, cost) => {
    expect(requestedCost(schema, query, { n: 25 })).toBe(cost);
  });

  it('every operation the app sends stays under the 1,000-point single-query limit', () => {
    for (const q of (Object.values(ops) as unknown[]).flat().filter((v): v is string => typeof v === 'string' && /^\s*(query|mutation)\s/.test(v))) {
      const name = (parse(q).definitions[0] as OperationDefinitionNode).name!.value;
      expect({ name, ok: requestedCost(schema, q, {}) <= MAX_QUERY_COST }).toEqual({ name, ok: true });
    }
  });
});

describe('actual cost', () => {
  it('counts what the answer holds: a connection its real nodes, a null object nothing', () => {
    const q = 'query { products(first: 10) { nodes { id } } shop { name } }';
    expect(actualCost(schema, q, { products: { nodes: [{ id: 'a' }, { id: 'b' }] }, shop: { name: 'x' } })).toBe(2 + 2 + 1);
    expect(actualCost(schema, 'query { order(id: "gid://shopify/Order/1") { id } }', { order: null })).toBe(0);
  });
});

describe('the bucket', () => {
  it('refills at the restore rate up to its maximum, on the injected clock', () => {
    const clock = manualClock();
    const b = new CostBucket({ maximumAvailable: 100, restoreRate: 25 }, clock.now);
    expect(b.take(100)).toBe(true);
    expect(b.status().currentlyAvailable).toBe(0);
    expect(b.take(10)).toBe(false);
    clock.advance(400);
    expect(b.take(10)).toBe(true);
    clock.advance(60_000);
    expect(b.status().currentlyAvailable).toBe(100);
    expect(b.throttled).toBe(1);
    expect(b.deepestOverdraw).toBe(10);
  });

  it('plans: standard 100/s, Advanced 200/s, Plus 1,000/s; the bucket holds 20 s of restore', () => {
    expect(PLANS.standard).toEqual({ restoreRate: 100, maximumAvailable: 2000 });
    expect(PLANS.advanced.restoreRate).toBe(200);
    expect(PLANS.plus).toEqual({ restoreRate: 1000, maximumAvailable: 20000 });
  });
});

describe('answers through handleAdminGraphql', () => {
  function shopWithOrder(limits = { maximumAvailable: 100, restoreRate: 25 }) {
    const clock = manualClock();
    const shop = new SimShop('cost.myshopify.com', TOKEN, undefined, clock.now);
    shop.bucket.setLimits(limits);
    shop.bucket.available = limits.maximumAvailable;
    const order = shop.addOrder({ id: 5001, name: '#5001', currency: 'ZAR', line_items: [{ id: 1, quantity: 1 }, { id: 2, quantity: 2 }], shipping_lines: [] });
    return { shop, clock, order };
  }
  const read = (id: string) => ({ query: ops.ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH, variables: { id: `gid://shopify/Order/${id}` } });

  it('every answer carries requested and actual cost and the true throttleStatus; the difference is refunded', () => {
    const { shop, order } = shopWithOrder({ maximumAvailable: 2000, restoreRate: 100 });
    const r = handleAdminGraphql(shop, TOKEN, read(order.id)) as { status: number; body: any };
    expect(answerProblems(ops.ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH, read(order.id).variables, r.body.data)).toEqual([]);
    const c = r.body.extensions.cost;
    expect(c.requestedQueryCost).toBe(requestedCost(schema, ops.ORDER_FULFILLMENT_ORDERS_FOR_DISPATCH));
    // order 1 + connection 2 + one fulfillment order (1, deliveryMethod 1, assignedLocation 1, location 1); no line items, whatever their number
    expect(c.actualQueryCost).toBe(1 + 2 + (1 + 1 + 1 + 1));
    expect(c.throttleStatus).toEqual({ maximumAvailable: 2000, currentlyAvailable: 2000 - c.actualQueryCost, restoreRate: 100 });
  });

  it('THROTTLED when the bucket cannot pay the requested cost; nothing runs, nothing is taken; it refills', () => {
    const { shop, clock } = shopWithOrder({ maximumAvailable: 100, restoreRate: 25 });
    const tag = (n: number) => ({ query: ops.METAFIELDS_SET, variables: { metafields: [{ ownerId: 'gid://shopify/Order/5001', namespace: ops.METAFIELD_NAMESPACE, key: 'status', type: 'single_line_text_field', value: `t${n}` }] } });
    for (let i = 0; i < 10; i++) expect((handleAdminGraphql(shop, TOKEN, tag(i)).body as any).data.metafieldsSet.userErrors).toEqual([]);
    const refused = handleAdminGraphql(shop, TOKEN, tag(10)).body as any;
    expect(refused.data).toBeUndefined();
    expect(refused.errors).toEqual([{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }]);
    expect(refused.extensions.cost).toEqual({ requestedQueryCost: 10, actualQueryCost: null, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 0, restoreRate: 25 } });
    expect(shop.order('5001')!.metafields[`${ops.METAFIELD_NAMESPACE}.status`]!.value).toBe('t9');
    clock.advance(400); // 10 points back at 25/s
    const ok = handleAdminGraphql(shop, TOKEN, tag(11)).body as any;
    expect(answerProblems(ops.METAFIELDS_SET, tag(11).variables, ok.data)).toEqual([]);
    expect(ok.extensions.cost.throttleStatus.currentlyAvailable).toBe(0);
    expect(shop.bucket.throttled).toBe(1);
  });

  it('MAX_COST_EXCEEDED over 1,000 points, before anything is taken', () => {
    const { shop } = shopWithOrder({ maximumAvailable: 2000, restoreRate: 100 });
    shop.log.length = 0;
    const q = 'query OrderFulfillmentOrders($id: ID!) { order(id: $id) { id fulfillmentOrders(first: 20) { nodes { id lineItems(first: 100) { nodes { id } } } } } }';
    const r = handleAdminGraphql(shop, TOKEN, { query: q, variables: { id: 'gid://shopify/Order/5001' } }).body as any;
    expect(r.errors[0].extensions).toEqual({ code: 'MAX_COST_EXCEEDED', cost: 1 + 2 + 20 * (1 + 2 + 100), maxCost: 1000 });
    expect(r.errors[0].message).toMatch(/^Query cost is 2063, which exceeds the single query max cost limit \(1000\)/);
    expect(r.data).toBeUndefined();
    expect(r.extensions.cost.throttleStatus.currentlyAvailable).toBe(2000);
  });
});

describe('the costs the app declares for its pacer (web/shopify/operation-costs.ts)', () => {
  it('equal Shopify\'s calculation for every operation in operations.ts', () => {
    const calculated = Object.fromEntries(
      (Object.values(ops) as unknown[]).flat()
        .filter((v): v is string => typeof v === 'string' && /^\s*(query|mutation)\s/.test(v))
        .map((q) => [(parse(q).definitions[0] as OperationDefinitionNode).name!.value, requestedCost(schema, q, {})]),
    );
    expect(OPERATION_COST).toEqual(calculated);
  });
});
