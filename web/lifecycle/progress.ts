// Courier delivery statuses: their progression rank, which are terminal, how
// they map to Shopify fulfillment events, and what one event does to a
// delivery. Pure: tested with tables in test/unit/fulfillment-progress.test.ts.
//
// The spec names one status (driver_assigned) and leaves the set open, so
// ranks cover the statuses same-day couriers commonly use, with synonyms;
// anything else is "unknown": recorded and shown, never applied, and nothing
// is sent to Shopify for it.
import { nextStatus, type DeliveryStatus, type SystemEvent } from './machine.ts';

/** Shopify FulfillmentEventStatus values we may write. */
export const SHOPIFY_EVENT_STATUSES = [
  'LABEL_PURCHASED', 'LABEL_PRINTED', 'READY_FOR_PICKUP', 'CONFIRMED', 'CARRIER_PICKED_UP', 'IN_TRANSIT',
  'OUT_FOR_DELIVERY', 'ATTEMPTED_DELIVERY', 'DELAYED', 'DELIVERED', 'FAILURE',
] as const;
export type ShopifyEventStatus = (typeof SHOPIFY_EVENT_STATUSES)[number];

/** When a fulfillment is created in Shopify (the merchant's choice: web/settings/schema.ts). */
export const FULFILLMENT_TRIGGERS = ['accepted', 'driver_assigned', 'delivered'] as const;

export const TERMINAL_RANK = 100;

/** Ranks up to this say "booked, nothing has happened yet": they do not make a delivery IN_PROGRESS. */
export const BOOKED_RANK = 5;

const RANKS: Record<string, number> = {
  // What an order read reports before any event (the sandbox, and couriers like it).
  pending: 1,
  created: 5,
  validated: 5,
  accepted: 10,
  confirmed: 10,
  driver_assigned: 20,
  courier_assigned: 20,
  arriving_at_pickup: 25,
  at_pickup: 25,
  picked_up: 30,
  collected: 30,
  in_transit: 40,
  delayed: 45,
  out_for_delivery: 50,
  arriving: 50,
  attempted: 60,
  delivery_attempted: 60,
  delivered: TERMINAL_RANK,
  completed: TERMINAL_RANK,
  failed: TERMINAL_RANK,
  cancelled: TERMINAL_RANK,
  canceled: TERMINAL_RANK,
  returned: TERMINAL_RANK,
};

const SUCCESS = new Set(['delivered', 'completed']);
const FAILURE = new Set(['failed', 'cancelled', 'canceled', 'returned']);

export const DEFAULT_EVENT_MAPPING: Record<string, ShopifyEventStatus> = {
  driver_assigned: 'CONFIRMED',
  courier_assigned: 'CONFIRMED',
  picked_up: 'CARRIER_PICKED_UP',
  collected: 'CARRIER_PICKED_UP',
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  arriving: 'OUT_FOR_DELIVERY',
  delivered: 'DELIVERED',
  completed: 'DELIVERED',
  attempted: 'ATTEMPTED_DELIVERY',
  delivery_attempted: 'ATTEMPTED_DELIVERY',
  delayed: 'DELAYED',
  failed: 'FAILURE',
  cancelled: 'FAILURE',
  canceled: 'FAILURE',
  returned: 'FAILURE',
};

