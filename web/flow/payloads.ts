// Flow trigger payloads and the decision to send one, as pure functions
// (table-tested in test/unit/flow-payloads.test.ts, in the mutation scope).
// A payload is `order_id` (the order_reference field: Shopify's numeric order
// id, so a workflow can read the order) plus the extension's field keys.
// Money stays a decimal string.
import { allowedActions, type DeliveryStatus, type FlowTrigger, type MerchantAction } from '../lifecycle/machine.ts';
import type { FlowSnapshot } from '../transitions/flow-outbox.ts';

/** Flow refuses trigger payloads of 1 MB or more; ours stay far below, and text fields are capped. */
export const FLOW_PAYLOAD_MAX_BYTES = 1_000_000;
export const FLOW_TEXT_MAX = 1_000;

const ACTION_WORDS: Record<MerchantAction, string> = {
  dispatch: 'Dispatch now', retry: 'Retry', fix: 'Fix and retry', redispatch: 'Re-dispatch', check: 'Check with the courier', resolve: 'Mark resolved',
};

/** The merchant's options in the app, in words ("Retry, Fix and retry, Re-dispatch"). */
export function actionWords(s: Pick<FlowSnapshot, 'status' | 'reasonCode' | 'courierOrder' | 'tries'>): string {
  const actions = allowedActions({ status: s.status as DeliveryStatus, reasonCode: s.reasonCode, courierOrder: s.courierOrder, sent: s.tries > 0 || s.courierOrder });
  return actions.length ? actions.map((a) => ACTION_WORDS[a]).join(', ') : 'Open the order in Same-Day Dispatch';
}

const text = (v: string | null | undefined) => (v ?? '').slice(0, FLOW_TEXT_MAX);

/** Shopify's numeric order id as Flow's order_reference wants it (a JSON number). */
export function orderIdNumber(shopifyOrderId: string): number {
  const n = Number(shopifyOrderId);
  if (!/^\d{1,16}$/.test(shopifyOrderId) || !Number.isSafeInteger(n)) throw new Error(`order id ${JSON.stringify(shopifyOrderId)} is not a numeric Shopify id that JSON can carry exactly`);
  return n;
}

/** Whole minutes from payment to delivery; null when either time is unknown. */
export function minutesBetween(fromIso: string, toIso: string | null): number | null {
  if (!toIso) return null;
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  return Number.isFinite(ms) ? Math.max(0, Math.round(ms / 60_000)) : null;
}

const locationGid = (id: string | null) => (id ? (id.startsWith('gid://') ? id : `gid://shopify/Location/${id}`) : '');

export function buildTriggerPayload(trigger: FlowTrigger, s: FlowSnapshot): Record<string, string | number> {
  const order_id = orderIdNumber(s.shopifyOrderId);
  let payload: Record<string, string | number>;
  switch (trigger) {
    case 'delivery-booked':
      payload = { order_id, 'Delivery price': text(s.deliveryPrice), Currency: text(s.currency), 'Job id': text(s.dispatchJobId), 'Pickup location id': locationGid(s.locationId) };
      break;
    case 'delivery-needs-attention':
      payload = { order_id, 'Reason code': text(s.reasonCode), Reason: text(s.reason), 'What you can do': actionWords(s) };
      break;
    case 'delivery-courier-failed':
      payload = { order_id, 'Courier status': text(s.courierStatus), 'Job id': text(s.dispatchJobId) };
      break;
    case 'delivery-delivered': {
      const minutes = minutesBetween(s.paidAt, s.courierStatusAt);
      payload = { order_id, 'Delivered at': text(s.courierStatusAt), ...(minutes === null ? {} : { 'Minutes from paid to delivered': minutes }), 'Job id': text(s.dispatchJobId) };
      break;
    }
  }
  if (Buffer.byteLength(JSON.stringify(payload)) >= FLOW_PAYLOAD_MAX_BYTES) throw new Error(`the ${trigger} payload is over Flow's 1 MB limit`);
  return payload;
}

export interface SendContext {
  installed: boolean;
  /** The shop still has an enabled workflow using this trigger (or one Flow named that we could not map). */
  used: boolean;
  /** The delivery went to the courier's test environment. */
  testDelivery: boolean;
  /** The merchant's setting: send triggers for test deliveries too. */
  sendTestDeliveries: boolean;
}

/** Why a trigger is not sent, or null to send it. */
export function skipReason(c: SendContext): string | null {
  if (!c.installed) return 'the app is not installed on the shop';
  if (!c.used) return 'no enabled workflow uses this trigger';
  if (c.testDelivery && !c.sendTestDeliveries) return 'a test delivery, and the shop does not send triggers for test deliveries';
  return null;
}
