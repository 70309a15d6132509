// One delivery: its detail view (the admin page and the order block) and the
// lookups the API and the CLI find a delivery by.
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { readExchange, readOrderJson, readOverridesJson } from '../../db/json-columns.ts';
import { dropoffPhone } from '../../dispatch/mapping.ts';
import type { Overrides } from '../../order/snapshot.ts';
import { parseStoredSettings } from '../../settings/schema.ts';
import { findShop } from '../../settings/store.ts';
import { ApiError } from '../errors.ts';
import { english } from '../messages.ts';
import { geocoderAvailable } from './geocode.ts';
import { deliverySummary, eventView } from '../views.ts';

const TIMELINE = { events: { orderBy: [{ occurredAt: 'asc' as const }, { receivedAt: 'asc' as const }] } };

/** A shop's delivery by its id, Shopify order id, or order name (#1001), with its timeline. */
export function findDeliveryByRef(db: Db, domain: string, ref: string) {
  return db.delivery.findFirst({
    where: { shop: { domain }, OR: [{ id: ref }, { shopifyOrderId: ref }, { orderName: ref.startsWith('#') ? ref : `#${ref}` }] },
    include: TIMELINE,
  });
}

/** The delivery of a Shopify order on this shop, if we have one. */
export async function findByOrderId(ctx: AppContext, domain: string, orderId: string) {
  const shop = await findShop(ctx.db, domain);
  return shop ? ctx.db.delivery.findFirst({ where: { shopId: shop.id, shopifyOrderId: orderId } }) : null;
}

/** A delivery row of this shop, or 404. */
export async function requireDelivery(ctx: AppContext, domain: string, id: string) {
  const d = await ctx.db.delivery.findFirst({ where: { id, shop: { domain } } });
  if (!d) throw deliveryNotFound();
  return d;
}

/** Another shop's delivery, or none: the same answer (never says which). */
const deliveryNotFound = () => new ApiError(404, english('error.delivery_not_found'), undefined, 'delivery_not_found');

type DetailRow = NonNullable<Awaited<ReturnType<typeof loadDetail>>>;

function loadDetail(ctx: AppContext, domain: string, id: string) {
  return ctx.db.delivery.findFirst({ where: { id, shop: { domain } }, include: { shop: true, ...TIMELINE } });
}

/** The stored corrections; null when they cannot be read (nothing then overrides the order). */
function overridesOf(d: DetailRow): Overrides | null {
  try {
    return readOverridesJson(d);
  } catch {
    return null;
  }
}

/** Where it goes, with the phone exactly as dispatch sends it (web/dispatch/mapping.ts dropoffPhone). */
function dropoffOf(d: DetailRow, overrides: Overrides) {
  if (d.redactedAt) return null;
  try {
    const o = readOrderJson(d);
    const a = o.shipping_address;
    const p = dropoffPhone(o, overrides);
    // Not sendable: the number the problem names, for the merchant to correct.
    const phone = 'e164' in p ? p.e164 : (overrides.phone ?? a?.phone ?? o.phone ?? null);
    return a
      ? { name: a.name, address1: a.address1, address2: a.address2, city: a.city, province: a.province, zip: a.zip, countryCode: a.country_code, phone, latitude: a.latitude, longitude: a.longitude }
      : { name: null, address1: null, address2: null, city: null, province: null, zip: null, countryCode: null, phone, latitude: null, longitude: null };
  } catch {
    return null;
  }
}

/** The geocoder's candidate while the delivery waits for the merchant to confirm it. */
function candidateOf(d: DetailRow, overrides: Overrides | null) {
  const g = overrides?.geocode;
  if (!g || g.state !== 'candidate' || d.redactedAt || d.status !== 'NEEDS_ATTENTION') return null;
  return { lat: g.lat, lng: g.lng, confidence: g.confidence, formattedAddress: g.formattedAddress, precision: g.precision ?? null, provider: g.provider };
}

export async function deliveryDetail(ctx: AppContext, domain: string, id: string) {
  const d = await loadDetail(ctx, domain, id);
  if (!d) throw deliveryNotFound();
  const settings = parseStoredSettings(d.shop.settings);
  const timeline = d.events.map(eventView);
  const overrides = overridesOf(d);
  return {
    ...deliverySummary(d, timeline.at(-1) ?? null, { trackingUrlTemplate: settings.fulfillment.trackingUrlTemplate, appUrl: ctx.config.shopify.appUrl }),
    courierDeliveryId: d.courierDeliveryId,
    courierOrderStatus: d.courierOrderStatus,
    requestId: d.requestId,
    idempotencyKey: d.idempotencyKey,
    generation: d.generation,
    tries: d.tries,
    lastError: d.lastError,
    fulfillmentId: d.fulfillmentId,
    dispatchedAt: d.dispatchedAt,
    redacted: !!d.redactedAt,
    dropoff: dropoffOf(d, overrides ?? {}),
    overrides,
    geocodeCandidate: candidateOf(d, overrides),
    /** The Fix form offers an address search. */
    geocoder: geocoderAvailable(ctx, d.shop),
    request: readExchange(d.requestBody),
    response: readExchange(d.responseBody),
    /** The exact bytes exchanged (number literals as sent, e.g. 1249.90). */
    requestText: d.requestBody,
    responseText: d.responseBody,
    timeline,
  };
}
