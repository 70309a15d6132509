// The fulfillment sync job: brings the Shopify order up to the delivery's
// courier status (planSync decides; this file does the I/O).
//
// Never two fulfillments for one delivery:
// - a lease on the delivery row (syncLockedUntil) lets one worker at a time
//   write to Shopify for it, across instances; a job that finds the lease
//   taken retries later, so no status change is lost;
// - before creating, the order's fulfillments are read and one carrying our
//   tracking number (the dispatch job id) is adopted, which covers a crash
//   between Shopify's answer and our write.
//
// Re-dispatch after a fulfillment exists: the fulfillment id is kept across
// generations. The new booking's tracking goes onto it (fulfillmentTrackingInfoUpdate)
// and its events follow from an empty watermark; where Shopify cannot take that
// (the fulfillment is cancelled, or the update is refused), the old fulfillment
// is cancelled and a new one created.
import type { AppContext } from '../context.ts';
import { addEvent } from '../transitions/timeline.ts';
import { transitionLatest } from '../transitions/transition.ts';
import { parseStoredSettings, type Settings } from '../settings/schema.ts';
import { ShopifyAdminError, throwOnUserErrors } from '../shopify/admin-api.ts';
import { readExchange, readFulfillmentOrderIds, readLocationStores } from '../db/json-columns.ts';
import {
  fetchFulfillmentState,
  FULFILLMENT_CANCEL,
  FULFILLMENT_CREATE,
  FULFILLMENT_EVENT_CREATE,
  FULFILLMENT_TRACKING_INFO_UPDATE,
  numericId,
} from '../shopify/operations.ts';
import { planSync, rankOf } from '../lifecycle/progress.ts';
import { updateRows } from '../db/raw-rows.ts';
import { trackingUrlFor } from '../tracking/store.ts';

// Short, and renewed after every Shopify write, so a crashed worker's lease
// delays the next sync by seconds rather than minutes.
const LEASE_MS = 30_000;

export class SyncBusyError extends Error {}

type Loaded = NonNullable<Awaited<ReturnType<typeof load>>>;

function load(ctx: AppContext, deliveryId: string) {
  return ctx.db.delivery.findUnique({
    where: { id: deliveryId },
    // Every courier status heard, applied or late: a late one is still true history for Shopify's timeline.
    include: { shop: true, events: { where: { kind: 'courier_status' } } },
  });
}

// Within one process, syncs of one delivery wait for each other here instead of
// meeting the lease (and retrying with a warning); the lease is for other instances.
// Keyed by the database client: the job workers' context is a copy of the app's (web/runtime.ts).
const running = new WeakMap<AppContext['db'], Map<string, Promise<void>>>();

export function runFulfillmentSync(ctx: AppContext, deliveryId: string): Promise<void> {
  let mine = running.get(ctx.db);
  if (!mine) running.set(ctx.db, (mine = new Map()));
  const queue = mine;
  const run = (queue.get(deliveryId) ?? Promise.resolve()).catch(() => {}).then(() => syncUnderLease(ctx, deliveryId));
  queue.set(deliveryId, run);
  const done = () => {
    if (queue.get(deliveryId) === run) queue.delete(deliveryId);
  };
  run.then(done, done);
  return run;
}

async function syncUnderLease(ctx: AppContext, deliveryId: string): Promise<void> {
  const now = new Date(ctx.now());
  // The lease and its release are raw statements (web/db/raw-rows.ts): one of each per write-back.
  const lease = await updateRows(ctx.db, 'Delivery', { id: deliveryId, OR: [{ syncLockedUntil: null }, { syncLockedUntil: { lt: now } }] }, { syncLockedUntil: new Date(now.getTime() + LEASE_MS) });
  if (!lease) {
    if (!(await ctx.db.delivery.count({ where: { id: deliveryId } }))) return;
    throw new SyncBusyError('another instance holds this delivery\'s Shopify write lease (or one that stopped left it); retrying later');
  }
  try {
    const d = await load(ctx, deliveryId);
    if (!d?.courierOrderId) return;
    // Shopify refused a write: hold further writes until the merchant retries (which clears this).
    if (d.status === 'NEEDS_ATTENTION' && d.reasonCode === 'shopify_error') return;
    await syncDelivery(ctx, d, parseStoredSettings(d.shop.settings));
  } catch (e) {
    if (e instanceof ShopifyAdminError && !e.retryable) return shopifyAttention(ctx, deliveryId, e.message);
    throw e;
  } finally {
    await updateRows(ctx.db, 'Delivery', { id: deliveryId }, { syncLockedUntil: null });
  }
}

