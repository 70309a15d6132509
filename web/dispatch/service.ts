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
import { releaseFor } from '../slots/capacity.ts';
import type { Tx } from '../db/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { ensureShop } from '../settings/store.ts';
import type { TopicHandler } from '../inbox/shopify.ts';
import { decideEligibility } from './eligibility.ts';
import type { Logger } from '../ops/logger.ts';
import { OrderPayloadError, orderIdOf, parseOrderSnapshot, type OrderSnapshot, type Overrides } from '../order/snapshot.ts';
import { applyFix, checkFix } from './fix.ts';
import { readOrderJson, readOverridesJson, writeOrderJson, writeOverridesJson } from '../db/json-columns.ts';
import { isSuccess } from '../lifecycle/progress.ts';
import type { Problem, ReasonCode } from './status.ts';
import { decideAddressChange, type AddressChangeDecision } from './address-change.ts';
import { BOOKED, decide, factsOf, newGeneration, type DeliveryStatus, type Facts, type MerchantAction, type Row } from '../lifecycle/machine.ts';
import { ActionError, createDelivery, merchantTransition, readFullDelivery, transitionLatest } from '../transitions/transition.ts';
import { addEvent } from '../transitions/timeline.ts';
import { insertRow } from '../db/raw-rows.ts';
import type { SecretBox } from '../security/crypto.ts';
import { storableDeep } from '../security/text.ts';

