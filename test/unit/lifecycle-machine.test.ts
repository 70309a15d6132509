// The delivery lifecycle table (web/lifecycle/machine.ts), checked against an
// independent copy written out here: every (state, event) pair, legal or not.
import { describe, expect, it } from 'vitest';
import {
  allowedActions, BOOKED, decide, DELIVERY_STATUSES, factsOf, liveTestOrder, MERCHANT_ACTIONS, newGeneration, nextStatus, statesFor, TRANSITIONS,
  type CurrentRow, type DeliveryStatus, type Facts, type LifecycleEvent,
} from '../../web/lifecycle/machine.ts';

type From = DeliveryStatus | 'NEW';
const STATES: From[] = ['NEW', ...DELIVERY_STATUSES];
const EVERY = (to: DeliveryStatus | 'SAME'): Partial<Record<From, DeliveryStatus>> =>
  Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, to === 'SAME' ? s : to]));

// With plain facts (no reason code, no courier order, nothing sent): where each event leads from each state.
// A state missing from an event's entry is an illegal transition.
const LEGAL: Record<LifecycleEvent, Partial<Record<From, DeliveryStatus>>> = {
  received: { NEW: 'PENDING' },
  received_skipped: { NEW: 'SKIPPED' },
  recorded_by_merchant: { NEW: 'PENDING' },
  needs_attention: { PENDING: 'NEEDS_ATTENTION' },
  booking_failed: { PENDING: 'FAILED' },
  dispatch_skipped: { PENDING: 'SKIPPED' },
  booked: { ...EVERY('SAME'), PENDING: 'CREATED' },
  shopify_cancelled: {
    DELIVERED: 'DELIVERED', CANCEL_REQUESTED_IN_SHOPIFY: 'CANCEL_REQUESTED_IN_SHOPIFY',
    CREATED: 'CANCEL_REQUESTED_IN_SHOPIFY', IN_PROGRESS: 'CANCEL_REQUESTED_IN_SHOPIFY',
    PENDING: 'SKIPPED', NEEDS_ATTENTION: 'SKIPPED', FAILED: 'SKIPPED', SKIPPED: 'SKIPPED', SCHEDULED: 'SKIPPED',
  },
  courier_acknowledged: EVERY('SAME'),
  courier_moving: { ...EVERY('SAME'), PENDING: 'IN_PROGRESS', CREATED: 'IN_PROGRESS' },
  courier_delivered: EVERY('DELIVERED'),
  courier_failed: { ...EVERY('NEEDS_ATTENTION'), CANCEL_REQUESTED_IN_SHOPIFY: 'CANCEL_REQUESTED_IN_SHOPIFY' },
  shopify_refused: { CREATED: 'NEEDS_ATTENTION', IN_PROGRESS: 'NEEDS_ATTENTION', DELIVERED: 'NEEDS_ATTENTION', CANCEL_REQUESTED_IN_SHOPIFY: 'NEEDS_ATTENTION', NEEDS_ATTENTION: 'NEEDS_ATTENTION' },
  shopify_address_changed: EVERY('SAME'),
  shopify_address_updated: { NEEDS_ATTENTION: 'PENDING' },
  dispatch: { SKIPPED: 'PENDING', SCHEDULED: 'PENDING' },
  window_closed: { PENDING: 'SCHEDULED', SCHEDULED: 'SCHEDULED' },
  window_opened: { SCHEDULED: 'PENDING' },
  slot_scheduled: { PENDING: 'SCHEDULED' },
  retry: { FAILED: 'PENDING', NEEDS_ATTENTION: 'PENDING' },
  fix: { NEEDS_ATTENTION: 'PENDING', FAILED: 'PENDING', SKIPPED: 'PENDING' },
  redispatch: { SKIPPED: 'PENDING', NEEDS_ATTENTION: 'PENDING', FAILED: 'PENDING' },
  check: { CREATED: 'CREATED', IN_PROGRESS: 'IN_PROGRESS', CANCEL_REQUESTED_IN_SHOPIFY: 'CANCEL_REQUESTED_IN_SHOPIFY' },
  resolve: {},
};

