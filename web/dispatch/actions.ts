// The merchant's actions on a delivery, for the admin API, the CLI and Flow alike:
// each runs its web/dispatch/service.ts function in one transaction, then
// wakes the queue. Which statuses allow which action is decided there (and
// shown by web/admin/views.ts actionsFor), not here.
import { MissingCredentialsError, type AppContext } from '../context.ts';
import { isUniqueViolation, type Tx } from '../db/client.ts';
import { DeliveryApiError } from '../delivery/index.ts';
import { DecryptionError } from '../security/crypto.ts';
import { ShopifyAdminError } from '../shopify/admin-api.ts';
import { courierUnavailable } from './booking.ts';
import { courierErrorText, reasonForCourierError } from './dispatcher.ts';
import { ActionError, dispatchNow, fixAndRetry, recordAndDispatch, redispatch, retryDelivery } from './service.ts';
import { checkDeliveryNow } from '../fulfillment/reconcile.ts';
import { ensureShop } from '../settings/store.ts';
import { fetchOrderAsPayload } from '../shopify/operations.ts';

export type QueueAction = 'dispatch' | 'retry' | 'redispatch' | 'fix';

const RUN: Record<QueueAction, (ctx: AppContext, tx: Tx, domain: string, id: string, input: unknown) => Promise<unknown>> = {
  dispatch: (ctx, tx, domain, id) => dispatchNow(tx, ctx.queue, domain, id),
  retry: (ctx, tx, domain, id) => retryDelivery(tx, ctx.queue, domain, id),
  redispatch: (ctx, tx, domain, id) => redispatch(tx, ctx.queue, domain, id),
  // The correction is checked by the one validator (web/dispatch/fix.ts) inside fixAndRetry.
  fix: (ctx, tx, domain, id, input) => fixAndRetry(tx, ctx.queue, domain, id, input),
};

/** What the admin tells the merchant after each action. */
export const DONE: Record<QueueAction, string> = {
  dispatch: 'Queued for dispatch',
  retry: 'Queued again',
  redispatch: 'Queued for a new delivery',
  fix: 'Corrected and queued again',
};

/** Runs in the action's own transaction: a record of the action commits with it or not at all (e.g. a Flow action run). */
export type SameTransaction = (tx: Tx, deliveryId: string) => Promise<void>;

/** Runs an action; throws ActionError (FixValidationError for a refused correction) when the delivery does not allow it. */
export async function runAction(ctx: AppContext, domain: string, id: string, action: QueueAction, input?: unknown, also?: SameTransaction): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    await RUN[action](ctx, tx, domain, id, input);
    await also?.(tx, id);
  });
  ctx.queue.notify();
}

/**
 * Dispatch a Shopify order now: the recorded delivery when we have one, else
 * the order fetched from Shopify and recorded. Null when Shopify has no such order.
 */
export async function dispatchOrder(ctx: AppContext, domain: string, orderId: string, knownId: string | null, also?: SameTransaction): Promise<{ deliveryId: string; orderName: string | null } | null> {
  if (knownId) {
    await runAction(ctx, domain, knownId, 'dispatch', undefined, also);
    return { deliveryId: knownId, orderName: null };
  }
  const payload = await fetchOrderAsPayload(ctx.admin, domain, orderId);
  if (!payload) return null;
  const record = () => ctx.db.$transaction(async (tx) => {
    const id = await recordAndDispatch(tx, ctx.queue, domain, payload);
    await also?.(tx, id);
    return id;
  });
  // Two clicks at once: the loser of the unique (shop, order) insert finds the winner's row and dispatches that.
  const deliveryId = await record().catch((e: unknown) => (isUniqueViolation(e) ? record() : Promise.reject(e)));
  ctx.queue.notify();
  return { deliveryId, orderName: typeof payload.name === 'string' ? payload.name : null };
}

/** Reads the delivery at the courier now, with the merchant's message for the result. */
export async function checkNow(ctx: AppContext, domain: string, id: string) {
  const r = await checkDeliveryNow(ctx, domain, id);
  const message = r.result === 'failed' ? 'The courier could not be read; see the log' : r.result === 'changed' ? `Courier status: ${r.courierStatus}` : 'No change at the courier';
  return { ...r, message };
}

/** The known delivery of an order on this shop, creating the shop row first (a dispatch may record one). */
export async function knownDeliveryId(ctx: AppContext, domain: string, orderId: string): Promise<string | null> {
  const shop = await ensureShop(ctx.db, domain);
  const known = await ctx.db.delivery.findFirst({ where: { shopId: shop.id, shopifyOrderId: orderId } });
  return known?.id ?? null;
}

/** An action that did not go through, as its caller reports it (a bulk order's result, a Flow run's answer). */
export interface ActionRefusal {
  outcome: 'refused' | 'not_found';
  code: string | null;
  message: string;
}

/** An error with an HTTP status as a refusal; `unprocessable` is the code for a 422. */
export function refusalOfStatus(e: { status: number; message: string }, unprocessable: string): ActionRefusal {
  if (e.status === 404) return { outcome: 'not_found', code: null, message: e.message };
  // 422: the order cannot go as it is (eligibility, or a request that cannot be built); 409: the lifecycle table refused.
  return { outcome: 'refused', code: e.status === 422 ? unprocessable : 'not_allowed', message: e.message };
}

/** An action's failure as a refusal; null for an error no rule covers (a bug: the caller logs it). */
export function refusalOf(e: unknown): ActionRefusal | null {
  if (e instanceof ActionError) return refusalOfStatus(e, 'not_eligible');
  if (e instanceof DeliveryApiError) {
    const code = courierUnavailable(e) ? 'courier_unavailable' : reasonForCourierError(e);
    return { outcome: 'refused', code, message: `Courier: ${courierErrorText(e)}` };
  }
  if (e instanceof MissingCredentialsError) return { outcome: 'refused', code: 'courier_credentials', message: e.message };
  if (e instanceof ShopifyAdminError) return { outcome: 'refused', code: 'shopify_error', message: e.message };
  if (e instanceof DecryptionError) return { outcome: 'refused', code: 'secrets_unreadable', message: 'Stored courier secrets cannot be read with the current encryption key; enter them again' };
  return null;
}
