// The delivery page's timeline in words (web/frontend/src/timeline.ts): each
// step once, Shopify's mirror of a courier status as a mark on that step, and
// every key it gives in the admin catalogue.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COURIER_WORDS, courierWords, stepWords, timelineSteps } from '../../web/frontend/src/timeline.ts';
import type { TimelineEvent } from '../../web/admin/contract.ts';

const en: Record<string, string> = JSON.parse(readFileSync(join(import.meta.dirname, '../../web/i18n/messages/admin/en.json'), 'utf8'));

let n = 0;
const ev = (kind: string, more: Partial<TimelineEvent> = {}): TimelineEvent => ({
  id: `e${++n}`,
  kind,
  status: null,
  message: null,
  source: 'app',
  applied: true,
  occurredAt: `2026-11-20T10:${String(n).padStart(2, '0')}:00.000Z`,
  receivedAt: `2026-11-20T10:${String(n).padStart(2, '0')}:00.000Z`,
  ...more,
});

const summary = (events: TimelineEvent[]) => timelineSteps(events).map((s) => [s.key, s.inShopify, s.applied, s.detail]);

describe('timelineSteps', () => {
  it('a delivered order: one line per step, the Shopify events as marks on the courier steps they mirror', () => {
    const events = [
      ev('received', { source: 'shopify', message: 'Order #1001 paid' }),
      ev('created', { status: 'validated', source: 'courier', message: 'Courier order o1 created: job j1, 79.50 ZAR' }),
      ev('writeback', { source: 'shopify', message: 'Shopify order updated: delivery metafields and tag' }),
      ev('courier_status', { status: 'driver_assigned', source: 'courier' }),
      ev('fulfilled', { source: 'shopify', message: 'Shopify fulfillment created with tracking number j1' }),
      ev('shopify_event', { status: 'CONFIRMED', source: 'shopify', message: 'Shopify fulfillment event CONFIRMED (courier: driver_assigned)' }),
      ev('courier_status', { status: 'picked_up', source: 'courier' }),
      ev('shopify_event', { status: 'CARRIER_PICKED_UP', source: 'shopify' }),
      ev('courier_status', { status: 'delivered', source: 'courier' }),
      ev('shopify_event', { status: 'DELIVERED', source: 'shopify' }),
    ];
    expect(summary(events)).toEqual([
      ['timeline.received', false, true, null],
      ['timeline.created', false, true, null],
      ['timeline.writeback', false, true, null],
      ['courier.driver_assigned', true, true, null],
      ['timeline.fulfilled', false, true, null],
      ['courier.picked_up', true, true, null],
      ['courier.delivered', true, true, null],
    ]);
    expect(timelineSteps(events).at(-1)!.tone).toBe('success');
  });

  it('a repeated courier status is one step; the same status after a new booking is a new step', () => {
    const events = [
      ev('courier_status', { status: 'in_transit' }),
      ev('courier_status', { status: 'in_transit', source: 'reconcile' }),
      ev('requeued', { source: 'merchant', message: 'Re-dispatched' }),
      ev('courier_status', { status: 'in_transit' }),
    ];
    expect(summary(events)).toEqual([
      ['courier.in_transit', false, true, null],
      ['timeline.requeued', false, true, 'Re-dispatched'],
      ['courier.in_transit', false, true, null],
    ]);
  });

  it('a late status is its own step, marked not applied', () => {
    const events = [ev('courier_status', { status: 'delivered' }), ev('courier_status', { status: 'in_transit', applied: false })];
    expect(summary(events)).toEqual([
      ['courier.delivered', false, true, null],
      ['courier.in_transit', false, false, null],
    ]);
  });

  it('a Shopify event with no courier step before it stands alone', () => {
    expect(summary([ev('shopify_event', { status: 'IN_TRANSIT' })])).toEqual([['timeline.shopify_event', true, true, null]]);
  });

  it.each([
    ['attention', "Phone '0825' is not a valid ZA number", 'warning'],
    ['failed', 'Courier could not be reached after every retry', 'critical'],
    ['skipped', "Shipping method 'Local Pickup' is not one of your same-day methods", null],
    ['shopify_cancelled', 'Order cancelled in Shopify', 'critical'],
  ] as const)('%s keeps its message as the detail', (kind, message, tone) => {
    const [step] = timelineSteps([ev(kind, { message })]);
    expect(step).toMatchObject({ key: `timeline.${kind}`, detail: message, tone });
  });

  it('words for what it does not know: the kind named, its message kept', () => {
    expect(timelineSteps([ev('something_new', { message: 'x' })])[0]).toMatchObject({ key: 'timeline.other', values: { kind: 'something new' }, detail: 'x' });
  });

  it('a merchant dispatch is said as such', () => {
    expect(stepWords(ev('received', { source: 'merchant' }))).toEqual({ key: 'timeline.received.merchant', values: {} });
  });
});

describe('courierWords', () => {
  it.each([
    ['driver_assigned', 'courier.driver_assigned'],
    ['COURIER_ASSIGNED', 'courier.driver_assigned'],
    ['collected', 'courier.picked_up'],
    ['validated', 'courier.registered'],
    ['canceled', 'courier.cancelled'],
  ])('%s → %s', (status, key) => {
    expect(courierWords(status)).toEqual({ key, values: {} });
  });

  it('an unknown status is named as the courier sent it', () => {
    expect(courierWords('teleported')).toEqual({ key: 'courier.other', values: { status: 'teleported' } });
    expect(courierWords(null)).toEqual({ key: 'courier.other', values: { status: '' } });
  });
});

describe('every key the timeline gives is in the catalogue', () => {
  const kinds = ['received', 'skipped', 'created', 'writeback', 'writeback_failed', 'fulfilled', 'attention', 'failed', 'requeued', 'geocoded', 'location_moved', 'adopted', 'shopify_cancelled', 'address_changed', 'address_updated', 'address_change_resolved', 'duplicates_resolved', 'duplicate_orders', 'reference_check', 'event_attached', 'routing_complete', 'scheduled', 'window_opened', 'shopify_event', 'unknown_kind'];
  it.each(kinds)('%s', (kind) => {
    for (const source of ['app', 'merchant']) {
      const step = timelineSteps([ev(kind, { source })])[0]!;
      expect(en, step.key).toHaveProperty([step.key]);
    }
  });
  it('every courier status word', () => {
    for (const status of Object.keys(COURIER_WORDS)) expect(en).toHaveProperty([courierWords(status).key]);
    expect(en).toHaveProperty(['courier.other']);
  });
});