const EFFECTS: Record<LifecycleEvent, string[]> = {
  received: ['dispatch'], received_skipped: [], recorded_by_merchant: ['dispatch'], needs_attention: [], booking_failed: [], booked: ['writeback'],
  shopify_cancelled: [], courier_acknowledged: [], courier_moving: [], courier_delivered: [], courier_failed: [], shopify_refused: [],
  shopify_address_changed: [], shopify_address_updated: ['dispatch'],
  dispatch: ['dispatch'], retry: ['dispatch'], fix: ['dispatch'], redispatch: ['dispatch'], check: [], resolve: [],
  dispatch_skipped: [], window_closed: [], window_opened: [], slot_scheduled: [],
};

const plain = (status: From, more: Partial<Facts> = {}): Facts => ({ status, reasonCode: null, courierOrder: false, sent: false, ...more });
const EVENTS = Object.keys(LEGAL) as LifecycleEvent[];

describe('every (state, event) pair, plain facts', () => {
  const cases = EVENTS.flatMap((event) => STATES.map((state) => [event, state, LEGAL[event][state] ?? null] as const));
  it('covers every event of the table', () => {
    expect(new Set(TRANSITIONS.map((r) => r.event))).toEqual(new Set(EVENTS));
  });
  it.each(cases)('%s from %s → %s', (event, state, to) => {
    const d = decide(plain(state), event);
    expect(nextStatus(plain(state), event)).toBe(to);
    if (to === null) {
      expect(d).toMatchObject({ ok: false, from: state, event });
      expect(d.ok || d.message).toMatch(/\S/);
    } else {
      expect(d).toMatchObject({ ok: true, from: state, to });
      if (d.ok) expect(d.row.effects).toEqual(EFFECTS[event]);
    }
  });
});

