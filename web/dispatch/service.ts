// Intake (orders/paid, orders/cancelled) and the merchant's actions on a
// delivery (dispatch now, retry, fix and retry, re-dispatch). Shared by the
// webhook route, the operator CLI and the admin API.
//
// Guarantees:
// - One Delivery per (shop, Shopify order): a unique constraint, and intake
//   finds an existing row and changes nothing.
// - A Delivery becomes PENDING in the same transaction that enqueues its
//   dispatch job, so a queued delivery always has a job and vice versa.
// - Intake never calls the courier or Shopify.
import type { Tx } from '../db/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { ensureShop } from '../settings/store.ts';
import type { TopicHandler } from '../shopify/webhooks.ts';
import { decideEligibility } from './eligibility.ts';
import type { Logger } from '../ops/logger.ts';
import { OrderPayloadError, orderIdOf, parseOrderSnapshot, type OrderSnapshot, type Overrides } from './order.ts';
import { checkFix } from './fix.ts';
import { readOrderJson, readOverridesJson, writeOrderJson, writeOverridesJson } from '../db/json-columns.ts';
import { isSuccess } from '../fulfillment/progress.ts';
import { ACTIONABLE, BOOKED, type DeliveryStatus, type Problem } from './status.ts';

import { JOBS, type DeliveryJobData, type DispatchJobData } from '../jobs/names.ts';
import { storableDeep } from '../security/text.ts';

export class ActionError extends Error {
  readonly status: number;
  constructor(message: string, status = 409) {
    super(message);
    this.status = status;
  }
}

export async function addEvent(
  tx: Tx,
  deliveryId: string,
  e: { kind: string; message?: string | null; status?: string | null; source?: string; applied?: boolean; courierEventId?: string | null; occurredAt?: Date },
) {
  await tx.deliveryEvent.create({
    data: {
      deliveryId,
      kind: e.kind,
      message: e.message ?? null,
      status: e.status ?? null,
      source: e.source ?? 'app',
      applied: e.applied ?? true,
      courierEventId: e.courierEventId ?? null,
      occurredAt: e.occurredAt ?? new Date(),
    },
  });
}

export async function enqueueDispatch(tx: Tx, queue: JobQueue, deliveryId: string, generation: number): Promise<void> {
  await queue.enqueue<DispatchJobData>(tx, JOBS.dispatch, { deliveryId, generation }, { singletonKey: `dispatch:${deliveryId}:${generation}` });
}

/**
 * A payload we cannot read will not improve on redelivery, and Shopify drops
 * subscriptions that keep failing: keep the receipt, log it loudly, answer 200.
 */
function readOrder(payload: unknown, log: Logger): OrderSnapshot | null {
  try {
    return parseOrderSnapshot(payload);
  } catch (e) {
    if (!(e instanceof OrderPayloadError)) throw e;
    log.error({ err: e.message }, 'unreadable order webhook payload; acknowledged without effect');
    return null;
  }
}

/** orders/paid: record the order once and queue its dispatch, or record why it is skipped. */
export function ordersPaidHandler(queue: JobQueue): TopicHandler {
  return async ({ tx, shop, payload, log, afterCommit, ignore }) => {
    const order = readOrder(payload, log);
    if (!order) return;
    // The hot path: keep the transaction to a few statements (it holds SQLite's single writer).
    // Only an installed shop books: never installed, uninstalled or redacted shops get no row and no booking.
    const shopRow = await tx.shop.findUnique({ where: { domain: shop } });
    if (!shopRow || shopRow.uninstalledAt) {
      ignore(shopRow ? 'the app is uninstalled from this shop' : 'the app is not installed on this shop');
      return;
    }
    const shopifyOrderId = orderIdOf(order);
    const existing = await tx.delivery.findUnique({ where: { shopId_shopifyOrderId: { shopId: shopRow.id, shopifyOrderId } }, select: { id: true, status: true } });
    if (existing) {
      log.info({ deliveryId: existing.id, status: existing.status }, 'orders/paid for an order we already hold; nothing changed');
      return;
    }
    const settings = parseStoredSettings(shopRow.settings);
    const decision = decideEligibility(order, settings);
    const now = new Date();
    const delivery = await tx.delivery.create({
      data: {
        shopId: shopRow.id,
        shopifyOrderId,
        orderName: order.name,
        environment: settings.activeEnvironment,
        status: decision.dispatch ? 'PENDING' : 'SKIPPED',
        reasonCode: decision.dispatch ? null : decision.code,
        reason: decision.dispatch ? null : decision.message,
        orderJson: writeOrderJson(order),
        customerId: order.customer?.id ?? null,
        events: {
          create: [
            { kind: 'received', message: `Order ${order.name} paid`, source: 'shopify', occurredAt: now },
            ...(decision.dispatch ? [] : [{ kind: 'skipped', message: decision.message, source: 'app', occurredAt: now }]),
          ],
        },
      },
      select: { id: true },
    });
    if (decision.dispatch) {
      await enqueueDispatch(tx, queue, delivery.id, 1);
      afterCommit(() => queue.notify());
      log.info({ deliveryId: delivery.id, orderName: order.name }, 'order queued for dispatch');
    } else {
      log.info({ deliveryId: delivery.id, orderName: order.name, reason: decision.code }, 'order skipped');
    }
  };
}

