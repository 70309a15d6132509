// The Fix form's address search: the shop's geocoder (web/dispatch/geocode.ts
// chooses it) asked once per button press, through the same cache as dispatch.
// No type-ahead: Nominatim's usage policy forbids it.
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { geocoderConfigFor, geocoderOf } from '../../dispatch/geocode.ts';
import { cachedGeocode, GeocodeCacheStore, GeocodeError, GeocodeRateLimitedError } from '../../geocoding/index.ts';
import { fieldErrors } from '../../settings/schema.ts';
import { requireShop } from '../../settings/store.ts';
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
export const NO_GEOCODER = 'No geocoder is configured: set GEOCODER_PROVIDER (and GEOCODER_URL for a self-hosted Nominatim); see docs/geocoding.md';

export function geocoderAvailable(ctx: Pick<AppContext, 'config'>): boolean {
  return geocoderConfigFor(ctx) !== null;
}

/** For the settings page: which geocoder, where (the host only), and the threshold. */
export function geocoderSummary(ctx: Pick<AppContext, 'config'>) {
  const c = geocoderConfigFor(ctx);
  return c ? { provider: c.provider, host: new URL(c.url).host, minConfidence: c.minConfidence } : null;
}

/** Places for an address, best first; an empty list when nothing was found. */
export async function searchAddress(ctx: AppContext, domain: string, body: unknown) {
  await requireShop(ctx.db, domain);
  const parsed = SearchInput.safeParse(body);
  if (!parsed.success) throw new ApiError(422, 'The address is not complete enough to search', fieldErrors(parsed.error));
  const config = geocoderConfigFor(ctx);
  const geocoder = geocoderOf(ctx, config);
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