describe('guards', () => {
  it.each<[string, Facts, LifecycleEvent, DeliveryStatus | null, string[]?]>([
    ['a booking that lands after a Shopify cancel is flagged', plain('SKIPPED', { reasonCode: 'cancelled' }), 'booked', 'CANCEL_REQUESTED_IN_SHOPIFY', ['writeback']],
    ['a booking on another skipped delivery keeps its status', plain('SKIPPED', { reasonCode: 'shipping_method' }), 'booked', 'SKIPPED'],
    ['a second cancel of a cancelled order changes nothing', plain('SKIPPED', { reasonCode: 'cancelled' }), 'shopify_cancelled', 'SKIPPED'],
    ['even with a courier order', plain('SKIPPED', { reasonCode: 'cancelled', courierOrder: true }), 'shopify_cancelled', 'SKIPPED'],
    ['a cancel of a booked attention delivery asks the merchant to cancel with the courier', plain('NEEDS_ATTENTION', { courierOrder: true }), 'shopify_cancelled', 'CANCEL_REQUESTED_IN_SHOPIFY'],
    ['likewise for a queued one holding a courier order', plain('PENDING', { courierOrder: true }), 'shopify_cancelled', 'CANCEL_REQUESTED_IN_SHOPIFY'],
    ['likewise for a failed one', plain('FAILED', { courierOrder: true }), 'shopify_cancelled', 'CANCEL_REQUESTED_IN_SHOPIFY'],
    ['likewise for a skipped one', plain('SKIPPED', { reasonCode: 'country', courierOrder: true }), 'shopify_cancelled', 'CANCEL_REQUESTED_IN_SHOPIFY'],
    ['a sent order is no courier order', plain('NEEDS_ATTENTION', { sent: true }), 'shopify_cancelled', 'SKIPPED'],
    ['retry after a Shopify refusal: back to CREATED', plain('NEEDS_ATTENTION', { reasonCode: 'shopify_error', courierOrder: true }), 'retry', 'CREATED', ['sync']],
    ['… to CREATED when only booked', plain('NEEDS_ATTENTION', { reasonCode: 'shopify_error', courierOrder: true, courierProgress: 'booked' }), 'retry', 'CREATED', ['sync']],
    ['… to IN_PROGRESS when moving', plain('NEEDS_ATTENTION', { reasonCode: 'shopify_error', courierOrder: true, courierProgress: 'moving' }), 'retry', 'IN_PROGRESS', ['sync']],
    ['… to DELIVERED when delivered', plain('NEEDS_ATTENTION', { reasonCode: 'shopify_error', courierOrder: true, courierProgress: 'delivered' }), 'retry', 'DELIVERED', ['sync']],
    ['a Shopify refusal without a courier order is retried by booking', plain('NEEDS_ATTENTION', { reasonCode: 'shopify_error' }), 'retry', 'PENDING', ['dispatch']],
    ['another reason with a courier order is retried by booking', plain('NEEDS_ATTENTION', { reasonCode: 'courier_failed', courierOrder: true }), 'retry', 'PENDING', ['dispatch']],
    ['a failed one with a Shopify error code is resent', plain('FAILED', { reasonCode: 'shopify_error', courierOrder: true }), 'retry', 'PENDING', ['dispatch']],
    ...STATES.filter((s) => s !== 'NEW').map((s) => [`duplicates can be resolved from ${s}`, plain(s, { reasonCode: 'duplicate_courier_orders' }), 'resolve', s, []] as [string, Facts, LifecycleEvent, DeliveryStatus, string[]]),
    ['nothing to resolve on a new delivery', plain('NEW', { reasonCode: 'duplicate_courier_orders' }), 'resolve', null],
    ...STATES.filter((s) => s !== 'NEW').map((s) => [`an address flag can be resolved from ${s}`, plain(s, { reasonCode: 'address_changed' }), 'resolve', s, []] as [string, Facts, LifecycleEvent, DeliveryStatus, string[]]),
    ['no address flag to resolve on a new delivery', plain('NEW', { reasonCode: 'address_changed' }), 'resolve', null],
    ['an address edit never moves a booked delivery', plain('IN_PROGRESS', { reasonCode: 'address_changed', courierOrder: true }), 'shopify_address_changed', 'IN_PROGRESS', []],
    ['an address edit re-queues an attention delivery', plain('NEEDS_ATTENTION', { reasonCode: 'missing_coordinates' }), 'shopify_address_updated', 'PENDING', ['dispatch']],
  ])('%s', (_name, facts, event, to, effects) => {
    const d = decide(facts, event);
    expect(nextStatus(facts, event)).toBe(to);
    if (d.ok && effects) expect(d.row.effects).toEqual(effects);
  });
});

