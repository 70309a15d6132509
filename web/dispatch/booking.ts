// Exactly one courier order when the outcome of a create is unknown. Pure:
// tested with tables in test/unit/dispatch-booking.test.ts.
//
// A create that timed out or lost its connection may still be in flight, and
// a courier need not dedupe an Idempotency-Key it is still processing (the
// spec is silent). So after an unknown outcome nothing is resent until the
// in-flight window has passed; then the order is looked up by reference
// (GET /v1/orders?reference=) and adopted if it exists. Only when the courier
// holds none is the stored request sent again, same key, same bytes. After
// every booking the reference is checked once more: more than one courier
// order for it is shown to the merchant with every id (see duplicateReason).
// And what a booking out of attempts is blamed on (bookingFailure).
import { DeliveryApiError } from '../delivery/errors.ts';
import type { CourierOrderSummary, CourierOrderView, CreateOrderResult } from '../delivery/types.ts';
import { isFailure } from '../lifecycle/progress.ts';

export type CreateStep = { kind: 'send' } | { kind: 'wait'; ms: number } | { kind: 'lookup' };

/** What to do before (re)sending a create: `createSentAt` is set while an earlier create has no definite answer. */
export function nextCreateStep(createSentAt: number | null, now: number, inFlightMs: number): CreateStep {
  if (createSentAt === null) return { kind: 'send' };
  const left = createSentAt + inFlightMs - now;
  return left > 0 ? { kind: 'wait', ms: left } : { kind: 'lookup' };
}

export interface ReferenceMatches {
  keep: CourierOrderView;
  /** Every courier order for the reference, `keep` first. */
  all: CourierOrderView[];
}

/**
 * The courier orders for our reference. A search may also return other
 * orders (a prefix match, an unfiltered list): only exact references count,
 * and orders without a reference are taken as the service's own filtering.
 * The one kept is `preferId` if present (the one we already recorded), else
 * the first listed.
 */
export function matchReference(found: CourierOrderView[], reference: string, preferId?: string | null): ReferenceMatches | null {
  const seen = new Set<string>();
  const all = found.filter((o) => (o.reference === undefined || o.reference === reference) && !seen.has(o.id) && seen.add(o.id));
  if (!all.length) return null;
  const keep = all.find((o) => o.id === preferId) ?? all[0]!;
  return { keep, all: [keep, ...all.filter((o) => o !== keep)] };
}

/**
 * The orders that still count as duplicates: the one kept, and every other
 * that has not ended in failure (failed, cancelled, returned). After a
 * re-dispatch the earlier generation's order stays listed under the same
 * reference; once it has failed it is history, not a second booking.
 */
export function liveOrders(m: ReferenceMatches): CourierOrderView[] {
  return m.all.filter((o) => o === m.keep || !isFailure(o.deliveryStatus ?? o.status));
}

/** An order read turned into what recordCreated stores; fields the read lacks stay empty. */
export function adoptedResult(view: CourierOrderView, reference: string): CreateOrderResult {
  const r: CreateOrderResult = {
    requestId: '',
    orderId: view.id,
    orderStatus: view.status ?? 'UNKNOWN',
    reference: view.reference ?? reference,
    deliveryPrice: view.deliveryPrice ?? '',
    currency: view.currency ?? '',
    dispatchId: view.dispatchId ?? '',
    httpStatus: 200,
    responseText: JSON.stringify(view.raw ?? null),
    attempts: 0,
  };
  if (view.deliveryId) r.deliveryId = view.deliveryId;
  return r;
}


export function summarise(all: CourierOrderView[]): CourierOrderSummary[] {
  return all.map((o) => ({ orderId: o.id, dispatchId: o.dispatchId ?? null, status: o.status ?? null }));
}

/** The merchant-facing reason when the courier holds more than one order for one Shopify order. */
export function duplicateReason(all: CourierOrderSummary[]): string {
  const [keep, ...extras] = all;
  const ids = (o: CourierOrderSummary) => `order ${o.orderId}${o.dispatchId ? ` (job ${o.dispatchId})` : ''}`;
  return (
    `The courier holds ${all.length} orders for this Shopify order: ${all.map(ids).join(', ')}. ` +
    `This app tracks ${ids(keep!)}; cancel ${extras.map(ids).join(', ')} in the courier portal, then mark this resolved.`
  );
}

/** The courier could not be reached or gave no usable answer (a merchant action's refusal and a booking out of attempts); runDispatch wraps bad_response to retry it. */
export function courierUnavailable(e: unknown): boolean {
  const d = e instanceof DeliveryApiError ? e : e instanceof Error && e.cause instanceof DeliveryApiError ? e.cause : null;
  return d !== null && (d.kind === 'transient' || d.kind === 'bad_response');
}

/**
 * Why a dispatch job that ran out of attempts left its delivery FAILED. Only a courier that could
 * not be reached is blamed on the courier; anything else (the database, Shopify, a bug) says so.
 */
export function bookingFailure(e: unknown): { reasonCode: 'courier_unavailable' | 'booking_failed'; message: string } {
  const err = e instanceof Error ? e.message : String(e);
  return courierUnavailable(e)
    ? { reasonCode: 'courier_unavailable', message: `Courier could not be reached after every retry: ${err}` }
    : { reasonCode: 'booking_failed', message: `Booking failed after every retry: ${err}` };
}