async function syncDelivery(ctx: AppContext, d: Loaded, settings: Settings): Promise<void> {
  const shop = d.shop.domain;
  const orderGid = `gid://shopify/Order/${d.shopifyOrderId}`;
  const plan = planSync({
    booked: true,
    courierStatus: d.courierStatus,
    courierStatusRank: d.courierStatusRank,
    fulfillmentId: d.fulfillmentId,
    trackingCurrent: d.fulfillmentGeneration === d.generation,
    shopifyRank: d.shopifyRank,
    // The current generation's statuses only: an earlier booking's are history of another tracking number.
    history: d.events.filter((e) => e.generation === d.generation).flatMap((e) => {
      const rank = e.status ? rankOf(e.status) : null;
      return rank === null ? [] : [{ status: e.status!, rank, occurredAt: e.occurredAt }];
    }),
    trigger: settings.fulfillment.trigger,
    mapping: settings.fulfillment.eventMapping,
  });

  let fulfillmentId = d.fulfillmentId;
  if (plan.createFulfillment) {
    fulfillmentId = await createFulfillment(ctx, d, settings, orderGid);
    if (!fulfillmentId) return;
  }
  if (plan.updateTracking) {
    fulfillmentId = await moveTracking(ctx, d, settings, orderGid);
    if (!fulfillmentId) return;
  }
  for (const e of plan.events) {
    const data = await ctx.admin.request(shop, FULFILLMENT_EVENT_CREATE, {
      fulfillmentEvent: { fulfillmentId, status: e.event, happenedAt: e.happenedAt.toISOString(), message: `${settings.fulfillment.courierName}: ${e.courierStatus.replace(/_/g, ' ')}` },
    });
    throwOnUserErrors('fulfillmentEventCreate', data?.fulfillmentEventCreate);
    await updateRows(ctx.db, 'Delivery', { id: d.id }, { shopifyRank: e.rank, syncLockedUntil: new Date(ctx.now() + LEASE_MS) });
    await addEvent(ctx.db, d.id, { kind: 'shopify_event', status: e.event, source: 'shopify', message: `Shopify fulfillment event ${e.event} (courier: ${e.courierStatus})` });
  }
  // No metafield write per courier status: the status metafield is the booking's (web/dispatch/dispatcher.ts
  // runWriteback); Shopify's fulfillment events carry the delivery's progress (docs/shopify-rate-limits.md).
}

async function createFulfillment(ctx: AppContext, d: Loaded, settings: Settings, orderGid: string): Promise<string | null> {
  const shop = d.shop.domain;
  // Dispatch read the fulfillment orders and kept the ones it booked: create from them without reading
  // again (every line item they still hold). Refused (already fulfilled by us before a crash, changed
  // since): read the order and decide from what Shopify holds now.
  const booked = readFulfillmentOrderIds(d);
  if (booked.length) {
    const data = await ctx.admin.request(shop, FULFILLMENT_CREATE, {
      fulfillment: { lineItemsByFulfillmentOrder: booked.map((id) => ({ fulfillmentOrderId: id })), notifyCustomer: settings.fulfillment.notifyCustomer, trackingInfo: await trackingOf(ctx, settings, d) },
    });
    if (!data?.fulfillmentCreate?.userErrors?.length) return created(ctx, d, data.fulfillmentCreate.fulfillment.id);
    ctx.log.info({ deliveryId: d.id, userErrors: data.fulfillmentCreate.userErrors }, 'fulfillment from the booked fulfillment orders refused; reading the order');
  }
  return createFromRead(ctx, d, settings, orderGid, booked);
}

async function created(ctx: AppContext, d: Loaded, id: string): Promise<string> {
  await ctx.db.delivery.update({ where: { id: d.id }, data: { fulfillmentId: id, fulfillmentGeneration: d.generation, syncLockedUntil: new Date(ctx.now() + LEASE_MS) }, select: { id: true } });
  await addEvent(ctx.db, d.id, { kind: 'fulfilled', source: 'shopify', message: `Shopify fulfillment created with tracking number ${d.dispatchJobId}` });
  return id;
}