/** Lower-cases and trims; courier statuses are lower-case with underscores. */
export function normaliseStatus(status: string): string {
  return status.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

export function rankOf(status: string): number | null {
  return RANKS[normaliseStatus(status)] ?? null;
}

export const isFailure = (status: string | null | undefined) => !!status && FAILURE.has(normaliseStatus(status));
export const isSuccess = (status: string | null | undefined) => !!status && SUCCESS.has(normaliseStatus(status));

export function shopifyEventFor(status: string, overrides: Record<string, ShopifyEventStatus> = {}): ShopifyEventStatus | null {
  const s = normaliseStatus(status);
  return overrides[s] ?? DEFAULT_EVENT_MAPPING[s] ?? null;
}

/** The rank at which the Shopify fulfillment is created, per the shop's trigger setting. */
export function triggerRank(trigger: (typeof FULFILLMENT_TRIGGERS)[number]): number {
  return trigger === 'accepted' ? RANKS.accepted! : trigger === 'driver_assigned' ? RANKS.driver_assigned! : TERMINAL_RANK;
}

/** The lifecycle event a known courier status is (web/lifecycle/machine.ts decides what it does to the delivery). */
export function courierEventFor(status: string): Extract<SystemEvent, `courier_${string}`> {
  const s = normaliseStatus(status);
  if (FAILURE.has(s)) return 'courier_failed';
  if (SUCCESS.has(s)) return 'courier_delivered';
  return (RANKS[s] ?? 0) > BOOKED_RANK ? 'courier_moving' : 'courier_acknowledged';
}

export interface CurrentProgress {
  status: DeliveryStatus;
  courierStatus: string | null;
  courierStatusRank: number;
}

export type EventDecision =
  | { apply: false; why: 'unknown_status' | 'stale' | 'duplicate' | 'after_terminal' }
  | { apply: true; courierStatus: string; rank: number; status: DeliveryStatus; attention: { code: 'courier_failed' | 'courier_cancelled'; message: string } | null };

/**
 * What one courier status does to a delivery. Lower ranks arriving late are
 * recorded but do not move the status back; terminal statuses stay terminal.
 */
export function decideEvent(current: CurrentProgress, incoming: string): EventDecision {
  const status = normaliseStatus(incoming);
  const rank = rankOf(status);
  if (rank === null) return { apply: false, why: 'unknown_status' };
  if (current.courierStatusRank >= TERMINAL_RANK) {
    return { apply: false, why: current.courierStatus === status ? 'duplicate' : 'after_terminal' };
  }
  if (rank < current.courierStatusRank) return { apply: false, why: 'stale' };
  // Same rank: the same step again (or a synonym of it, e.g. collected after picked_up).
  if (rank === current.courierStatusRank) return { apply: false, why: 'duplicate' };

  // Every courier status is legal in every state (the courier is the truth); the table says where it leads.
  const next: DeliveryStatus = nextStatus({ status: current.status }, courierEventFor(status)) ?? current.status;
  let attention: { code: 'courier_failed' | 'courier_cancelled'; message: string } | null = null;
  if (FAILURE.has(status) && next === 'NEEDS_ATTENTION') {
    const cancelled = status === 'cancelled' || status === 'canceled';
    attention = {
      code: cancelled ? 'courier_cancelled' : 'courier_failed',
      message: cancelled ? 'The courier cancelled the delivery; re-dispatch to book a new one' : `The courier reports the delivery ${status}; re-dispatch to book a new one`,
    };
  }
  return { apply: true, courierStatus: status, rank, status: next, attention };
}

export interface AppliedStatus {
  status: string;
  rank: number;
  occurredAt: Date;
}

/**
 * Final means final: a lower status that claims to have happened after the
 * final one stays on our timeline and is never written to Shopify (it would
 * become the newest fulfillment event). One heard late but dated before the
 * final is still written, before it, while the final is not yet in Shopify;
 * once it is, the watermark (shopifyRank) keeps everything lower out.
 */
export function beforeFinal(history: AppliedStatus[]): AppliedStatus[] {
  const finals = history.filter((h) => h.rank >= TERMINAL_RANK).sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
  const final = finals[0];
  if (!final) return history;
  return history.filter((h) => h.rank >= TERMINAL_RANK || h.occurredAt.getTime() <= final.occurredAt.getTime());
}

/**
 * The fulfillment events a customer sees (Shopify's shipping notifications and order status page):
 * only these are written. The others (confirmed, picked up, in transit, delayed, …) are coalesced
 * into the next visible one: they stay on the app's timeline and tracking page, and cost Shopify
 * no call (docs/shopify-rate-limits.md: ≤ 5 calls per delivered order).
 */
export const VISIBLE_EVENTS: ReadonlySet<ShopifyEventStatus> = new Set<ShopifyEventStatus>(['OUT_FOR_DELIVERY', 'ATTEMPTED_DELIVERY', 'DELIVERED', 'FAILURE']);

export interface SyncInput {
  booked: boolean;
  courierStatus: string | null;
  courierStatusRank: number;
  fulfillmentId: string | null;
  /** False after a re-dispatch until the fulfillment shows the new booking's tracking (absent: true). */
  trackingCurrent?: boolean;
  /** Rank of the last courier status already written to Shopify as an event (0 = none). */
  shopifyRank: number;
  /** Applied courier statuses, any order. */
  history: AppliedStatus[];
  trigger: (typeof FULFILLMENT_TRIGGERS)[number];
  mapping: Record<string, ShopifyEventStatus>;
}

export interface SyncPlan {
  createFulfillment: boolean;
  /** Put this booking's tracking on the existing fulfillment (a re-dispatch), before any event. */
  updateTracking: boolean;
  /** Fulfillment events still to write, in progression order. */
  events: Array<{ courierStatus: string; rank: number; event: ShopifyEventStatus; happenedAt: Date }>;
}

/**
 * What Shopify should show next. The fulfillment is created once the trigger
 * is reached (never for a delivery that failed first); after that every applied
 * status above the watermark whose event a customer sees (VISIBLE_EVENTS) becomes
 * one fulfillment event, in rank order.
 * After a re-dispatch the existing fulfillment gets the new booking's tracking
 * at the same trigger, and only then the new booking's events.
 */
export function planSync(s: SyncInput): SyncPlan {
  const failed = isFailure(s.courierStatus);
  const reached =
    s.trigger === 'accepted' ? s.booked : s.trigger === 'delivered' ? isSuccess(s.courierStatus) : s.courierStatusRank >= triggerRank(s.trigger);
  const ready = s.booked && reached && !failed;
  const createFulfillment = !s.fulfillmentId && ready;
  const stale = !!s.fulfillmentId && s.trackingCurrent === false;
  const updateTracking = stale && ready;
  const nothing = { createFulfillment: false, updateTracking: false, events: [] };
  if (!s.fulfillmentId && !createFulfillment) return nothing;
  if (stale && !updateTracking) return nothing;
  const byRank = new Map<number, AppliedStatus>();
  for (const h of beforeFinal(s.history).sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())) {
    if (h.rank > s.shopifyRank && !byRank.has(h.rank)) byRank.set(h.rank, h);
  }
  const events = [...byRank.values()]
    .sort((a, b) => a.rank - b.rank)
    .map((h) => ({ courierStatus: h.status, rank: h.rank, event: shopifyEventFor(h.status, s.mapping), happenedAt: h.occurredAt }))
    .filter((e): e is SyncPlan['events'][number] => e.event !== null && VISIBLE_EVENTS.has(e.event));
  return { createFulfillment, updateTracking, events };
}
