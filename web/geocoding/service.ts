// The one call dispatch makes for an address without coordinates: the cached
// answer or the geocoder's, judged against the threshold. Rate limits,
// timeouts and outages throw (GeocodeError, retryable): the dispatch job retries.
import type { Address } from '../order/snapshot.ts';
import { queryFromAddress } from './address.ts';
import { cachedGeocode, type GeocodeCacheStore } from './cache.ts';
import { decideGeocode, type GeocodeDecision } from './decision.ts';
import type { Geocoder } from './types.ts';

/**
 * null when there is nothing to do: no geocoder configured, or an address too
 * incomplete to look up (mapping reports it as incomplete_address / missing_coordinates, as before).
 */
export async function geocodeAddress(
  geocoder: Geocoder | null, cache: GeocodeCacheStore, address: Address | null | undefined, minConfidence: number,
): Promise<(GeocodeDecision & { cached: boolean }) | null> {
  const q = geocoder ? queryFromAddress(address) : null;
  if (!geocoder || !q) return null;
  const { result, cached } = await cachedGeocode(geocoder, cache, q);
  return { ...decideGeocode(result, minConfidence), cached };
}
