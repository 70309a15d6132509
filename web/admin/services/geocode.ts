// The Fix form's address search: the shop's geocoder (web/dispatch/geocode.ts
// chooses it) asked once per button press, through the same cache as dispatch.
// No type-ahead: Nominatim's usage policy forbids it.
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { chooseGeocoder, geocoderOf, type ChosenGeocoder } from '../../dispatch/geocode.ts';
import { cachedGeocode, GeocodeCacheStore, GeocodeError, GeocodeRateLimitedError } from '../../geocoding/index.ts';
import { fieldErrors } from '../../settings/schema.ts';
import { DecryptionError } from '../../security/crypto.ts';
import { requireShop, shopGeocoderView, type ShopGeocoderRow } from '../../settings/store.ts';
import { ApiError } from '../errors.ts';

const line = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const SearchInput = z
  .object({
    address1: line(255).min(1, 'enter the street address'),
    city: line(128).min(1, 'enter the city'),
    province: line(128).nullish(),
    zip: line(32).nullish(),
    countryCode: z.string().trim().toUpperCase().regex(/^[A-Z]{2}$/, 'expected a two-letter country code like ZA'),
  })
  .strict();

/** No geocoder for this shop: say how to turn one on. */
export const NO_GEOCODER = 'No geocoder is configured: set one in Settings, or GEOCODER_PROVIDER (and GEOCODER_URL for a self-hosted Nominatim) for the whole app; see docs/geocoding.md';

/** The shop's geocoder; a key this process cannot read counts as none here (dispatch says so on the delivery). */
function chosen(ctx: Pick<AppContext, 'config' | 'box'>, shop: ShopGeocoderRow): ChosenGeocoder | null {
  try {
    return chooseGeocoder(ctx, shop);
  } catch (e) {
    if (e instanceof DecryptionError) return null;
    throw e;
  }
}

export function geocoderAvailable(ctx: Pick<AppContext, 'config' | 'box'>, shop: ShopGeocoderRow): boolean {
  return chosen(ctx, shop) !== null;
}

/** For the settings page: the geocoder in use (the host only, never the key), and the shop's own as stored. */
export function geocoderSummary(ctx: Pick<AppContext, 'config' | 'box'>, shop: ShopGeocoderRow) {
  const c = chosen(ctx, shop);
  return {
    active: c ? { provider: c.config.provider, host: new URL(c.config.url).host, minConfidence: c.config.minConfidence, source: c.source } : null,
    own: shopGeocoderView(shop, ctx.box),
  };
}

/** Places for an address, best first; an empty list when nothing was found. */
export async function searchAddress(ctx: AppContext, domain: string, body: unknown) {
  const shop = await requireShop(ctx.db, domain);
  const parsed = SearchInput.safeParse(body);
  if (!parsed.success) throw new ApiError(422, 'The address is not complete enough to search', fieldErrors(parsed.error));
  const geocoder = geocoderOf(ctx, chosen(ctx, shop));
  if (!geocoder) throw new ApiError(409, NO_GEOCODER);
  const q = parsed.data;
  try {
    const { result } = await cachedGeocode(geocoder, new GeocodeCacheStore(ctx.db), { address1: q.address1, city: q.city, province: q.province ?? null, zip: q.zip ?? null, countryCode: q.countryCode });
    return { places: (result?.candidates ?? []).map(({ lat, lng, confidence, formattedAddress, precision }) => ({ lat, lng, confidence, formattedAddress, precision })) };
  } catch (e) {
    if (!(e instanceof GeocodeError)) throw e;
    if (e instanceof GeocodeRateLimitedError) throw new ApiError(429, `${e.message}; try again in a moment`);
    throw new ApiError(e.kind === 'timeout' || e.kind === 'unavailable' ? 503 : 502, e.message);
  }
}