async function createFromRead(ctx: AppContext, d: Loaded, settings: Settings, orderGid: string, booked: string[]): Promise<string | null> {
  const shop = d.shop.domain;
  const state = await fetchFulfillmentState(ctx.admin, shop, orderGid);
  if (!state) {
    await shopifyAttention(ctx, d.id, 'The Shopify order no longer exists');
    return null;
  }
  const ours = state.fulfillments.find((f) => f.status !== 'CANCELLED' && f.trackingInfo.some((t) => t.number === d.dispatchJobId));
  if (ours) {
    await ctx.db.delivery.update({ where: { id: d.id }, data: { fulfillmentId: ours.id, fulfillmentGeneration: d.generation }, select: { id: true } });
    await addEvent(ctx.db, d.id, { kind: 'fulfilled', source: 'shopify', message: `Found the Shopify fulfillment already created for job ${d.dispatchJobId}` });
    return ours.id;
  }

  // Exactly the fulfillment orders dispatch booked (web/dispatch/dispatcher.ts); older deliveries have none stored.
  const pickupLocations = booked.length ? null : await pickupLocationsOf(ctx, d);
  const open = state.fulfillmentOrders.filter(
    (f) =>
      (f.status === 'OPEN' || f.status === 'IN_PROGRESS') &&
      (booked.length
        ? booked.includes(f.id)
        : f.deliveryMethod?.methodType !== 'PICK_UP' && (!pickupLocations || pickupLocations.includes(numericId(f.assignedLocation?.location?.id ?? '')))),
  );
  // fulfillmentCreate takes fulfillment orders of one location at a time.
  const location = open[0]?.assignedLocation?.location?.id;
  const groups = open
    .filter((f) => f.assignedLocation?.location?.id === location)
    .map((f) => ({
      fulfillmentOrderId: f.id,
      fulfillmentOrderLineItems: f.lineItems.nodes.filter((li) => li.remainingQuantity > 0 && li.requiresShipping !== false).map((li) => ({ id: li.id, quantity: li.remainingQuantity })),
    }))
    .filter((g) => g.fulfillmentOrderLineItems.length > 0);
  if (!groups.length) {
    await shopifyAttention(ctx, d.id, 'The Shopify order has no open fulfillment order at the pickup location (already fulfilled, on hold, or assigned elsewhere)');
    return null;
  }
  const data = await ctx.admin.request(shop, FULFILLMENT_CREATE, {
    fulfillment: { lineItemsByFulfillmentOrder: groups, notifyCustomer: settings.fulfillment.notifyCustomer, trackingInfo: await trackingOf(ctx, settings, d) },
  });
  throwOnUserErrors('fulfillmentCreate', data?.fulfillmentCreate);
  return created(ctx, d, data.fulfillmentCreate.fulfillment.id);
}

// The merchant's own template wins; otherwise our customer tracking page (web/tracking/).
async function trackingOf(ctx: AppContext, settings: Settings, d: Loaded) {
  const template = settings.fulfillment.trackingUrlTemplate;
  const url = template ? trackingUrl(template, d) : await trackingUrlFor(ctx.db, ctx.config.shopify.appUrl, d.id);
  return { company: settings.fulfillment.courierName, number: d.dispatchJobId, url };
}

// Fulfillment statuses whose tracking Shopify will not change.
const CLOSED_FULFILLMENT = new Set(['CANCELLED', 'ERROR', 'FAILURE']);

/**
 * A re-dispatch: the existing fulfillment gets this generation's tracking. Where
 * it cannot (gone, cancelled, or the update refused), the old one is cancelled
 * and a new one created. Returns the fulfillment the events go to, or null.
 */
