// The delivery state machine, as data: state × event → next state, the side
// effects to schedule, and the merchant actions each state allows. Pure (no
// I/O): table-tested in test/unit/lifecycle-machine.test.ts, in the mutation
// scope. web/transitions/transition.ts performs what this decides.
//
//   (new) ──received──▶ PENDING ──booked──▶ CREATED ──courier_moving──▶ IN_PROGRESS ──courier_delivered──▶ DELIVERED
//     │                    │                   │                          │
//     └─received_skipped─▶ SKIPPED ◀─shopify_cancelled (not booked)       └─shopify_cancelled (booked)─▶ CANCEL_REQUESTED_IN_SHOPIFY
//                          ├─needs_attention─▶ NEEDS_ATTENTION (merchant must fix: data, credentials, refusal, courier failure, Shopify refusal)
//                          └─booking_failed──▶ FAILED (transient errors outlasted every retry)
//
// Guarantees (what callers may rely on):
// - Every status a delivery can take, and every way into it, is a row below;
//   a (state, event) pair with no row is illegal and decide() refuses it.
// - Rows are matched in order; the first whose `from` and `when` fit wins.
// - SKIPPED, NEEDS_ATTENTION and FAILED are where a merchant acts; the actions
//   shown in the UI, the API guards and the CLI guards all come from allowedActions().
// - A merchant action that books again either resends the stored request under
//   the same Idempotency-Key ('resend') or rebuilds it; a rebuild after the
//   courier saw the old key uses a new generation (newGeneration()).

