// The dispatch job: one PENDING delivery → one courier order.
//
// Exactly-once with the courier rests on two stored values per generation:
// the request body (built once, then resent byte for byte) and its
// Idempotency-Key. Both are committed BEFORE the first courier call, so a
// crash at any instant replays the same key and body, and the courier returns
// the original order instead of creating a second one:
//   crash before the call        → the job reruns and sends it;
//   crash during the call        → the job reruns; the courier dedupes by key;
//   crash after the courier answered, before we stored it → same, and we store
//                                  the replayed answer.
// A create whose outcome is unknown (timeout, dropped connection, crash) is
// never resent while it may still be in flight: booking.ts decides when to
// wait, when to look the order up by reference and adopt it, and when to send.
import type { AppContext } from '../context.ts';
import { MissingCredentialsError } from '../context.ts';
import { DeliveryApiError, errorDetails, OutcomeUnknownError, parseCreateOrderBody, serializeCreateOrder, type CreateOrderResult } from '../delivery/index.ts';
import { adoptedResult, bookingFailure, matchReference, nextCreateStep, summarise } from './booking.ts';
import { parseStoredSettings, type EnvironmentName, type Settings } from '../settings/schema.ts';
import type { CourierAccess } from '../delivery/types.ts';
import { cachedCourierAccess, type ShopGeocoderRow } from '../settings/store.ts';
import { DecryptionError } from '../security/crypto.ts';
import { workPaced } from '../shopify/paced-jobs.ts';
import { idempotencyKey, mapOrderToRequest } from './mapping.ts';
import { formatCents, toCents } from '../order/money.ts';
import { orderIdOf, type OrderSnapshot, type Overrides } from '../order/snapshot.ts';
import { readFulfillmentOrderIds, readOrderJson, readOverridesJson, writeFulfillmentOrderIds, writeOverridesJson } from '../db/json-columns.ts';
import { geocodeForDispatch } from './geocode.ts';
import { runWriteback } from './writeback.ts';
import { GeocodeError } from '../geocoding/index.ts';
import { problemsMessage } from './service.ts';
import { checkReference, flagDuplicates } from './duplicates.ts';
import { decidePickup, skipAtDispatch, waitForRouting } from './pickup.ts';
import { holdOutsideWindow, openScheduled } from './windows.ts';
import { holdForSlot } from '../slots/dispatch.ts';
import { errorMessage } from '../ops/errors.ts';
import { enqueueRematch } from '../fulfillment/events.ts';
import { insertCourierRefs } from '../fulfillment/refs.ts';
import { readRow, updateRows } from '../db/raw-rows.ts';
import { JOBS, type DispatchJobData, type DeliveryJobData } from '../jobs/names.ts';
import type { Job } from '../jobs/queue.ts';
import { decide, factsOf, liveTestOrder } from '../lifecycle/machine.ts';
import { enqueueSync } from '../transitions/effects.ts';
import { addEvent, type TimelineEntry } from '../transitions/timeline.ts';
import { transition, transitionLatest, type DeliveryRow as StoredDelivery } from '../transitions/transition.ts';
import type { Problem, ReasonCode } from './status.ts';

// The dispatch job is the one layer that retries a courier create (web/retry/budget.ts).
import { DISPATCH_RETRY } from '../retry/budget.ts';
export { DISPATCH_RETRY };

export interface DispatchOptions {
  /** How long a create with no answer may still be in flight at the courier. Default: twice the courier request timeout. */
  inFlightMs?: number;
  signal?: AbortSignal;
  /** The running dispatch job: completed in the transaction that stores its booking (SQLite: one commit less an order). */
  job?: Job;
}

export const DEFAULT_IN_FLIGHT_MS = 30_000;

