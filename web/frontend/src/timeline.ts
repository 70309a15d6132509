// A delivery's timeline as the merchant reads it: each step once, in words.
// The stored timeline (web/transitions/timeline.ts) has a line for the courier's
// status and another when Shopify was told of it; here they are one step, with
// a mark that Shopify shows it. Pure (no DOM, no catalogue): it gives message
// keys, table-tested in test/unit/admin-timeline.test.ts.
import type { TimelineEvent } from './types.ts';

export interface Step {
  id: string;
  /** Message key of the step's words (web/i18n/messages/admin/*.json). */
  key: string;
  values: Record<string, string>;
  at: string;
  source: string;
  /** The stored message, where it says what the words cannot (an error, a note, a reason). */
  detail: string | null;
  /** Shopify's order timeline shows this step too. */
  inShopify: boolean;
  /** false: a late courier status, recorded but not applied. */
  applied: boolean;
  tone: 'success' | 'warning' | 'critical' | null;
}

/** Courier statuses (web/lifecycle/progress.ts, synonyms included) → the word for them. */
export const COURIER_WORDS: Record<string, string> = {
  pending: 'registered',
  created: 'registered',
  validated: 'registered',
  accepted: 'accepted',
  confirmed: 'accepted',
  driver_assigned: 'driver_assigned',
  courier_assigned: 'driver_assigned',
  arriving_at_pickup: 'at_pickup',
  at_pickup: 'at_pickup',
  picked_up: 'picked_up',
  collected: 'picked_up',
  in_transit: 'in_transit',
  delayed: 'delayed',
  out_for_delivery: 'out_for_delivery',
  arriving: 'out_for_delivery',
  attempted: 'attempted',
  delivery_attempted: 'attempted',
  delivered: 'delivered',
  completed: 'delivered',
  failed: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  returned: 'returned',
};

/** The message key and values for a courier status; an unknown one is named as the courier sent it. */
export function courierWords(status: string | null): { key: string; values: Record<string, string> } {
  const word = status ? COURIER_WORDS[status.toLowerCase()] : undefined;
  return word ? { key: `courier.${word}`, values: {} } : { key: 'courier.other', values: { status: status ?? '' } };
}

/** Kinds whose stored message is the point (why it stopped, what the merchant noted); the rest say it in words. */
const DETAILED = new Set([
  'skipped', 'attention', 'failed', 'requeued', 'geocoded', 'location_moved', 'adopted', 'shopify_cancelled', 'address_changed',
  'address_updated', 'address_change_resolved', 'duplicates_resolved', 'duplicate_orders', 'reference_check', 'event_attached',
  'writeback_failed', 'scheduled', 'slot_scheduled', 'slot_declined',
]);

const TONES: Record<string, Step['tone']> = { attention: 'warning', failed: 'critical', writeback_failed: 'warning', shopify_cancelled: 'critical', duplicate_orders: 'critical', address_changed: 'warning', slot_declined: 'warning' };
const WORDED = new Set([
  'received', 'skipped', 'created', 'writeback', 'writeback_failed', 'fulfilled', 'attention', 'failed', 'requeued', 'geocoded', 'location_moved',
  'adopted', 'shopify_cancelled', 'address_changed', 'address_updated', 'address_change_resolved', 'duplicates_resolved', 'duplicate_orders',
  'reference_check', 'event_attached', 'routing_complete', 'scheduled', 'window_opened', 'slot_scheduled', 'slot_declined',
]);

/** One stored event in words (the deliveries list shows the latest). */
export function stepWords(e: TimelineEvent): { key: string; values: Record<string, string> } {
  const s = stepOf(e);
  return { key: s.key, values: s.values };
}

function stepOf(e: TimelineEvent): Step {
  const base = { id: e.id, at: e.occurredAt, source: e.source, inShopify: false, applied: e.applied, values: {} as Record<string, string> };
  if (e.kind === 'courier_status') {
    const w = courierWords(e.status);
    const word = w.key.slice('courier.'.length);
    return { ...base, key: w.key, values: w.values, detail: null, tone: word === 'delivered' ? 'success' : ['failed', 'cancelled', 'returned'].includes(word) ? 'critical' : null };
  }
  if (e.kind === 'received') return { ...base, key: e.source === 'merchant' ? 'timeline.received.merchant' : 'timeline.received', detail: null, tone: null };
  if (WORDED.has(e.kind)) return { ...base, key: `timeline.${e.kind}`, detail: DETAILED.has(e.kind) ? e.message : null, tone: TONES[e.kind] ?? (e.kind === 'created' ? 'success' : null) };
  return { ...base, key: 'timeline.other', values: { kind: e.kind.replace(/[_-]+/g, ' ') }, detail: e.message, tone: null };
}

/** Oldest first, as stored. A Shopify event marks the courier step it mirrors; a repeated courier status is one step. */
export function timelineSteps(events: TimelineEvent[]): Step[] {
  const steps: Step[] = [];
  let lastCourier: Step | null = null;
  for (const e of events) {
    if (e.kind === 'shopify_event') {
      // Shopify was told of the latest courier step: a mark on it, not a second line.
      if (lastCourier) lastCourier.inShopify = true;
      else steps.push({ id: e.id, key: 'timeline.shopify_event', values: {}, at: e.occurredAt, source: e.source, detail: null, inShopify: true, applied: e.applied, tone: null });
      continue;
    }
    const step = stepOf(e);
    if (e.kind === 'courier_status') {
      if (lastCourier && steps.at(-1) === lastCourier && lastCourier.key === step.key && lastCourier.values.status === step.values.status && lastCourier.applied === step.applied) continue;
      lastCourier = step;
    }
    steps.push(step);
  }
  return steps;
}