describe('allowedActions: what the UI shows and the API and CLI accept', () => {
  it.each<[string, Facts, string[]]>([
    ['queued', plain('PENDING'), []],
    // Decided in issue 15: a skipped order the merchant now wants couriered can be re-dispatched (as in service.ts before).
    ['skipped', plain('SKIPPED'), ['dispatch', 'fix', 'redispatch']],
    ['needs attention', plain('NEEDS_ATTENTION'), ['retry', 'fix', 'redispatch']],
    ['failed', plain('FAILED'), ['retry', 'fix', 'redispatch']],
    ['Shopify refused', plain('NEEDS_ATTENTION', { reasonCode: 'shopify_error', courierOrder: true }), ['retry', 'fix', 'redispatch']],
    ['created', plain('CREATED'), ['check']],
    ['in progress', plain('IN_PROGRESS'), ['check']],
    ['cancel with courier', plain('CANCEL_REQUESTED_IN_SHOPIFY'), ['check']],
    ['delivered', plain('DELIVERED'), []],
    // Outside the delivery window: the merchant may dispatch it now anyway.
    ['scheduled', plain('SCHEDULED', { reasonCode: 'outside_window' }), ['dispatch']],
    ['created, booked twice', plain('CREATED', { reasonCode: 'duplicate_courier_orders' }), ['check', 'resolve']],
    ['delivered, booked twice', plain('DELIVERED', { reasonCode: 'duplicate_courier_orders' }), ['resolve']],
    ['created, address changed after booking', plain('CREATED', { reasonCode: 'address_changed', courierOrder: true }), ['check', 'resolve']],
    ['new', plain('NEW'), []],
    // Shopify's cancel is final: nothing offers to send it.
    ['skipped as cancelled in Shopify', plain('SKIPPED', { reasonCode: 'cancelled' }), []],
    ['skipped for another reason', plain('SKIPPED', { reasonCode: 'country' }), ['dispatch', 'fix', 'redispatch']],
  ])('%s → %j', (_name, facts, actions) => {
    expect(allowedActions(facts)).toEqual(actions);
  });

  it('lists actions in display order', () => {
    expect(MERCHANT_ACTIONS).toEqual(['dispatch', 'retry', 'fix', 'redispatch', 'check', 'resolve']);
  });
});

describe('refusals name what is allowed', () => {
  it.each<[Facts, LifecycleEvent, string]>([
    [plain('SKIPPED'), 'retry', 'delivery was skipped; use dispatch now to send it'],
    [plain('CREATED'), 'retry', 'delivery is CREATED; nothing to retry'],
    [plain('PENDING'), 'retry', 'delivery is PENDING; nothing to retry'],
    [plain('DELIVERED'), 'fix', 'delivery is DELIVERED; it cannot be changed now'],
    [plain('CREATED'), 'redispatch', 'delivery is CREATED; only skipped, attention or failed deliveries can be re-dispatched'],
    [plain('CREATED'), 'resolve', 'this delivery has no duplicate courier orders to resolve'],
    [plain('CREATED'), 'dispatch', 'delivery is CREATED; dispatch is not possible (only from SKIPPED, SCHEDULED)'],
    [plain('CREATED'), 'needs_attention', 'delivery is CREATED; needs_attention is not possible (only from PENDING)'],
    [plain('PENDING'), 'check', 'delivery is PENDING; check is not possible (only from CREATED, IN_PROGRESS, CANCEL_REQUESTED_IN_SHOPIFY)'],
    [plain('SKIPPED'), 'check', 'delivery is SKIPPED; check is not possible (only from CREATED, IN_PROGRESS, CANCEL_REQUESTED_IN_SHOPIFY)'],
    [plain('SKIPPED'), 'needs_attention', 'delivery is SKIPPED; needs_attention is not possible (only from PENDING)'],
    [plain('SKIPPED', { reasonCode: 'cancelled' }), 'dispatch', 'the order was cancelled in Shopify; it will not be sent'],
    [plain('SKIPPED', { reasonCode: 'cancelled' }), 'retry', 'the order was cancelled in Shopify; it will not be sent'],
    [plain('SKIPPED', { reasonCode: 'cancelled' }), 'fix', 'the order was cancelled in Shopify; it will not be sent'],
    [plain('SKIPPED', { reasonCode: 'cancelled' }), 'redispatch', 'the order was cancelled in Shopify; it will not be sent'],
  ])('%j %s', (facts, event, message) => {
    expect(decide(facts, event)).toEqual({ ok: false, from: facts.status, event, message });
  });
});