export async function registerDispatchJobs(ctx: AppContext, retry: Partial<typeof DISPATCH_RETRY> = {}, opts: DispatchOptions = {}): Promise<void> {
  const policy = { ...DISPATCH_RETRY, ...retry };
  await workPaced<DispatchJobData>(ctx, JOBS.dispatch, (job) => runDispatch(ctx, job.data, job.attempt, { ...opts, signal: job.signal, job }), {
    concurrency: 8,
    // One shop's sale holds at most 6 of the 8: another shop's order is taken by the next free worker.
    groupConcurrency: 6,
    retry: policy,
    onExhausted: (job, error) => markFailed(ctx, job.data, error),
  });
  await workPaced<DeliveryJobData>(ctx, JOBS.writeback, (job) => runWriteback(ctx, job), {
    concurrency: 4,
    // One per shop: each takes the shop's other waiting write-backs with it (web/dispatch/writeback.ts).
    groupConcurrency: 1,
    retry: policy,
    onExhausted: async (job, error) => {
      await addEvent(ctx.db, job.data.deliveryId, { kind: 'writeback_failed', message: `Could not write the delivery to the Shopify order: ${errorMessage(error)}` });
    },
  });
}

async function attention(ctx: AppContext, d: { id: string; generation: number; reasonCode: string | null; courierOrderId: string | null; tries: number }, code: ReasonCode, message: string, extra: Record<string, unknown> = {}) {
  await ctx.db.$transaction((tx) =>
    transition(tx, null, { ...d, status: 'PENDING' }, {
      event: 'needs_attention', data: { reasonCode: code, reason: message, ...extra }, timeline: { kind: 'attention', message },
    }));
  ctx.log.warn({ deliveryId: d.id, reason: code }, `delivery needs attention: ${message}`);
}

