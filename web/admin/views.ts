// What the admin API returns for deliveries: plain JSON for people, with the
// attention reason in plain words and the actions the current status allows
// (allowedActions: the lifecycle table web/dispatch/service.ts enforces). Never
// a secret: a delivery holds none (the courier request is the order, not credentials).
import type { ReasonCode } from '../dispatch/status.ts';
import { allowedActions, factsOf, type DeliveryStatus } from '../lifecycle/machine.ts';
import { english, hasMessage, type AllInCatalogue } from './messages.ts';
import { trackingPageUrl } from '../tracking/token.ts';

// The words for statuses and reasons are the admin catalogue's (web/i18n/messages/admin/en.json,
// status.<STATUS> and reason.<code>.title/hint): the API answers in English, the pages in the
// merchant's language. A status or reason without words there fails the type check below.
const STATUSES_HAVE_WORDS: AllInCatalogue<`status.${DeliveryStatus}`> = true;
const REASONS_HAVE_WORDS: AllInCatalogue<`reason.${ReasonCode}.title` | `reason.${ReasonCode}.hint`> = true;
void STATUSES_HAVE_WORDS;
void REASONS_HAVE_WORDS;

/** A reason code → its plain-words title and what the merchant can do about it. */
export function reasonWords(code: string): { title: string; hint: string } | null {
  const key = `reason.${code}.title`;
  return hasMessage(key) ? { title: english(key), hint: english(`reason.${code}.hint`) } : null;
}

export interface DeliveryRowLike {
  id: string;
  shopifyOrderId: string;
  orderName: string | null;
  environment: string | null;
  status: string;
  reasonCode: string | null;
  reason: string | null;
  deliveryPrice: string | null;
  currency: string | null;
  dispatchJobId: string | null;
  courierOrderId: string | null;
  courierDeliveryId: string | null;
  courierStatus: string | null;
  courierOrderStatus: string | null;
  lastError: string | null;
  fulfillmentId: string | null;
  generation: number;
  tries: number;
  dispatchedAt: Date | null;
  lastEventAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  trackingToken?: string | null;
  /** SCHEDULED: when it goes out (web/windows/). */
  scheduledFor?: Date | null;
  /** The delivery slot the customer chose on the cart, once a place in it was taken (web/slots/). */
  slotStart?: Date | null;
  slotEnd?: Date | null;
}

export interface EventRowLike {
  id: string;
  kind: string;
  status: string | null;
  message: string | null;
  source: string;
  applied: boolean;
  occurredAt: Date;
  receivedAt: Date;
}

export function eventView(e: EventRowLike) {
  return { id: e.id, kind: e.kind, status: e.status, message: e.message, source: e.source, applied: e.applied, occurredAt: e.occurredAt, receivedAt: e.receivedAt };
}

function attentionOf(d: DeliveryRowLike) {
  if (!d.reasonCode && !d.reason) return null;
  const known = d.reasonCode ? reasonWords(d.reasonCode) : null;
  return { code: d.reasonCode, title: known?.title ?? english('reason.unknown.title'), hint: known?.hint ?? null, detail: d.reason };
}

export function trackingUrl(template: string | null, d: DeliveryRowLike): string | null {
  if (!template || !d.dispatchJobId) return null;
  const values: Record<string, string> = {
    jobId: d.dispatchJobId,
    orderId: d.courierOrderId ?? '',
    deliveryId: d.courierDeliveryId ?? '',
    reference: d.shopifyOrderId,
  };
  return template.replace(/\{(jobId|orderId|deliveryId|reference)\}/g, (_m, k: string) => encodeURIComponent(values[k] ?? ''));
}

/** One row of the deliveries list (and the order block). */
export function deliverySummary(d: DeliveryRowLike, lastEvent: EventRowLike | null, opts: { trackingUrlTemplate?: string | null; appUrl?: string } = {}) {
  return {
    id: d.id,
    orderName: d.orderName,
    shopifyOrderId: d.shopifyOrderId,
    environment: d.environment,
    status: d.status,
    statusLabel: hasMessage(`status.${d.status}`) ? english(`status.${d.status}`) : d.status,
    attention: attentionOf(d),
    price: d.deliveryPrice,
    currency: d.currency,
    dispatchJobId: d.dispatchJobId,
    courierOrderId: d.courierOrderId,
    courierStatus: d.courierStatus ?? null,
    // The merchant's template, else the customer tracking page the fulfillment links to (web/tracking/).
    trackingUrl: trackingUrl(opts.trackingUrlTemplate ?? null, d) ?? (d.trackingToken && opts.appUrl ? trackingPageUrl(opts.appUrl, d.trackingToken) : null),
    lastEvent: lastEvent ? eventView(lastEvent) : null,
    actions: allowedActions(factsOf(d)),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    scheduledFor: d.status === 'SCHEDULED' ? d.scheduledFor ?? null : null,
    slot: d.slotStart && d.slotEnd ? { start: d.slotStart, end: d.slotEnd } : null,
  };
}

export type DeliverySummary = ReturnType<typeof deliverySummary>;