async function moveTracking(ctx: AppContext, d: Loaded, settings: Settings, orderGid: string): Promise<string | null> {
  const shop = d.shop.domain;
  const state = await fetchFulfillmentState(ctx.admin, shop, orderGid);
  if (!state) {
    await shopifyAttention(ctx, d.id, 'The Shopify order no longer exists');
    return null;
  }
  const moved = async (id: string, message: string) => {
    await ctx.db.delivery.update({ where: { id: d.id }, data: { fulfillmentId: id, fulfillmentGeneration: d.generation, syncLockedUntil: new Date(ctx.now() + LEASE_MS) }, select: { id: true } });
    await addEvent(ctx.db, d.id, { kind: 'fulfilled', source: 'shopify', message });
    return id;
  };
  // A crash after Shopify's answer: the tracking is already this booking's.
  const ours = state.fulfillments.find((f) => !CLOSED_FULFILLMENT.has(f.status) && f.trackingInfo.some((t) => t.number === d.dispatchJobId));
  if (ours) return moved(ours.id, `Found the Shopify fulfillment already showing tracking number ${d.dispatchJobId}`);

  const old = state.fulfillments.find((f) => f.id === d.fulfillmentId);
  let refusal = old ? `it is ${old.status.toLowerCase()}` : 'it no longer exists';
  if (old && !CLOSED_FULFILLMENT.has(old.status)) {
    const data = await ctx.admin.request(shop, FULFILLMENT_TRACKING_INFO_UPDATE, {
      fulfillmentId: old.id, trackingInfoInput: await trackingOf(ctx, settings, d), notifyCustomer: settings.fulfillment.notifyCustomer,
    });
    const errors: Array<{ message: string }> = data?.fulfillmentTrackingInfoUpdate?.userErrors ?? [];
    if (!errors.length) return moved(old.id, `Shopify fulfillment now shows the new tracking number ${d.dispatchJobId}`);
    refusal = `Shopify refused the new tracking: ${errors.map((e) => e.message).join('; ')}`;
  }
  // The fallback: cancel the old fulfillment (its items open again), then create one for this booking.
  if (old && old.status !== 'CANCELLED') {
    const data = await ctx.admin.request(shop, FULFILLMENT_CANCEL, { id: old.id });
    throwOnUserErrors('fulfillmentCancel', data?.fulfillmentCancel);
  }
  // Cleared before creating: a crash in between creates (or adopts) on the next run.
  await ctx.db.delivery.update({ where: { id: d.id }, data: { fulfillmentId: null, fulfillmentGeneration: null }, select: { id: true } });
  await addEvent(ctx.db, d.id, { kind: 'fulfilled', source: 'shopify', message: `The earlier Shopify fulfillment could not take the new tracking (${refusal}); ${old && old.status !== 'CANCELLED' ? 'cancelled it and ' : ''}creating a new one` });
  // The booked fulfillment orders are this order's state before the cancellation: decide from a read.
  return createFromRead(ctx, d, settings, orderGid, readFulfillmentOrderIds(d));
}

/** Shopify locations mapped to the store this delivery was picked up from; null = no mapping in use. */
async function pickupLocationsOf(ctx: AppContext, d: Loaded): Promise<string[] | null> {
  const env = await ctx.db.courierEnvironment.findUnique({ where: { shopId_environment: { shopId: d.shopId, environment: d.environment ?? 'test' } } });
  const map = readLocationStores(env);
  const storeId = (readExchange(d.requestBody) as { pickup?: { storeId?: string } } | null)?.pickup?.storeId;
  const locations = Object.entries(map).filter(([, store]) => store === storeId).map(([loc]) => loc);
  return locations.length ? locations : null;
}

export function trackingUrl(template: string, d: { dispatchJobId: string | null; courierOrderId: string | null; courierDeliveryId: string | null; shopifyOrderId: string }): string {
  const values: Record<string, string> = {
    jobId: d.dispatchJobId ?? '',
    orderId: d.courierOrderId ?? '',
    deliveryId: d.courierDeliveryId ?? '',
    reference: d.shopifyOrderId,
  };
  return template.replace(/\{(jobId|orderId|deliveryId|reference)\}/g, (_, k: string) => encodeURIComponent(values[k]!));
}

export async function shopifyAttention(ctx: AppContext, deliveryId: string, message: string): Promise<void> {
  // Only a booked delivery (or one already needing attention) can be held on Shopify's refusal; one re-queued meanwhile is left alone.
  await ctx.db.$transaction((tx) =>
    transitionLatest(tx, null, deliveryId, () => ({
      event: 'shopify_refused',
      data: { reasonCode: 'shopify_error', reason: message, lastError: message },
      timeline: { kind: 'attention', source: 'shopify', message },
    })));
  ctx.log.warn({ deliveryId, err: message }, 'fulfillment write-back needs attention');
}