export async function runDispatch(ctx: AppContext, job: DispatchJobData, attempt = 1, opts: DispatchOptions = {}, rebuilt = 0): Promise<void> {
  let d = await readForDispatch(ctx, job.deliveryId);
  // Scheduled outside the delivery window, and its time has come: PENDING again, then dispatched as usual.
  if (d?.status === 'SCHEDULED' && d.generation === job.generation && await openScheduled(ctx, d)) d = await readForDispatch(ctx, job.deliveryId);
  // Superseded (a newer generation), already done, or cancelled meanwhile: nothing to do.
  if (!d || d.generation !== job.generation || d.status !== 'PENDING') return;
  // A routing re-check only starts a booking; once a request is stored, the job that stored it owns the call.
  if (job.recheck && d.requestBody) return;
  const log = ctx.log.child({ deliveryId: d.id, shop: d.shop.domain, orderName: d.orderName, attempt });
  // Queued before the app was uninstalled: book nothing for a shop that no longer has the app.
  if (d.shop.uninstalledAt) return attention(ctx, d, 'shop_uninstalled', 'The app was uninstalled from this shop; the order was not sent to the courier');
  const env = (d.environment ?? 'test') as EnvironmentName;
  const settings = parseStoredSettings(d.shop.settings);
  const order = readOrderJson(d);
  const testOrder = liveTestOrder(order.test, env);
  if (testOrder) return attention(ctx, d, testOrder.code, testOrder.message);

  let access;
  try {
    access = await cachedCourierAccess(ctx.db, ctx.box, d.shopId, env, ctx.config.courierBaseUrls);
  } catch (e) {
    if (!(e instanceof DecryptionError)) throw e;
    // Waiting will not help: the key this process has cannot read the stored secrets.
    return attention(ctx, d, 'missing_credentials', `The stored courier ${env} secrets cannot be read (${e.message}); enter them again`);
  }
  let client;
  try {
    client = ctx.courier.for(d.shop.domain, access);
  } catch (e) {
    if (e instanceof MissingCredentialsError) return attention(ctx, d, 'missing_credentials', e.message);
    throw e;
  }

  let body = d.requestBody;
  let key = d.idempotencyKey;
  // The request's own reference, for the duplicate check after booking (not parsed again from the body).
  let reference: string;
  if (!body || !key) {
    // First attempt of this generation: where (and whether) to book, from a fresh read of the fulfillment orders.
    const where = await decidePickup(ctx, d.shop.domain, order, {
      routingSeen: d.routingCompleteAt !== null, previousLocationId: d.locationId,
      // A new generation after an earlier booking: its own fulfillment may have closed the fulfillment orders.
      rebooking: d.generation > 1 && d.locationId ? { locationId: d.locationId, fulfillmentOrderIds: readFulfillmentOrderIds(d) } : null,
    });
    if (where.kind === 'wait') return waitForRouting(ctx, d, where.message);
    if (where.kind === 'skip') return skipAtDispatch(ctx, d, where.code, where.message);
    if (where.kind === 'attention') return attention(ctx, d, where.code, where.message);
    // A delivery slot the customer chose on the cart decides when to book (web/slots/); else the window does.
    const slot = await holdForSlot(ctx, d, d.shopId, settings, order.note_attributes, where.locationId, (m) => attention(ctx, d!, 'slot_unavailable', m));
    if (slot === 'hold') return;
    if (slot === 'none' && await holdOutsideWindow(ctx, d, settings, where.locationId)) return;
    const chosen = { locationId: where.locationId, fulfillmentOrderIds: writeFulfillmentOrderIds(where.fulfillmentOrderIds) };
    if (where.movedFrom) {
      await addEvent(ctx.db, d.id, { kind: 'location_moved', source: 'shopify', message: `The fulfillment order moved from location ${where.movedFrom} to ${where.locationName ?? where.locationId}; booking from the new location` });
    }
    // Then the coordinates (geocoded when the address has none), and the request, built once.
    const overrides = await geocodeIfNeeded(ctx, d, d.shop, order);
    if (!overrides) return;
    const mapped = await buildRequest(ctx, d.shop.domain, order, overrides, env, settings, access, where.locationId);
    if (!mapped.ok) return attention(ctx, d, mapped.problems[0]!.code, problemsMessage(mapped.problems), { lastError: null, ...chosen });
    body = serializeCreateOrder(mapped.request);
    reference = mapped.request.reference;
    key = idempotencyKey(env, d.shop.domain, orderIdOf(order), d.generation);

    if (settings.maxDeliveryPrice) {
      const problem = await checkQuote(client, body, settings.maxDeliveryPrice);
      if (problem) return attention(ctx, d, problem.code, problem.message);
    }
    // updatedAt unchanged: the order we built from is still the stored one (orders/updated may replace it meanwhile).
    // Raw, with the box sealing the body (a compiled updateMany cost ~1 ms of CPU, issue 24).
    const stored = await updateRows(ctx.db, 'Delivery',
      { id: d.id, generation: d.generation, status: 'PENDING', requestBody: null, updatedAt: d.updatedAt },
      { requestBody: body, idempotencyKey: key, tries: { increment: 1 }, createSentAt: new Date(ctx.now()), ...chosen },
      ctx.box);
    if (stored !== 1) {
      // Another worker built it first (its job owns the call), or the row changed: build again from what is stored now.
      const now = await ctx.db.delivery.findUnique({ where: { id: d.id }, select: { requestBody: true } });
      if (now?.requestBody !== null) return;
      if (rebuilt < 3) return runDispatch(ctx, job, attempt, opts, rebuilt + 1);
      // Still nothing stored (e.g. sync lease writes kept moving updatedAt): retry the job, never leave it PENDING with no job.
      throw new Error('the delivery kept changing while its courier request was built; trying again');
    }
  } else {
    reference = referenceOf(body);
    const step = nextCreateStep(d.createSentAt?.getTime() ?? null, ctx.now(), opts.inFlightMs ?? DEFAULT_IN_FLIGHT_MS);
    if (step.kind === 'wait') {
      log.info({ waitMs: step.ms }, 'an earlier create may still be in flight; waiting before looking it up');
      await sleep(step.ms, opts.signal);
    }
    if (step.kind !== 'send') {
      // Throws (and the job retries) if the courier cannot be asked: nothing is sent blind.
      const found = matchReference(await client.findOrdersByReference(reference), reference);
      if (found) {
        // The adopted line is written with the booking, so a crash cannot leave one without the other.
        await recordCreated(ctx, d.id, d.generation, access, adoptedResult(found.keep, reference), settings.fulfillment.trigger === 'accepted', d,
          { kind: 'adopted', source: 'courier', message: `The create had no answer; found courier order ${found.keep.id} by reference ${reference} and adopted it` }, opts.job);
        if (found.all.length > 1) await flagDuplicates(ctx, d.id, d.generation, summarise(found.all));
        ctx.queue.notify();
        log.info({ courierOrderId: found.keep.id, orders: found.all.length }, 'courier order adopted by reference');
        return;
      }
      log.info({ reference }, 'no courier order for the reference; sending the stored create again');
    }
    await ctx.db.delivery.update({ where: { id: d.id }, data: { tries: { increment: 1 }, createSentAt: new Date(ctx.now()) } });
  }

  let result: CreateOrderResult;
  try {
    result = await client.createOrder({ body, idempotencyKey: key });
  } catch (e) {
    // Unknown outcome (and a 2xx we could not read): the order may exist; keep createSentAt so the next attempt looks it up first.
    const unknown = e instanceof OutcomeUnknownError || (e instanceof DeliveryApiError && e.kind === 'bad_response');
    if (e instanceof DeliveryApiError && !e.retryable && e.kind !== 'bad_response') {
      return attention(ctx, d, reasonForCourierError(e), `Courier refused the order: ${courierErrorText(e)}`, { lastError: e.message, createSentAt: null });
    }
    await ctx.db.delivery.update({ where: { id: d.id }, data: { lastError: errorMessage(e), ...(unknown ? {} : { createSentAt: null }) } });
    log.warn({ err: errorMessage(e), outcomeUnknown: unknown }, 'courier create failed; the job will retry');
    // Wrapped so the queue retries it; the cause tells markFailed it was the courier's answer.
    throw e instanceof DeliveryApiError && !e.retryable ? new Error(e.message, { cause: e }) : e;
  }
  // The row as this job left it (tries incremented): recordCreated's update checks it is still current.
  await recordCreated(ctx, d.id, d.generation, access, result, settings.fulfillment.trigger === 'accepted', { ...d, tries: d.tries + 1 }, undefined, opts.job);
  ctx.queue.notify();
  log.info({ courierOrderId: result.orderId, dispatchJobId: result.dispatchId, price: result.deliveryPrice, currency: result.currency }, 'courier order created');
  await checkReference(ctx, d.id, d.generation, client, reference, result.orderId);
}

