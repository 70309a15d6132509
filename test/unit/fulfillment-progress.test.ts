import { describe, expect, it } from 'vitest';
import { decideEvent, planSync, rankOf, shopifyEventFor, type CurrentProgress, type SyncInput } from '../../web/lifecycle/progress.ts';

const at = (status: CurrentProgress['status'], courierStatus: string | null = null): CurrentProgress => ({
  status,
  courierStatus,
  courierStatusRank: courierStatus ? rankOf(courierStatus)! : 0,
});

describe('decideEvent', () => {
  it.each<[string, CurrentProgress, string, Partial<ReturnType<typeof decideEvent>>]>([
    ['first status moves CREATED to IN_PROGRESS', at('CREATED'), 'driver_assigned', { apply: true, status: 'IN_PROGRESS', rank: 20 }],
    ['a later status applies', at('IN_PROGRESS', 'driver_assigned'), 'in_transit', { apply: true, status: 'IN_PROGRESS', courierStatus: 'in_transit' }],
    ['delivered ends DELIVERED', at('IN_PROGRESS', 'out_for_delivery'), 'delivered', { apply: true, status: 'DELIVERED', rank: 100 }],
    ['a synonym is ranked like its twin', at('IN_PROGRESS', 'driver_assigned'), 'Collected', { apply: true, courierStatus: 'collected', rank: 30 }],
    ['a late lower status is not applied', at('IN_PROGRESS', 'in_transit'), 'picked_up', { apply: false, why: 'stale' }],
    ['the same status again is a duplicate', at('IN_PROGRESS', 'in_transit'), 'in_transit', { apply: false, why: 'duplicate' }],
    ['a synonym of the current step is a duplicate', at('IN_PROGRESS', 'picked_up'), 'collected', { apply: false, why: 'duplicate' }],
    ['nothing moves after delivered', at('DELIVERED', 'delivered'), 'failed', { apply: false, why: 'after_terminal' }],
    ['nothing moves after failed', at('NEEDS_ATTENTION', 'failed'), 'delivered', { apply: false, why: 'after_terminal' }],
    ['an unknown status is not applied', at('IN_PROGRESS', 'driver_assigned'), 'teleported', { apply: false, why: 'unknown_status' }],
    ['failed needs attention', at('IN_PROGRESS', 'picked_up'), 'failed', { apply: true, status: 'NEEDS_ATTENTION', attention: expect.objectContaining({ code: 'courier_failed' }) }],
    ['cancelled needs attention', at('CREATED'), 'cancelled', { apply: true, status: 'NEEDS_ATTENTION', attention: expect.objectContaining({ code: 'courier_cancelled' }) }],
    ['a Shopify-cancelled delivery stays flagged', at('CANCEL_REQUESTED_IN_SHOPIFY', 'driver_assigned'), 'cancelled', { apply: true, status: 'CANCEL_REQUESTED_IN_SHOPIFY', attention: null }],
  ])('%s', (_name, current, incoming, expected) => {
    expect(decideEvent(current, incoming)).toMatchObject(expected);
  });
});

describe('shopifyEventFor', () => {
  it.each([
    ['driver_assigned', 'CONFIRMED'], ['picked_up', 'CARRIER_PICKED_UP'], ['collected', 'CARRIER_PICKED_UP'], ['in_transit', 'IN_TRANSIT'],
    ['out_for_delivery', 'OUT_FOR_DELIVERY'], ['arriving', 'OUT_FOR_DELIVERY'], ['delivered', 'DELIVERED'], ['completed', 'DELIVERED'],
    ['attempted', 'ATTEMPTED_DELIVERY'], ['delivery_attempted', 'ATTEMPTED_DELIVERY'], ['delayed', 'DELAYED'], ['failed', 'FAILURE'],
    ['cancelled', 'FAILURE'], ['returned', 'FAILURE'], ['accepted', null], ['teleported', null],
  ])('%s → %s', (status, event) => expect(shopifyEventFor(status)).toBe(event));

  it('a shop override wins', () => expect(shopifyEventFor('accepted', { accepted: 'CONFIRMED' })).toBe('CONFIRMED'));
});

