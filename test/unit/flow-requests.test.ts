// What Flow sends, checked field by field, and the lifecycle table's quick
// answer to an action (web/flow/requests.ts).
import { describe, expect, it } from 'vitest';
import { parseActionRequest, parseLifecycleCallback, refusalFor } from '../../web/flow/requests.ts';
import type { CurrentRow } from '../../web/lifecycle/machine.ts';

const action = { shop_id: 1, shopify_domain: 'a.myshopify.com', action_run_id: 'run-1', action_definition_id: 'x', handle: 'dispatch-order', properties: { order_id: '5911' } };

describe('parseActionRequest', () => {
  it('reads the documented body; the order as an id, a number or a GID', () => {
    for (const order_id of ['5911', 5911, 'gid://shopify/Order/5911']) {
      expect(parseActionRequest({ ...action, properties: { order_id } })).toMatchObject({ ok: true, value: { shop: 'a.myshopify.com', actionRunId: 'run-1', orderId: '5911', action: { action: 'dispatch' } } });
    }
    expect(parseActionRequest({ ...action, handle: 'redispatch-order' })).toMatchObject({ ok: true, value: { action: { action: 'redispatch' } } });
  });

  it.each<[unknown, string]>([
    [[], '(body)'],
    [{ ...action, shopify_domain: 'evil.example.com' }, 'shopify_domain'],
    [{ ...action, action_run_id: '' }, 'action_run_id'],
    [{ ...action, action_run_id: 'a b' }, 'action_run_id'],
    [{ ...action, handle: 'cancel-order' }, 'handle'],
    [{ ...action, properties: null }, 'properties'],
    [{ ...action, properties: { order_id: 'gid://shopify/Customer/1' } }, 'properties.order_id'],
    [{ ...action, properties: {} }, 'properties.order_id'],
  ])('%# refuses %j naming %s', (body, field) => {
    expect(parseActionRequest(body)).toMatchObject({ ok: false, field });
  });
});

describe('parseLifecycleCallback', () => {
  const cb = { flow_trigger_definition_id: 'delivery-booked', has_enabled_flow: true, shop_id: 1, shopify_domain: 'A.myshopify.com', timestamp: '2026-11-25T10:00:00.000Z' };
  it('reads the documented body', () => {
    expect(parseLifecycleCallback(cb)).toEqual({ ok: true, value: { shop: 'a.myshopify.com', definitionId: 'delivery-booked', enabled: true, at: new Date('2026-11-25T10:00:00.000Z') } });
  });
  it.each<[Record<string, unknown>, string]>([
    [{ flow_trigger_definition_id: ' ' }, 'flow_trigger_definition_id'],
    [{ has_enabled_flow: 'true' }, 'has_enabled_flow'],
    [{ shopify_domain: 'shop.example' }, 'shopify_domain'],
    [{ timestamp: 'yesterday' }, 'timestamp'],
  ])('refuses %j', (over, field) => {
    expect(parseLifecycleCallback({ ...cb, ...over })).toMatchObject({ ok: false, field });
  });
});

describe('refusalFor: the admin buttons\' rules', () => {
  const row = (status: string, over: Partial<CurrentRow> = {}): CurrentRow => ({ id: 'd', status, generation: 1, reasonCode: null, courierOrderId: null, tries: 0, ...over });
  it.each<[string, 'dispatch' | 'redispatch', CurrentRow | null, number | null, string | null]>([
    ['dispatch of an order the app never received', 'dispatch', null, null, null],
    ['re-dispatch of an order the app never received', 'redispatch', null, 404, null],
    ['dispatch of a skipped order', 'dispatch', row('SKIPPED'), null, null],
    ['dispatch (retry) of a failed one', 'dispatch', row('FAILED', { tries: 1 }), null, null],
    ['dispatch of a booked one', 'dispatch', row('CREATED', { courierOrderId: 'o' }), 409, 'delivery is CREATED; nothing to retry'],
    ['dispatch of one cancelled in Shopify', 'dispatch', row('SKIPPED', { reasonCode: 'cancelled' }), 409, 'the order was cancelled in Shopify; it will not be sent'],
    ['re-dispatch of one needing attention', 'redispatch', row('NEEDS_ATTENTION'), null, null],
    ['re-dispatch of a delivered one', 'redispatch', row('DELIVERED', { courierOrderId: 'o' }), 409, 'delivery is DELIVERED; only skipped, attention or failed deliveries can be re-dispatched'],
  ])('%s', (_what, a, d, status, message) => {
    const r = refusalFor(a, d);
    expect(r?.status ?? null).toBe(status);
    if (message) expect(r?.message).toBe(message);
  });
});