/** The shop columns dispatch uses (uninstalledAt only as set or not: its raw form differs per database). */
type DispatchShop = ShopGeocoderRow & { domain: string; uninstalledAt: unknown; settings: string };

/**
 * The delivery and its shop's columns, by two raw reads (the delivery's protected fields opened with the
 * box): a compiled findUnique cost ~1 ms of CPU, and `include: { shop: true }` half as much again.
 */
async function readForDispatch(ctx: AppContext, deliveryId: string) {
  const d = await readRow(ctx.db, 'Delivery', deliveryId, ctx.box);
  if (!d) return null;
  const [shop] = await ctx.db.$queryRaw<DispatchShop[]>`
    SELECT "domain", "uninstalledAt", "settings", "geocoderProvider", "geocoderUrl", "geocoderKeyEnc" FROM "Shop" WHERE "id" = ${d.shopId}`;
  // Gone between the two reads (deleting a shop deletes its deliveries): as if the delivery were gone.
  return shop ? { ...d, shop } : null;
}

/**
 * The overrides to build the request with: geocoded when the address has no
 * coordinates and a geocoder is configured (web/dispatch/geocode.ts). null when
 * the delivery went to NEEDS_ATTENTION or another worker moved it on.
 */
async function geocodeIfNeeded(ctx: AppContext, d: DeliveryRow, shop: ShopGeocoderRow, order: OrderSnapshot): Promise<Overrides | null> {
  const overrides = readOverridesJson(d);
  const step = await geocodeForDispatch(ctx, order, overrides, shop);
  if (!step) return overrides;
  if (step.kind === 'attention') {
    await attention(ctx, d, step.problem.code, step.problem.message, { overridesJson: writeOverridesJson(step.overrides), lastError: null });
    return null;
  }
  const stored = await ctx.db.delivery.updateMany({
    where: { id: d.id, generation: d.generation, status: 'PENDING', requestBody: null },
    data: { overridesJson: writeOverridesJson(step.overrides) },
  });
  if (stored.count !== 1) return null;
  await addEvent(ctx.db, d.id, { kind: 'geocoded', message: step.note });
  return step.overrides;
}