describe('planSync', () => {
  const t = (m: number) => new Date(Date.UTC(2026, 10, 22, 10, m));
  const base: SyncInput = { booked: true, courierStatus: null, courierStatusRank: 0, fulfillmentId: null, shopifyRank: 0, history: [], trigger: 'driver_assigned', mapping: {} };
  const hist = (...s: string[]) => s.map((status, i) => ({ status, rank: rankOf(status)!, occurredAt: t(i) }));

  it('creates nothing before the trigger', () => {
    expect(planSync({ ...base, courierStatus: 'accepted', courierStatusRank: 10, history: hist('accepted') })).toEqual({ createFulfillment: false, updateTracking: false, events: [] });
  });

  it('creates the fulfillment at driver_assigned; its CONFIRMED event, not one a customer sees, is coalesced', () => {
    const p = planSync({ ...base, courierStatus: 'driver_assigned', courierStatusRank: 20, history: hist('accepted', 'driver_assigned') });
    expect(p.createFulfillment).toBe(true);
    expect(p.events.map((e) => e.event)).toEqual([]);
  });

  it('writes only the visible events above the watermark, in rank order, whatever order events arrived in', () => {
    const history = [
      { status: 'delivered', rank: 100, occurredAt: t(4) },
      { status: 'in_transit', rank: 40, occurredAt: t(3) },
      { status: 'out_for_delivery', rank: 50, occurredAt: t(3) },
      { status: 'driver_assigned', rank: 20, occurredAt: t(1) },
      { status: 'picked_up', rank: 30, occurredAt: t(2) },
    ];
    const p = planSync({ ...base, fulfillmentId: 'gid://shopify/Fulfillment/1', shopifyRank: 20, courierStatus: 'delivered', courierStatusRank: 100, history });
    expect(p).toEqual({
      createFulfillment: false,
      updateTracking: false,
      events: [
        { courierStatus: 'out_for_delivery', rank: 50, event: 'OUT_FOR_DELIVERY', happenedAt: t(3) },
        { courierStatus: 'delivered', rank: 100, event: 'DELIVERED', happenedAt: t(4) },
      ],
    });
  });

  it.each([
    ['CONFIRMED', 'driver_assigned'], ['CARRIER_PICKED_UP', 'picked_up'], ['IN_TRANSIT', 'in_transit'], ['DELAYED', 'delayed'],
  ])('an intermediate event (%s) is never a Shopify call of its own', (_event, status) => {
    const p = planSync({ ...base, fulfillmentId: 'f', shopifyRank: 10, courierStatus: status, courierStatusRank: rankOf(status)!, history: hist(status) });
    expect(p.events).toEqual([]);
  });

  it.each([
    ['OUT_FOR_DELIVERY', 'out_for_delivery'], ['ATTEMPTED_DELIVERY', 'attempted'], ['DELIVERED', 'delivered'], ['FAILURE', 'failed'],
  ])('a visible event (%s) is written', (event, status) => {
    const p = planSync({ ...base, fulfillmentId: 'f', shopifyRank: 10, courierStatus: status, courierStatusRank: rankOf(status)!, history: hist(status) });
    expect(p.events.map((e) => e.event)).toEqual([event]);
  });

  it('trigger delivered: the fulfillment and the whole history at once', () => {
    const p = planSync({ ...base, trigger: 'delivered', courierStatus: 'delivered', courierStatusRank: 100, history: hist('driver_assigned', 'picked_up', 'delivered') });
    expect(p.createFulfillment).toBe(true);
    expect(p.events.map((e) => e.event)).toEqual(['DELIVERED']);
  });

  it('trigger accepted: the fulfillment as soon as the courier order exists', () => {
    expect(planSync({ ...base, trigger: 'accepted' }).createFulfillment).toBe(true);
    expect(planSync({ ...base, trigger: 'accepted', booked: false }).createFulfillment).toBe(false);
  });

  it('never fulfils a delivery that failed before the trigger; reports FAILURE on one already fulfilled', () => {
    expect(planSync({ ...base, courierStatus: 'failed', courierStatusRank: 100, history: hist('accepted', 'failed') })).toEqual({ createFulfillment: false, updateTracking: false, events: [] });
    const p = planSync({ ...base, fulfillmentId: 'f', shopifyRank: 30, courierStatus: 'failed', courierStatusRank: 100, history: hist('driver_assigned', 'picked_up', 'failed') });
    expect(p.events.map((e) => e.event)).toEqual(['FAILURE']);
  });

  // After a re-dispatch: the fulfillment exists (kept), its tracking is the earlier booking's, the watermark starts again.
  describe('re-dispatch: the existing fulfillment takes the new booking', () => {
    const again: SyncInput = { ...base, fulfillmentId: 'f', trackingCurrent: false, shopifyRank: 0 };
    it.each([
      ['before the trigger: nothing, not even events', { courierStatus: 'accepted', courierStatusRank: 10, history: hist('accepted') }, false, []],
      ['at the trigger: the tracking moves, then the new visible events', { courierStatus: 'out_for_delivery', courierStatusRank: 50, history: hist('accepted', 'driver_assigned', 'out_for_delivery') }, true, ['OUT_FOR_DELIVERY']],
      ['the new booking failed before the trigger: nothing', { courierStatus: 'failed', courierStatusRank: 100, history: hist('accepted', 'failed') }, false, []],
      ['trigger delivered, delivered: tracking and the whole new history', { trigger: 'delivered', courierStatus: 'delivered', courierStatusRank: 100, history: hist('picked_up', 'delivered') }, true, ['DELIVERED']],
      ['not booked yet: nothing', { booked: false }, false, []],
    ] as Array<[string, Partial<SyncInput>, boolean, string[]]>)('%s', (_, input, update, events) => {
      const p = planSync({ ...again, ...input });
      expect(p.createFulfillment).toBe(false);
      expect(p.updateTracking).toBe(update);
      expect(p.events.map((e) => e.event)).toEqual(events);
    });
    it('once the tracking is current, only events above the watermark, and no second update', () => {
      const p = planSync({ ...again, trackingCurrent: true, shopifyRank: 50, courierStatus: 'delivered', courierStatusRank: 100, history: hist('out_for_delivery', 'delivered') });
      expect(p).toMatchObject({ createFulfillment: false, updateTracking: false });
      expect(p.events.map((e) => e.event)).toEqual(['DELIVERED']);
    });
    it('no fulfillment yet (the fallback cleared it): created as on a first booking', () => {
      const p = planSync({ ...again, fulfillmentId: null, courierStatus: 'driver_assigned', courierStatusRank: 20, history: hist('driver_assigned') });
      expect(p).toMatchObject({ createFulfillment: true, updateTracking: false });
    });
  });

  it('skips statuses without a mapping but still advances past them', () => {
    const p = planSync({ ...base, fulfillmentId: 'f', shopifyRank: 20, courierStatus: 'at_pickup', courierStatusRank: 25, history: hist('driver_assigned', 'at_pickup') });
    expect(p.events).toEqual([]);
  });
});