/** orders/cancelled: never dispatch a cancelled order; flag a booked one for the merchant to cancel with the courier. */
export const ordersCancelledHandler: TopicHandler = async ({ tx, shop, payload, log }) => {
  const order = readOrder(payload, log);
  if (!order) return;
  const d = await tx.delivery.findFirst({ where: { shop: { domain: shop }, shopifyOrderId: orderIdOf(order) } });
  if (!d) {
    log.info('orders/cancelled for an order we never received; nothing to do');
    return;
  }
  const status = d.status as DeliveryStatus;
  if (status === 'DELIVERED' || status === 'CANCEL_REQUESTED_IN_SHOPIFY' || (status === 'SKIPPED' && d.reasonCode === 'cancelled')) {
    await addEvent(tx, d.id, { kind: 'shopify_cancelled', message: 'Order cancelled in Shopify', source: 'shopify' });
    return;
  }
  if (BOOKED.includes(status) || d.courierOrderId) {
    // The Delivery Orders API has no cancel endpoint: the merchant must cancel in the courier portal.
    const message = `Order was cancelled in Shopify after it was booked: cancel courier job ${d.dispatchJobId ?? d.courierOrderId} in the courier portal`;
    await tx.delivery.update({ where: { id: d.id }, data: { status: 'CANCEL_REQUESTED_IN_SHOPIFY', reasonCode: 'cancel_with_courier', reason: message } });
    await addEvent(tx, d.id, { kind: 'shopify_cancelled', message, source: 'shopify' });
    log.warn({ deliveryId: d.id, dispatchJobId: d.dispatchJobId }, 'booked order cancelled in Shopify: the merchant must cancel with the courier');
    return;
  }
  // PENDING (the job will find it no longer PENDING), NEEDS_ATTENTION, FAILED, SKIPPED.
  await tx.delivery.update({ where: { id: d.id }, data: { status: 'SKIPPED', reasonCode: 'cancelled', reason: 'Order was cancelled in Shopify' } });
  await addEvent(tx, d.id, { kind: 'shopify_cancelled', message: 'Order cancelled in Shopify before dispatch; it will not be sent', source: 'shopify' });
  log.info({ deliveryId: d.id }, 'order cancelled before dispatch');
};

// --- merchant actions -------------------------------------------------------

type DeliveryRow = NonNullable<Awaited<ReturnType<Tx['delivery']['findUnique']>>>;

async function loadForAction(tx: Tx, shopDomain: string, deliveryId: string): Promise<DeliveryRow> {
  const d = await tx.delivery.findFirst({ where: { id: deliveryId, shop: { domain: shopDomain } } });
  if (!d) throw new ActionError(`delivery ${deliveryId} not found`, 404);
  return d;
}

/**
 * Puts a delivery back in the queue. A new generation (and so a new
 * Idempotency-Key) is used when the courier may hold a different request under
 * the current key; otherwise the stored request is resent unchanged, which is
 * what makes retrying after an unknown outcome safe.
 */
async function requeue(
  tx: Tx,
  queue: JobQueue,
  d: DeliveryRow,
  opts: { newGeneration: boolean; rebuild: boolean; note: string; overrides?: Overrides },
) {
  const generation = opts.newGeneration ? d.generation + 1 : d.generation;
  const data: Record<string, unknown> = { status: 'PENDING', reasonCode: null, reason: null, lastError: null, generation };
  if (opts.overrides) data.overridesJson = writeOverridesJson(opts.overrides);
  if (opts.newGeneration || opts.rebuild) {
    // A rebuilt request goes to the environment active now; a resent one stays where it was sent.
    const settings = parseStoredSettings((await tx.shop.findUniqueOrThrow({ where: { id: d.shopId } })).settings);
    Object.assign(data, { requestBody: null, idempotencyKey: null, createSentAt: null, tries: 0, environment: settings.activeEnvironment });
  }
  if (opts.newGeneration) {
    Object.assign(data, {
      responseBody: null, requestId: null, courierOrderId: null, courierOrderStatus: null, dispatchJobId: null, courierDeliveryId: null,
      deliveryPrice: null, currency: null, courierStatus: null, courierStatusRank: 0, courierStatusAt: null, fulfillmentId: null,
      shopifyStatus: null, dispatchedAt: null, courierOrders: null, learnAfter: null, learnReads: 0,
    });
  }
  // Guard only what this decision rests on: background bookkeeping (sync watermarks, timestamps) may change freely.
  const n = await tx.delivery.updateMany({ where: { id: d.id, status: d.status, generation: d.generation }, data });
  if (n.count !== 1) throw new ActionError('the delivery changed meanwhile; reload and try again');
  await addEvent(tx, d.id, { kind: 'requeued', message: opts.note, source: 'merchant' });
  await enqueueDispatch(tx, queue, d.id, generation);
}

