// One rate request → Shopify's `rates` answer, within a deadline. I/O at the edges
// (geocoder, courier quote, cache); every decision is in pricing.ts.
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { serializeCreateOrder } from '../delivery/index.ts';
import { chooseGeocoder, geocoderOf } from '../dispatch/geocode.ts';
import { toCents } from '../order/money.ts';
import { geocodeAddress, GeocodeCacheStore } from '../geocoding/index.ts';
import { errorMessage } from '../ops/errors.ts';
import { gramsOf, type Settings } from '../settings/schema.ts';
import { cachedCourierAccess } from '../settings/store.ts';
import type { QuoteCache } from './cache.ts';
import type { SameDayOpen } from './hours.ts';
import { decideRate, distanceKm, precheck, quoteCacheKey, shopifyRate, weightBand, type LatLng, type QuoteOutcome, type RateDecision } from './pricing.ts';
import { asAddress, coordinatesOf, itemsCents, quoteBody, shippableGrams, type RateAddress, type RateRequest } from './request.ts';

export interface RatesDeps {
  cache: QuoteCache;
  isOpen: SameDayOpen;
}

type ShopRow = { id: string; domain: string; settings: string; geocoderProvider: string | null; geocoderUrl: string | null; geocoderKeyEnc: string | null };

export interface RatesAnswer {
  rates: ReturnType<typeof shopifyRate>[];
  decision: RateDecision;
}

/** Waits for `p` at most until `deadline` (ms since epoch); null when it is late. `p` keeps running (a late quote still fills the cache). */
export function within<T>(p: Promise<T>, deadline: number, now: () => number): Promise<T | null> {
  const left = deadline - now();
  if (left <= 0) return Promise.resolve(null);
  let timer: NodeJS.Timeout;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), left)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export async function answerRate(ctx: AppContext, deps: RatesDeps, shop: ShopRow, settings: Settings, rate: RateRequest, startedAt: number): Promise<RatesAnswer> {
  const r = settings.rates;
  const deadline = startedAt + r.timeoutMs;
  const env = settings.activeEnvironment;
  const access = await cachedCourierAccess(ctx.db, ctx.box, shop.id, env, ctx.config.courierBaseUrls);
  const storeId = access.pickupStoreId;
  const base = { orderCents: itemsCents(rate), currency: rate.currency, maxDistanceKm: r.maxDistanceKm, fallbackRate: r.fallbackRate, rules: r };
  const answer = (decision: RateDecision): RatesAnswer => ({
    decision,
    rates: decision.rate ? [shopifyRate(decision, { ...r, currency: rate.currency })] : [],
  });
  if (!storeId) return answer({ rate: false, reason: 'no_quote', detail: `no pickup store is set for the ${env} environment` });

  // Late counts as closed: the windows module must not hold checkout up either.
  const open = (await within(Promise.resolve(deps.isOpen({ shop: shop.domain, storeId, now: new Date(ctx.now()), settings, locationIds: storeLocations(access.locationStores, storeId) })), deadline, ctx.now)) ?? false;
  if (!open) return answer(precheck({ open, distanceKm: null, maxDistanceKm: null })!);

  // Coordinates (rate requests may lack them): settings' pickup point, else the origin; the geocoder fills gaps.
  const located = await within(Promise.all([pickupPoint(ctx, shop, settings, rate.origin), locate(ctx, shop, rate.destination)]), deadline, ctx.now);
  const [pickup, destination] = located ?? [null, null];
  const distance = pickup && destination ? distanceKm(pickup, destination) : null;
  const refused = precheck({ open, distanceKm: distance, maxDistanceKm: r.maxDistanceKm });
  if (refused) return answer(refused);
  if (!destination) return answer(decideRate({ ...base, open, distanceKm: distance, quote: { kind: 'error', message: 'the destination could not be located' } }));

  const bandGrams = weightBand(shippableGrams(rate) || gramsOf(settings.package.defaultWeightKg));
  const key = quoteCacheKey({ shop: shop.domain, environment: env, storeId, destination, bandGrams, currency: rate.currency });
  const body = quoteBody(rate, { settings, storeId, destination, bandGrams, reference: `rate-${createHash('sha256').update(key).digest('hex').slice(0, 16)}` });
  let quote: QuoteOutcome;
  if (!body.ok) quote = { kind: 'error', message: body.message };
  else {
    const request = body.request;
    const load = async () => {
      const q = await ctx.courier.for(shop.domain, access).quote(serializeCreateOrder(request));
      const cents = toCents(q.price);
      if (cents === null || cents < 0n) throw new Error(`the courier quoted an unreadable price '${q.price}'`);
      return { kind: 'price' as const, cents, currency: q.currency };
    };
    const pending = deps.cache.get(key, r.cacheMinutes * 60_000, load);
    pending.catch(() => {}); // a late failure is only logged by the caller's answer
    try {
      quote = (await within(pending, deadline, ctx.now)) ?? { kind: 'timeout' };
    } catch (e) {
      quote = { kind: 'error', message: errorMessage(e) };
    }
  }
  return answer(decideRate({ ...base, open, distanceKm: distance, quote }));
}

async function pickupPoint(ctx: AppContext, shop: ShopRow, settings: Settings, origin: RateAddress): Promise<LatLng | null> {
  const { pickupLatitude: lat, pickupLongitude: lng } = settings.rates;
  if (lat !== null && lng !== null) return { lat, lng };
  return locate(ctx, shop, origin);
}

/** The address's own coordinates, else the shop's geocoder (cached; a low-confidence match counts as none). */
async function locate(ctx: AppContext, shop: ShopRow, a: RateAddress): Promise<LatLng | null> {
  const own = coordinatesOf(a);
  if (own) return own;
  try {
    const chosen = chooseGeocoder(ctx, shop);
    const geocoder = geocoderOf(ctx, chosen);
    if (!chosen || !geocoder) return null;
    const d = await geocodeAddress(geocoder, new GeocodeCacheStore(ctx.db), asAddress(a), chosen.config.minConfidence);
    return d?.kind === 'ok' ? { lat: d.lat, lng: d.lng } : null;
  } catch (e) {
    ctx.log.warn({ shop: shop.domain, err: errorMessage(e) }, 'rates: geocoding failed');
    return null;
  }
}

/** Shopify locations whose pickup store is this one. */
function storeLocations(locationStores: Record<string, string>, storeId: string): string[] {
  return Object.entries(locationStores).filter(([, s]) => s === storeId).map(([l]) => l);
}