type DeliveryRow = { id: string; generation: number; reasonCode: string | null; courierOrderId: string | null; tries: number; overridesJson: string };

function referenceOf(body: string): string {
  const parsed = parseCreateOrderBody(body);
  if (!parsed.ok) throw new Error(`the stored request body is unreadable: ${parsed.message}`);
  return parsed.request.reference;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error('aborted'));
    }, { once: true });
  });
}

/**
 * The create-order request for an order, exactly as dispatch builds it (also used for merchant quotes).
 * @param locationId the fulfilling location (decidePickup); when not given, it is read from the fulfillment orders.
 */
export async function buildRequest(
  ctx: AppContext, shopDomain: string, order: OrderSnapshot, overrides: Overrides, env: EnvironmentName, settings: Settings, access: CourierAccess,
  locationId?: string | null,
) {
  if (locationId === undefined) {
    // A quote: only ask Shopify when the shop maps locations to stores; routing counts as done.
    const where = Object.keys(access.locationStores).length > 0 ? await decidePickup(ctx, shopDomain, order, { routingSeen: true }) : null;
    locationId = where?.kind === 'dispatch' ? where.locationId : null;
  }
  return mapOrderToRequest(order, {
    shopDomain,
    environment: env,
    settings,
    pickupStoreId: access.pickupStoreId,
    locationStores: access.locationStores,
    locationId,
    overrides,
  });
}

async function checkQuote(client: ReturnType<AppContext['courier']['for']>, body: string, max: string): Promise<Problem | null> {
  let quote;
  try {
    quote = await client.quote(body);
  } catch (e) {
    if (e instanceof DeliveryApiError && !e.retryable) return { code: reasonForCourierError(e), message: `Could not get a price quote: ${courierErrorText(e)}` };
    throw e;
  }
  const price = toCents(quote.price);
  const limit = toCents(max)!;
  if (price === null) return { code: 'courier_rejected', message: `The courier quoted an unreadable price '${quote.price}'` };
  if (price > limit) {
    const cur = quote.currency ? ` ${quote.currency}` : '';
    return { code: 'price_above_max', message: `Quoted price ${formatCents(price)}${cur} is above your maximum of ${formatCents(limit)}${cur}` };
  }
  return null;
}