/** Dispatch a recorded order now, bypassing auto-dispatch and the shipping-method/country rules. */
export async function dispatchNow(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  if (d.status !== 'SKIPPED') return retryDelivery(tx, queue, shopDomain, deliveryId);
  const settings = parseStoredSettings((await tx.shop.findUniqueOrThrow({ where: { id: d.shopId } })).settings);
  const decision = decideEligibility(readOrderJson(d), settings, { manual: true });
  if (!decision.dispatch) throw new ActionError(decision.message, 422);
  await requeue(tx, queue, d, attentionRequeue(d, 'Dispatch requested by the merchant'));
}

/** An order we never received (no webhook, or before install): record it from Shopify's data and queue it. */
export async function recordAndDispatch(tx: Tx, queue: JobQueue, shopDomain: string, payload: unknown) {
  const order = parseOrderSnapshot(storableDeep(payload));
  const shopRow = await ensureShop(tx, shopDomain);
  const shopifyOrderId = orderIdOf(order);
  const existing = await tx.delivery.findUnique({ where: { shopId_shopifyOrderId: { shopId: shopRow.id, shopifyOrderId } } });
  if (existing) return dispatchNow(tx, queue, shopDomain, existing.id).then(() => existing.id);
  const settings = parseStoredSettings(shopRow.settings);
  const decision = decideEligibility(order, settings, { manual: true });
  if (!decision.dispatch) throw new ActionError(decision.message, 422);
  const d = await tx.delivery.create({
    data: {
      shopId: shopRow.id, shopifyOrderId, orderName: order.name, environment: settings.activeEnvironment, status: 'PENDING',
      orderJson: writeOrderJson(order), customerId: order.customer?.id ?? null,
    },
  });
  await addEvent(tx, d.id, { kind: 'received', message: `Order ${order.name} dispatched by the merchant`, source: 'merchant' });
  await enqueueDispatch(tx, queue, d.id, 1);
  return d.id;
}

/** FAILED: resend the stored request (same key). NEEDS_ATTENTION: rebuild from the order. */
export async function retryDelivery(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  if (d.status === 'NEEDS_ATTENTION' && d.reasonCode === 'shopify_error' && d.courierOrderId) {
    // The courier side is fine; only the Shopify write-back failed: write it again.
    const status = isSuccess(d.courierStatus) ? 'DELIVERED' : d.courierStatusRank > 0 ? 'IN_PROGRESS' : 'CREATED';
    await tx.delivery.update({ where: { id: d.id }, data: { status, reasonCode: null, reason: null, lastError: null, syncLockedUntil: null } });
    await addEvent(tx, d.id, { kind: 'requeued', message: 'Shopify update retried', source: 'merchant' });
    await queue.enqueue<DeliveryJobData>(tx, JOBS.fulfillmentSync, { deliveryId: d.id });
    return;
  }
  if (d.status === 'FAILED') return requeue(tx, queue, d, { newGeneration: false, rebuild: false, note: 'Retry requested' });
  if (d.status === 'NEEDS_ATTENTION') return requeue(tx, queue, d, attentionRequeue(d, 'Retry requested'));
  if (d.status === 'SKIPPED') throw new ActionError('delivery was skipped; use dispatch now to send it');
  throw new ActionError(`delivery is ${d.status}; nothing to retry`);
}

/** A correction refused by the validator (web/dispatch/fix.ts), with an error per field. */
export class FixValidationError extends ActionError {
  readonly errors: Record<string, string>;
  constructor(errors: Record<string, string>) {
    super('The correction is not valid', 422);
    this.errors = errors;
  }
}

/** Check a merchant's correction (the one validator), store it and retry. */
export async function fixAndRetry(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string, input: unknown) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  const checked = checkFix(input, readOrderJson(d));
  if (!checked.ok) throw new FixValidationError(checked.errors);
  if (!['NEEDS_ATTENTION', 'FAILED', 'SKIPPED'].includes(d.status)) throw new ActionError(`delivery is ${d.status}; it cannot be changed now`);
  const overrides = { ...readOverridesJson(d), ...checked.fix };
  return requeue(tx, queue, d, { ...attentionRequeue(d, `Corrected ${Object.keys(checked.fix).join(', ')} and retried`), rebuild: true, overrides });
}

/** After a courier-side failure or cancellation: book a new delivery under a new key. */
export async function redispatch(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  if (!ACTIONABLE.includes(d.status as DeliveryStatus)) throw new ActionError(`delivery is ${d.status}; only failed or attention deliveries can be re-dispatched`);
  return requeue(tx, queue, d, { newGeneration: d.tries > 0 || d.courierOrderId !== null, rebuild: true, note: 'Re-dispatch requested' });
}

/**
 * From NEEDS_ATTENTION: when the courier never received a request under the
 * current key (our own checks stopped it), rebuild under the same generation;
 * when it did (the courier refused or failed it), use a new generation.
 */
function attentionRequeue(d: DeliveryRow, note: string) {
  const sent = d.tries > 0 || d.courierOrderId !== null;
  return { newGeneration: sent, rebuild: true, note };
}

export function problemsMessage(problems: Problem[]): string {
  return problems.map((p) => p.message).join('; ');
}