describe('re-sending', () => {
  const row = (event: LifecycleEvent, facts: Facts) => {
    const d = decide(facts, event);
    if (!d.ok) throw new Error(d.message);
    return d.row;
  };
  it.each<[LifecycleEvent, Facts, 'resend' | 'rebuild', boolean, boolean]>([
    // event, facts, request, new generation, manual eligibility
    ['retry', plain('FAILED', { sent: true }), 'resend', false, false],
    ['retry', plain('FAILED'), 'resend', false, false],
    ['retry', plain('NEEDS_ATTENTION', { sent: true }), 'rebuild', true, false],
    ['retry', plain('NEEDS_ATTENTION'), 'rebuild', false, false],
    ['fix', plain('FAILED', { sent: true }), 'rebuild', true, false],
    ['fix', plain('SKIPPED'), 'rebuild', false, false],
    ['redispatch', plain('NEEDS_ATTENTION', { sent: true }), 'rebuild', true, false],
    ['redispatch', plain('FAILED'), 'rebuild', false, false],
    ['redispatch', plain('SKIPPED'), 'rebuild', false, true],
    ['dispatch', plain('SKIPPED'), 'rebuild', false, true],
    ['shopify_address_updated', plain('NEEDS_ATTENTION'), 'rebuild', false, false],
    ['shopify_address_updated', plain('NEEDS_ATTENTION', { sent: true }), 'rebuild', true, false],
  ])('%s %j', (event, facts, request, fresh, manual) => {
    const r = row(event, facts);
    expect(r.request).toBe(request);
    expect(newGeneration(r, facts)).toBe(fresh);
    expect(r.manualEligibility === true).toBe(manual);
  });

  it('a status change that books nothing has no request policy and never a new generation', () => {
    const r = row('courier_failed', plain('CREATED', { sent: true }));
    expect(r.request).toBeUndefined();
    expect(newGeneration(r, plain('CREATED', { sent: true }))).toBe(false);
  });
});

describe('facts from a stored row', () => {
  const base: CurrentRow = { id: 'd1', status: 'FAILED', generation: 2, reasonCode: 'courier_unavailable', courierOrderId: null, tries: 0 };
  it.each<[string, Partial<CurrentRow>, Partial<Facts>]>([
    ['nothing sent', {}, { status: 'FAILED', reasonCode: 'courier_unavailable', courierOrder: false, sent: false }],
    ['tried once', { tries: 1 }, { courierOrder: false, sent: true }],
    ['booked', { courierOrderId: 'ord_1' }, { courierOrder: true, sent: true }],
  ])('%s', (_name, row, facts) => {
    expect(factsOf({ ...base, ...row })).toMatchObject(facts);
  });
  it('extra facts are added', () => expect(factsOf(base, { courierProgress: 'moving' }).courierProgress).toBe('moving'));
});

describe('the table itself', () => {
  it('reaches every status, and every status is left by some event', () => {
    const reached = new Set(STATES.flatMap((s) => EVENTS.map((e) => nextStatus(plain(s), e))).filter(Boolean));
    expect([...reached].sort()).toEqual([...DELIVERY_STATUSES].sort());
  });
  it('statesFor lists the from-states of an event, each once', () => {
    expect(statesFor('redispatch')).toEqual(['SKIPPED', 'NEEDS_ATTENTION', 'FAILED']);
    expect(statesFor('shopify_refused')).toEqual([...BOOKED, 'NEEDS_ATTENTION']);
    expect(statesFor('received')).toEqual(['NEW']);
  });
  it('a booked delivery is one holding a courier order', () => {
    expect(BOOKED).toEqual(['CREATED', 'IN_PROGRESS', 'DELIVERED', 'CANCEL_REQUESTED_IN_SHOPIFY']);
  });
});

describe('test orders never reach the live courier (one rule: intake, dispatch now and the dispatch job)', () => {
  it.each<[boolean | null | undefined, string | null | undefined, boolean]>([
    [true, 'live', true],
    [true, 'test', false],
    [true, null, false],
    [false, 'live', false],
    [undefined, 'live', false],
    [null, 'live', false],
  ])('test=%s env=%s → refused %s', (test, env, refused) => {
    expect(liveTestOrder(test, env)).toEqual(refused ? { code: 'test_order_live', message: 'Test orders are never sent to the live courier' } : null);
  });
});