export const DELIVERY_STATUSES = [
  'PENDING',
  'SKIPPED',
  'NEEDS_ATTENTION',
  'FAILED',
  'CREATED',
  'IN_PROGRESS',
  'DELIVERED',
  'CANCEL_REQUESTED_IN_SHOPIFY',
  // Paid outside the pickup location's delivery window, or for a delivery slot the customer chose:
  // dispatched at Delivery.scheduledFor (web/windows/, web/slots/).
  'SCHEDULED',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Statuses in which a courier order exists for the current generation. */
export const BOOKED: readonly DeliveryStatus[] = ['CREATED', 'IN_PROGRESS', 'DELIVERED', 'CANCEL_REQUESTED_IN_SHOPIFY'];

/** The merchant's actions, by the service function that performs them (in display order). */
export const MERCHANT_ACTIONS = ['dispatch', 'retry', 'fix', 'redispatch', 'check', 'resolve'] as const;
export type MerchantAction = (typeof MERCHANT_ACTIONS)[number];

export type SystemEvent =
  | 'received' // orders/paid, eligible: queued for dispatch
  | 'received_skipped' // orders/paid, not eligible: recorded with the reason
  | 'recorded_by_merchant' // an order we never received, dispatched by the merchant
  | 'needs_attention' // the dispatch job stopped: the merchant must act
  | 'booking_failed' // the dispatch job ran out of retries
  | 'booked' // the courier answered a create (or the order was adopted by reference)
  | 'shopify_cancelled' // orders/cancelled
  | 'courier_acknowledged' // a courier status that says "booked, nothing happened yet"
  | 'courier_moving'
  | 'courier_delivered'
  | 'courier_failed'
  | 'shopify_refused' // the fulfillment write-back was refused by Shopify
  | 'shopify_address_changed' // orders/updated with a new address or phone: recorded (and flagged once booked)
  | 'shopify_address_updated' // orders/updated brought what a NEEDS_ATTENTION delivery lacked: book again
  | 'window_closed' // the dispatch job found the pickup location outside its delivery window: scheduled
  | 'window_opened' // the scheduled time came and the window is open: dispatch
  | 'slot_scheduled' // the customer chose a delivery slot and a place in it was taken: booked at its start minus the lead time
  | 'dispatch_skipped'; // the dispatch job read the fulfillment orders: not ours to deliver (pickup, hold, scheduled, …)
export type LifecycleEvent = SystemEvent | MerchantAction;

/** Jobs a transition schedules, in the same transaction as its update. */
export type Effect = 'dispatch' | 'writeback' | 'sync';

/** What a row's `when` may look at, besides the status. */
export interface Facts {
  status: DeliveryStatus | 'NEW';
  reasonCode?: string | null;
  /** A courier order id is stored for the current generation. */
  courierOrder?: boolean;
  /** The courier received a create under the current key (tries > 0 or an order id). */
  sent?: boolean;
  /** How far the courier got, for putting a delivery back after a refused Shopify write. */
  courierProgress?: 'booked' | 'moving' | 'delivered';
}

/** What a decision needs from a stored delivery. */
export interface CurrentRow {
  id: string;
  status: string;
  generation: number;
  reasonCode: string | null;
  courierOrderId: string | null;
  tries: number;
  /** The shop, when the caller read it: its jobs' fairness group (effects.ts shopGroup). */
  shopId?: string;
}

export function factsOf(d: CurrentRow, extra: Partial<Facts> = {}): Facts {
  return {
    status: d.status as DeliveryStatus,
    reasonCode: d.reasonCode,
    courierOrder: d.courierOrderId !== null,
    sent: d.tries > 0 || d.courierOrderId !== null,
    ...extra,
  };
}

export type Guard = 'cancelled_in_shopify' | 'open_in_shopify' | 'has_courier_order' | 'shopify_refused_booked' | 'duplicate_orders' | 'address_changed';

export const GUARDS: Record<Guard, (f: Facts) => boolean> = {
  cancelled_in_shopify: (f) => f.reasonCode === 'cancelled',
  // Shopify's cancel is final: a merchant action never books an order skipped as cancelled.
  open_in_shopify: (f) => f.reasonCode !== 'cancelled',
  has_courier_order: (f) => f.courierOrder === true,
  shopify_refused_booked: (f) => f.reasonCode === 'shopify_error' && f.courierOrder === true,
  duplicate_orders: (f) => f.reasonCode === 'duplicate_courier_orders',
  address_changed: (f) => f.reasonCode === 'address_changed',
};

/** SAME: the status stays (the event is still recorded). BY_PROGRESS: CREATED, IN_PROGRESS or DELIVERED, by how far the courier got. */
export type Target = DeliveryStatus | 'SAME' | 'BY_PROGRESS';

export interface Row {
  event: LifecycleEvent;
  from: readonly (DeliveryStatus | 'NEW')[];
  when?: Guard;
  to: Target;
  effects: readonly Effect[];
  /** Merchant re-sends: keep the stored request and key, or build the request again. */
  request?: 'resend' | 'rebuild';
  /** The manual eligibility rules must pass first (the order is sent although it was skipped). */
  manualEligibility?: boolean;
}

const ALL: readonly DeliveryStatus[] = DELIVERY_STATUSES;
const WAITING: readonly DeliveryStatus[] = ['SKIPPED', 'NEEDS_ATTENTION', 'FAILED'];

export const TRANSITIONS: readonly Row[] = [
  { event: 'received', from: ['NEW'], to: 'PENDING', effects: ['dispatch'] },
  { event: 'received_skipped', from: ['NEW'], to: 'SKIPPED', effects: [] },
  { event: 'recorded_by_merchant', from: ['NEW'], to: 'PENDING', effects: ['dispatch'] },

  { event: 'needs_attention', from: ['PENDING'], to: 'NEEDS_ATTENTION', effects: [] },
  { event: 'dispatch_skipped', from: ['PENDING'], to: 'SKIPPED', effects: [] },
  { event: 'booking_failed', from: ['PENDING'], to: 'FAILED', effects: [] },
  // The courier order exists whatever happened meanwhile: it is always recorded.
  { event: 'booked', from: ['PENDING'], to: 'CREATED', effects: ['writeback'] },
  { event: 'booked', from: ['SKIPPED'], when: 'cancelled_in_shopify', to: 'CANCEL_REQUESTED_IN_SHOPIFY', effects: ['writeback'] },
  { event: 'booked', from: ALL, to: 'SAME', effects: ['writeback'] },

  { event: 'shopify_cancelled', from: ['DELIVERED', 'CANCEL_REQUESTED_IN_SHOPIFY'], to: 'SAME', effects: [] },
  { event: 'shopify_cancelled', from: ['SKIPPED'], when: 'cancelled_in_shopify', to: 'SAME', effects: [] },
  // No cancel endpoint at the courier: the merchant cancels there.
  { event: 'shopify_cancelled', from: ['CREATED', 'IN_PROGRESS'], to: 'CANCEL_REQUESTED_IN_SHOPIFY', effects: [] },
  { event: 'shopify_cancelled', from: ALL, when: 'has_courier_order', to: 'CANCEL_REQUESTED_IN_SHOPIFY', effects: [] },
  // PENDING too: its job finds it no longer PENDING and books nothing.
  { event: 'shopify_cancelled', from: ['PENDING', ...WAITING], to: 'SKIPPED', effects: [] },

  { event: 'courier_acknowledged', from: ALL, to: 'SAME', effects: [] },
  { event: 'courier_moving', from: ['PENDING', 'CREATED'], to: 'IN_PROGRESS', effects: [] },
  { event: 'courier_moving', from: ALL, to: 'SAME', effects: [] },
  { event: 'courier_delivered', from: ALL, to: 'DELIVERED', effects: [] },
  // A delivery the merchant already flagged as cancelled in Shopify keeps that status.
  { event: 'courier_failed', from: ['CANCEL_REQUESTED_IN_SHOPIFY'], to: 'SAME', effects: [] },
  { event: 'courier_failed', from: ALL, to: 'NEEDS_ATTENTION', effects: [] },

  { event: 'shopify_refused', from: [...BOOKED, 'NEEDS_ATTENTION'], to: 'NEEDS_ATTENTION', effects: [] },

  // An address edit never moves a booked delivery: the flag is its reason code (cleared by resolve).
  { event: 'shopify_address_changed', from: ALL, to: 'SAME', effects: [] },
  { event: 'shopify_address_updated', from: ['NEEDS_ATTENTION'], to: 'PENDING', effects: ['dispatch'], request: 'rebuild' },

  // Merchant actions.
  { event: 'dispatch', from: ['SKIPPED'], when: 'open_in_shopify', to: 'PENDING', effects: ['dispatch'], request: 'rebuild', manualEligibility: true },
  // Only the Shopify write-back failed: the courier side is fine, write it again.
  { event: 'retry', from: ['NEEDS_ATTENTION'], when: 'shopify_refused_booked', to: 'BY_PROGRESS', effects: ['sync'] },
  // After an unknown outcome the stored request goes again under the same key: nothing is booked twice.
  { event: 'retry', from: ['FAILED'], to: 'PENDING', effects: ['dispatch'], request: 'resend' },
  { event: 'retry', from: ['NEEDS_ATTENTION'], to: 'PENDING', effects: ['dispatch'], request: 'rebuild' },
  { event: 'fix', from: WAITING, when: 'open_in_shopify', to: 'PENDING', effects: ['dispatch'], request: 'rebuild' },
  // A skipped order the merchant now wants couriered: the same checks as dispatch now.
  { event: 'redispatch', from: ['SKIPPED'], when: 'open_in_shopify', to: 'PENDING', effects: ['dispatch'], request: 'rebuild', manualEligibility: true },
  { event: 'redispatch', from: ['NEEDS_ATTENTION', 'FAILED'], to: 'PENDING', effects: ['dispatch'], request: 'rebuild' },
  { event: 'check', from: ['CREATED', 'IN_PROGRESS', 'CANCEL_REQUESTED_IN_SHOPIFY'], to: 'SAME', effects: [] },
  { event: 'resolve', from: ALL, when: 'duplicate_orders', to: 'SAME', effects: [] },
  // The merchant told the courier the new address (or decided it does not matter).
  { event: 'resolve', from: ALL, when: 'address_changed', to: 'SAME', effects: [] },

  // Delivery windows (web/windows/): the job that schedules enqueues the later dispatch itself (startAfterMs).
  { event: 'window_closed', from: ['PENDING', 'SCHEDULED'], to: 'SCHEDULED', effects: [] },
  { event: 'window_opened', from: ['SCHEDULED'], to: 'PENDING', effects: [] },
  // Delivery slots (web/slots/): like a window, the job that schedules enqueues the booking job itself.
  { event: 'slot_scheduled', from: ['PENDING'], to: 'SCHEDULED', effects: [] },
  { event: 'shopify_cancelled', from: ['SCHEDULED'], to: 'SKIPPED', effects: [] },
  // Dispatch now anyway: the window is bypassed for this generation (Delivery.windowBypass).
  { event: 'dispatch', from: ['SCHEDULED'], to: 'PENDING', effects: ['dispatch'] },
];

export type Decision =
  | { ok: true; from: DeliveryStatus | 'NEW'; to: DeliveryStatus; row: Row }
  | { ok: false; from: DeliveryStatus | 'NEW'; event: LifecycleEvent; message: string };

const PROGRESS_STATUS = { booked: 'CREATED', moving: 'IN_PROGRESS', delivered: 'DELIVERED' } as const;

/** What `event` does to a delivery in this state, or why it may not happen. */
export function decide(f: Facts, event: LifecycleEvent): Decision {
  const row = TRANSITIONS.find((r) => r.event === event && r.from.includes(f.status) && (!r.when || GUARDS[r.when](f)));
  if (!row) return { ok: false, from: f.status, event, message: refusal(f, event) };
  let to: DeliveryStatus;
  if (row.to === 'SAME') to = f.status as DeliveryStatus;
  else if (row.to === 'BY_PROGRESS') to = PROGRESS_STATUS[f.courierProgress ?? 'booked'];
  else to = row.to;
  return { ok: true, from: f.status, to, row };
}

/** The status an event leads to from a state, or null when it is illegal there. */
export function nextStatus(f: Facts, event: LifecycleEvent): DeliveryStatus | null {
  const d = decide(f, event);
  return d.ok ? d.to : null;
}

/** The actions a merchant may take now: what the UI shows and the API and CLI accept. */
export function allowedActions(f: Facts): MerchantAction[] {
  return MERCHANT_ACTIONS.filter((a) => decide(f, a).ok);
}

/** The statuses an event is legal from (guards aside). */
export function statesFor(event: LifecycleEvent): Array<DeliveryStatus | 'NEW'> {
  const out = new Set<DeliveryStatus | 'NEW'>();
  for (const r of TRANSITIONS) if (r.event === event) for (const s of r.from) out.add(s);
  return [...out];
}

/** A rebuilt request after the courier saw the current key gets a new generation (and so a new key). */
export function newGeneration(row: Row, f: Facts): boolean {
  return row.request === 'rebuild' && f.sent === true;
}

/** The merchant actions that would send the order to the courier. */
const SENDING: readonly LifecycleEvent[] = ['dispatch', 'retry', 'fix', 'redispatch'];
const WORDS: Record<string, string> = { SKIPPED: 'skipped', NEEDS_ATTENTION: 'attention', FAILED: 'failed' };

function refusal(f: Facts, event: LifecycleEvent): string {
  if (GUARDS.cancelled_in_shopify(f) && SENDING.includes(event)) return 'the order was cancelled in Shopify; it will not be sent';
  if (event === 'retry' && f.status === 'SKIPPED') return 'delivery was skipped; use dispatch now to send it';
  if (event === 'retry') return `delivery is ${f.status}; nothing to retry`;
  if (event === 'fix') return `delivery is ${f.status}; it cannot be changed now`;
  if (event === 'resolve') return 'this delivery has no duplicate courier orders to resolve';
  const from = statesFor(event);
  if (event === 'redispatch') {
    const words = from.map((s) => WORDS[s] ?? s);
    return `delivery is ${f.status}; only ${words.slice(0, -1).join(', ')} or ${words.at(-1)} deliveries can be re-dispatched`;
  }
  return `delivery is ${f.status}; ${event} is not possible (only from ${from.join(', ')})`;
}

/** Test orders never reach the live courier: checked at intake, on manual dispatch, and again by the dispatch job. */
export function liveTestOrder(test: boolean | null | undefined, environment: string | null | undefined): { code: 'test_order_live'; message: string } | null {
  return test === true && environment === 'live' ? { code: 'test_order_live', message: 'Test orders are never sent to the live courier' } : null;
}

/** Shopify Flow triggers (extensions/flow-*, docs/flow.md), by handle. */
export const FLOW_TRIGGERS = ['delivery-booked', 'delivery-needs-attention', 'delivery-courier-failed', 'delivery-delivered'] as const;
export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

/**
 * The Flow triggers an applied transition reports: each at most once per transition, and never
 * for a repeat of one already applied (the status, or the booking, is already there).
 */
export function flowTriggersOf(before: Facts, event: LifecycleEvent, to: DeliveryStatus): FlowTrigger[] {
  const out: FlowTrigger[] = [];
  // The courier order recorded for the first time in this generation; not an order cancelled meanwhile.
  if (event === 'booked' && before.courierOrder !== true && to !== 'CANCEL_REQUESTED_IN_SHOPIFY') out.push('delivery-booked');
  if (to === 'NEEDS_ATTENTION' && before.status !== 'NEEDS_ATTENTION') out.push('delivery-needs-attention');
  // Rank-guarded upstream: one courier failure applies once (a flagged cancellation keeps its status: not sent).
  if (event === 'courier_failed' && to === 'NEEDS_ATTENTION') out.push('delivery-courier-failed');
  if (to === 'DELIVERED' && before.status !== 'DELIVERED') out.push('delivery-delivered');
  return out;
}