// Kept here so the admin API and the CLI import merchant actions from one place.
export { ActionError };

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
export function ordersPaidHandler(queue: JobQueue, clock: () => number, box: SecretBox): TopicHandler {
  return async ({ tx, shop, payload, log, afterCommit, ignore, rerun }) => {
    const order = readOrder(payload, log);
    if (!order) return;
    // The hot path: keep the transaction to a few statements (it holds SQLite's single writer).
    // Only an installed shop books: never installed, uninstalled or redacted shops get no row and no booking.
    // One raw read (a compiled findUnique costs several times more CPU); only these three columns are used.
    const [shopRow] = await tx.$queryRaw<Array<{ id: string; uninstalledAt: unknown; settings: string }>>`
      SELECT "id", "uninstalledAt", "settings" FROM "Shop" WHERE "domain" = ${shop}`;
    if (!shopRow || shopRow.uninstalledAt) {
      ignore(shopRow ? 'the app is uninstalled from this shop' : 'the app is not installed on this shop');
      return;
    }
    const shopifyOrderId = orderIdOf(order);
    // A repeat of an order we hold fails the insert on the unique (shop, order); the intake then
    // reruns the transaction once with `rerun`, and only that run looks for the existing row.
    if (rerun) {
      const existing = await tx.delivery.findUnique({ where: { shopId_shopifyOrderId: { shopId: shopRow.id, shopifyOrderId } }, select: { id: true, status: true } });
      if (existing) {
        log.info({ deliveryId: existing.id, status: existing.status }, 'orders/paid for an order we already hold; nothing changed');
        return;
      }
    }
    const settings = parseStoredSettings(shopRow.settings);
    const decision = decideEligibility(order, settings);
    const now = new Date(clock());
    const delivery = await createDelivery(tx, queue, decision.dispatch ? 'received' : 'received_skipped', async (status) => {
      // A raw insert, the order snapshot sealed with the box (a compiled create cost ~1 ms of CPU, issue 24).
      // A repeat of the order fails it on the unique (shop, order) as the create did: the rerun above.
      const id = await insertRow(tx, 'Delivery', {
        shopId: shopRow.id,
        shopifyOrderId,
        orderName: order.name,
        environment: settings.activeEnvironment,
        status,
        reasonCode: decision.dispatch ? null : decision.code,
        reason: decision.dispatch ? null : decision.message,
        orderJson: writeOrderJson(order),
        customerId: order.customer?.id ?? null,
        createdAt: now,
      }, box);
      // shopId: the dispatch job's group, without reading the row back (runEffects).
      const row = { id, shopId: shopRow.id };
      // The timeline by raw inserts: a compiled createMany cost ~1 ms of CPU more (nested in the create, twice that).
      await addEvent(tx, row.id, { kind: 'received', message: `Order ${order.name} paid`, source: 'shopify', occurredAt: now });
      if (!decision.dispatch) await addEvent(tx, row.id, { kind: 'skipped', message: decision.message, source: 'app', occurredAt: now });
      return row;
    });
    if (decision.dispatch) {
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
  const found = await tx.delivery.findFirst({ where: { shop: { domain: shop }, shopifyOrderId: orderIdOf(order) }, select: { id: true } });
  if (!found) {
    log.info('orders/cancelled for an order we never received; nothing to do');
    return;
  }
  const r = await transitionLatest(tx, null, found.id, (d) => {
    const next = decide(factsOf(d), 'shopify_cancelled');
    if (next.ok && next.row.to === 'CANCEL_REQUESTED_IN_SHOPIFY') {
      // The Delivery Orders API has no cancel endpoint: the merchant must cancel in the courier portal.
      const message = `Order was cancelled in Shopify after it was booked: cancel courier job ${d.dispatchJobId ?? d.courierOrderId} in the courier portal`;
      return { event: 'shopify_cancelled', data: { reasonCode: 'cancel_with_courier', reason: message }, timeline: { kind: 'shopify_cancelled', message, source: 'shopify' } };
    }
    if (next.ok && next.row.to === 'SKIPPED') {
      // PENDING (the job will find it no longer PENDING), NEEDS_ATTENTION, FAILED, SKIPPED.
      return {
        event: 'shopify_cancelled', data: { reasonCode: 'cancelled', reason: 'Order was cancelled in Shopify' },
        timeline: { kind: 'shopify_cancelled', message: 'Order cancelled in Shopify before dispatch; it will not be sent', source: 'shopify' },
      };
    }
    return { event: 'shopify_cancelled', timeline: { kind: 'shopify_cancelled', message: 'Order cancelled in Shopify', source: 'shopify' } };
  });
  if (!r.applied) return;
  if (r.decision.row.to === 'CANCEL_REQUESTED_IN_SHOPIFY') {
    log.warn({ deliveryId: found.id, dispatchJobId: r.row?.dispatchJobId }, 'booked order cancelled in Shopify: the merchant must cancel with the courier');
  } else if (r.decision.row.to === 'SKIPPED') {
    // Not booked: a place it held in a delivery slot goes back to the cart.
    if (r.row) await releaseFor(tx, r.row);
    log.info({ deliveryId: found.id }, 'order cancelled before dispatch');
  }
};

/** Reasons an address or phone edit in Shopify may fix: the delivery is booked again with the new data. */
const FIXED_BY_ADDRESS: readonly ReasonCode[] = ['no_shipping_address', 'incomplete_address', 'missing_coordinates', 'invalid_phone', 'missing_phone', 'invalid_field'];

/**
 * orders/updated (also fired by our own tag and metafield writes): a new
 * shipping address or phone. Before booking it replaces the stored order (and
 * the corrections it makes wrong); after booking the courier has the old
 * details, so the delivery is flagged (reason address_changed) and keeps its status.
 */
export function ordersUpdatedHandler(queue: JobQueue): TopicHandler {
  return async ({ tx, shop, payload, log, afterCommit, ignore }) => {
    const order = readOrder(payload, log);
    if (!order) return;
    const found = await tx.delivery.findFirst({ where: { shop: { domain: shop }, shopifyOrderId: orderIdOf(order) }, select: { id: true, shopId: true, redactedAt: true } });
    if (!found) {
      log.info('orders/updated for an order we do not hold; nothing to do');
      return;
    }
    // Erased on request: never store the customer's details again.
    if (found.redactedAt) return ignore('the order\'s personal data was erased');
    const environment = await activeEnvironmentOf(tx, found.shopId);
    let outcome: AddressChangeDecision | null = null;
    let requeued = false;
    const r = await transitionLatest(tx, queue, found.id, (d) => {
      const stored = readOrderJson(d);
      // A create that went out may still book the old request: from here on it counts as booked.
      const inFlight = d.status === 'PENDING' && d.requestBody !== null && d.tries > 0;
      const booked = d.courierOrderId !== null || inFlight;
      const status = booked && !BOOKED.includes(d.status as DeliveryStatus) ? 'CREATED' : (d.status as DeliveryStatus);
      const decision = decideAddressChange({ stored, payload, status, storedUpdatedAt: stored.updated_at, overrides: readOverridesJson(d) });
      outcome = decision;
      requeued = false;
      if (decision.kind === 'none') {
        return null;
      }
      const what = decision.changed.map((c) => c.replace('shipping_address.', '')).join(', ');
      if (decision.kind === 'flag') {
        const message = inFlight ? `${decision.message} (the change arrived while the booking was being sent)` : decision.message;
        // A reason already shown (a cancellation, duplicate orders, a refusal) stays; the timeline says what changed.
        const flag = d.reasonCode === null ? { reasonCode: 'address_changed', reason: message } : {};
        return { event: 'shopify_address_changed', data: { orderJson: writeOrderJson(decision.snapshot), ...flag }, timeline: { kind: 'address_changed', message, source: 'shopify' } };
      }
      const overrides = readOverridesJson(d);
      for (const k of decision.dropOverrides) delete overrides[k];
      const data: Record<string, unknown> = { orderJson: writeOrderJson(decision.snapshot), overridesJson: writeOverridesJson(overrides) };
      const dropped = decision.dropOverrides.length ? `; your corrections of ${decision.dropOverrides.join(', ')} were replaced` : '';
      const facts = factsOf(d);
      const again = d.status === 'NEEDS_ATTENTION' && FIXED_BY_ADDRESS.includes(d.reasonCode as ReasonCode) ? decide(facts, 'shopify_address_updated') : null;
      if (again?.ok) {
        requeued = true;
        const generation = requeueData(d, again.row, facts, data, environment);
        return {
          event: 'shopify_address_updated', facts, generation, data: { ...data, reasonCode: null, reason: null, lastError: null },
          timeline: { kind: 'address_updated', message: `Shopify changed the order's ${what}${dropped}; queued for dispatch again`, source: 'shopify' },
        };
      }
      // A request built but never sent is built again from the new order, under the same key.
      if (d.requestBody !== null && !facts.sent) Object.assign(data, { requestBody: null, idempotencyKey: null, createSentAt: null });
      const resend = d.status === 'FAILED' && d.requestBody !== null ? '; Retry resends the request already sent (old details): use Fix or Re-dispatch to send the new ones' : '';
      return { event: 'shopify_address_changed', data, timeline: { kind: 'address_updated', message: `Shopify changed the order's ${what}${dropped}; the stored order was updated${resend}`, source: 'shopify' } };
    }, { read: readFullDelivery });
    const decided = outcome as AddressChangeDecision | null;
    if (r.applied && requeued) afterCommit(() => queue.notify());
    if (decided?.kind === 'none') {
      if (decided.reason === 'stale') return ignore('orders/updated not newer than the order stored');
      if (decided.reason === 'unparseable') return ignore(decided.message ?? 'unreadable order');
      // A delivered order's edits no longer matter (and its retention clock must not restart).
      if (decided.reason === 'unchanged' && r.row?.status !== 'DELIVERED') await keepNewest(tx, found.id, order.updated_at);
      return;
    }
    if (r.applied) log.info({ deliveryId: found.id, kind: decided?.kind, requeued }, 'order address changed in Shopify');
  };
}

/**
 * Remembers the newest updated_at seen, so an older edit that arrives late
 * (A→B sent before B→A, delivered after) is ignored. Not a status change.
 */
async function keepNewest(tx: Tx, deliveryId: string, updatedAt: string | null) {
  if (!updatedAt) return;
  const row = await tx.delivery.findUniqueOrThrow({ where: { id: deliveryId }, select: { orderJson: true, updatedAt: true } });
  const stored = readOrderJson(row);
  if (stored.updated_at && Date.parse(stored.updated_at) >= Date.parse(updatedAt)) return;
  // orderJson is encrypted at rest (not comparable in a where): updatedAt guards against a concurrent write.
  await tx.delivery.updateMany({ where: { id: deliveryId, updatedAt: row.updatedAt }, data: { orderJson: writeOrderJson({ ...stored, updated_at: updatedAt }) } });
}

// --- merchant actions -------------------------------------------------------

type DeliveryRow = NonNullable<Awaited<ReturnType<Tx['delivery']['findUnique']>>>;

async function loadForAction(tx: Tx, shopDomain: string, deliveryId: string): Promise<DeliveryRow> {
  const d = await tx.delivery.findFirst({ where: { id: deliveryId, shop: { domain: shopDomain } } });
  if (!d) throw new ActionError(`delivery ${deliveryId} not found`, 404);
  return d;
}

/**
 * Performs a merchant action the lifecycle table allows. Going back to PENDING,
 * a new generation (and so a new Idempotency-Key) is used when the courier may
 * hold a different request under the current key; otherwise the stored request
 * is resent unchanged, which is what makes retrying after an unknown outcome safe.
 */
async function act(tx: Tx, queue: JobQueue, d: DeliveryRow, action: MerchantAction, note: string, overrides?: Overrides) {
  const facts = factsOf(d, { courierProgress: isSuccess(d.courierStatus) ? 'delivered' : d.courierStatusRank > 0 ? 'moving' : 'booked' });
  const decision = decide(facts, action);
  if (!decision.ok) throw new ActionError(decision.message);
  const row = decision.row;
  if (row.manualEligibility) {
    // Sent although it was skipped: bypasses auto-dispatch and the shipping-method/country rules, nothing else.
    const settings = parseStoredSettings((await tx.shop.findUniqueOrThrow({ where: { id: d.shopId } })).settings);
    const eligible = decideEligibility(readOrderJson(d), settings, { manual: true });
    if (!eligible.dispatch) throw new ActionError(eligible.message, 422);
  }
  const data: Record<string, unknown> = { reasonCode: null, reason: null, lastError: null };
  // Only "dispatch now" overrides the pickup location's delivery window (web/windows/).
  if (row.to === 'PENDING') data.windowBypass = action === 'dispatch';
  if (row.to === 'BY_PROGRESS') {
    // Only the Shopify write-back failed: release its lease so the sync runs at once.
    data.syncLockedUntil = null;
    await merchantTransition(tx, queue, d, { event: action, data, facts, timeline: { kind: 'requeued', message: note, source: 'merchant' } });
    return;
  }
  const generation = requeueData(d, row, facts, data, row.request === 'rebuild' ? await activeEnvironmentOf(tx, d.shopId) : '');
  if (overrides) data.overridesJson = writeOverridesJson(overrides);
  // Guard only what this decision rests on (id, generation, status): background bookkeeping may change freely.
  await merchantTransition(tx, queue, d, { event: action, data, facts, generation, timeline: { kind: 'requeued', message: note, source: 'merchant' } });
}

/**
 * Back to PENDING: adds to `data` what the row's request policy needs (a rebuilt
 * request, to the environment active now, and a new generation once the courier
 * saw the old key); returns the generation.
 */
function requeueData(d: DeliveryRow, row: Row, facts: Facts, data: Record<string, unknown>, activeEnvironment: string): number {
  const fresh = newGeneration(row, facts);
  const generation = fresh ? d.generation + 1 : d.generation;
  data.generation = generation;
  // A resent request stays where it was sent.
  if (row.request === 'rebuild') Object.assign(data, { requestBody: null, idempotencyKey: null, createSentAt: null, tries: 0, environment: activeEnvironment });
  if (fresh) {
    Object.assign(data, {
      responseBody: null, requestId: null, courierOrderId: null, courierOrderStatus: null, dispatchJobId: null, courierDeliveryId: null,
      deliveryPrice: null, currency: null, courierStatus: null, courierStatusRank: 0, courierStatusAt: null,
      shopifyStatus: null, dispatchedAt: null, courierOrders: null, learnAfter: null, learnReads: 0,
      // The Shopify fulfillment stays (fulfillmentId): the sync moves its tracking to the new booking
      // (fulfillmentGeneration < generation); the new booking's events start from an empty watermark.
      shopifyRank: 0,
    });
  }
  return generation;
}

async function activeEnvironmentOf(tx: Tx, shopId: string): Promise<string> {
  return parseStoredSettings((await tx.shop.findUniqueOrThrow({ where: { id: shopId } })).settings).activeEnvironment;
}

/** Dispatch a recorded order now, bypassing auto-dispatch and the shipping-method/country rules. */
export async function dispatchNow(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  // Anything but a skipped order: "dispatch now" means retry it.
  if (!decide(factsOf(d), 'dispatch').ok) return retryDelivery(tx, queue, shopDomain, deliveryId);
  await act(tx, queue, d, 'dispatch', 'Dispatch requested by the merchant');
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
  const d = await createDelivery(tx, queue, 'recorded_by_merchant', (status) => tx.delivery.create({
    data: {
      shopId: shopRow.id, shopifyOrderId, orderName: order.name, environment: settings.activeEnvironment, status,
      orderJson: writeOrderJson(order), customerId: order.customer?.id ?? null,
    },
  }));
  await addEvent(tx, d.id, { kind: 'received', message: `Order ${order.name} dispatched by the merchant`, source: 'merchant' });
  return d.id;
}

/** FAILED: resend the stored request (same key). NEEDS_ATTENTION: rebuild from the order, or only write Shopify again. */
export async function retryDelivery(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  const writebackOnly = d.status === 'NEEDS_ATTENTION' && d.reasonCode === 'shopify_error' && d.courierOrderId !== null;
  await act(tx, queue, d, 'retry', writebackOnly ? 'Shopify update retried' : 'Retry requested');
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
  const overrides = applyFix(readOverridesJson(d), checked.fix);
  await act(tx, queue, d, 'fix', `Corrected ${Object.keys(checked.fix).join(', ')} and retried`, overrides);
}

/** After a courier-side failure or cancellation, or for a skipped order: book a new delivery (a new key once the courier saw the old one). */
export async function redispatch(tx: Tx, queue: JobQueue, shopDomain: string, deliveryId: string) {
  const d = await loadForAction(tx, shopDomain, deliveryId);
  await act(tx, queue, d, 'redispatch', 'Re-dispatch requested');
}

export function problemsMessage(problems: Problem[]): string {
  return problems.map((p) => p.message).join('; ');
}