/** Stores the courier's answer and queues the Shopify write-back, in one transaction. */
export async function recordCreated(
  ctx: AppContext,
  deliveryId: string,
  generation: number,
  access: Pick<CourierAccess, 'environment' | 'environmentId'>,
  r: CreateOrderResult,
  fulfilNow: boolean,
  known?: StoredDelivery,
  /** A second timeline line, written in the same transaction and only when the booking is stored. */
  note?: TimelineEntry,
  /**
   * The running job that books it, completed in this transaction (JobQueue.completeIn). Nothing
   * after the booking needs the job to run again: a rerun finds the delivery booked and returns.
   */
  settles?: Job,
): Promise<void> {
  const env = access.environment;
  await ctx.db.$transaction(async (tx) => {
    const done = await transitionLatest(tx, ctx.queue, deliveryId, (current) => {
      if (current.generation !== generation) return null;
      // Cancelled in Shopify while the call was in flight: the courier order exists, so say so.
      const next = decide(factsOf(current), 'booked');
      const cancelled = next.ok && next.to === 'CANCEL_REQUESTED_IN_SHOPIFY' && next.from !== next.to;
      return {
        event: 'booked',
        data: {
          ...(cancelled
            ? { reasonCode: 'cancel_with_courier', reason: `Order was cancelled in Shopify while it was being booked: cancel courier job ${r.dispatchId} in the courier portal` }
            // An address edit that arrived while the create was out: the courier has the old details.
            : current.reasonCode === 'address_changed' ? {} : { reasonCode: null, reason: null }),
          courierOrderId: r.orderId,
          courierOrderStatus: r.orderStatus,
          // An adopted order read may lack some of these (web/dispatch/booking.ts adoptedResult).
          dispatchJobId: r.dispatchId || null,
          requestId: r.requestId || null,
          deliveryPrice: r.deliveryPrice || null,
          currency: r.currency || null,
          responseBody: r.responseText,
          lastError: null,
          createSentAt: null,
          dispatchedAt: current.dispatchedAt ?? new Date(ctx.now()),
          writebackPending: true,
          ...(r.deliveryId ? { courierDeliveryId: r.deliveryId } : {}),
        },
        // Everything decided on above, so a stale `known` row updates nothing (and is read again).
        where: { reasonCode: current.reasonCode, courierOrderId: current.courierOrderId, dispatchedAt: current.dispatchedAt },
        // responseBody is protected: sealed here, the update stays one raw statement.
        box: ctx.box,
        timeline: {
          kind: 'created',
          status: r.orderStatus,
          source: 'courier',
          message: `Courier order ${r.orderId} created: job ${r.dispatchId || 'not given'}, ${r.deliveryPrice ? `${r.deliveryPrice} ${r.currency}` : 'price not given'}`,
        },
      };
    }, { known });
    if (!done.applied) return;
    const current = done.row!;
    if (note) await addEvent(tx, deliveryId, note);
    // This generation's ids are new: no webhook could have taught us them before this commit.
    const refs = ([['order', r.orderId], ['dispatch', r.dispatchId], ['delivery', r.deliveryId]] as const).filter(([, v]) => !!v);
    await insertCourierRefs(tx, refs.map(([kind, value]) => ({ deliveryId, shopId: current.shopId, environment: env, generation, kind, value: value! })));
    // With the trigger "accepted" the fulfillment is due now; otherwise the first status webhook brings it.
    if (fulfilNow) await enqueueSync(ctx, tx, deliveryId, current.shopId);
    // Webhooks that beat this answer can match now.
    await enqueueRematch(ctx, tx, access.environmentId);
    if (settles) await ctx.queue.completeIn(tx, settles);
  });
}

async function markFailed(ctx: AppContext, job: DispatchJobData, error: unknown): Promise<void> {
  if (error instanceof GeocodeError) {
    // Only the lookup failed (nothing was sent to the courier): coordinates by hand, as without a geocoder.
    const message = `Shipping address has no coordinates, and the geocoder failed after every retry: ${error.message}`;
    return attention(ctx, { id: job.deliveryId, generation: job.generation, reasonCode: null, courierOrderId: null, tries: 0 }, 'missing_coordinates', message, { lastError: error.message });
  }
  const { reasonCode, message } = bookingFailure(error);
  await ctx.db.$transaction((tx) =>
    transition(tx, null, { id: job.deliveryId, generation: job.generation, status: 'PENDING', reasonCode: null, courierOrderId: null, tries: 0 }, {
      event: 'booking_failed', data: { reasonCode, reason: message, lastError: errorMessage(error) }, timeline: { kind: 'failed', message },
    }));
  ctx.log.error({ deliveryId: job.deliveryId, err: errorMessage(error) }, 'dispatch failed after the last attempt');
}

/** The courier's refusal with every detail it listed (not only the first). */
export function courierErrorText(e: DeliveryApiError): string {
  const details = errorDetails(e.body);
  const missing = details.filter((d) => !e.message.includes(d));
  return missing.length ? `${e.message}; ${missing.join('; ')}` : e.message;
}

export function reasonForCourierError(e: DeliveryApiError): ReasonCode {
  switch (e.kind) {
    case 'credentials':
      return 'courier_credentials';
    case 'scope':
      return 'courier_scope';
    case 'conflict':
      return 'idempotency_conflict';
    default:
      return 'courier_rejected';
  }
}
