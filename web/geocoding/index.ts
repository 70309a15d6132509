// The geocoding module: the app-wide geocoder from configuration, or none.
// docs/geocoding.md describes it; web/dispatch wires it in where an address has no coordinates.
import type { GeocoderConfig } from './config.ts';
import { NominatimGeocoder, type NominatimOptions } from './nominatim.ts';
import type { Geocoder } from './types.ts';

export * from './types.ts';
export { queryFromAddress, geocodeCacheKey, normaliseAddress } from './address.ts';
export { decideGeocode, type GeocodeDecision } from './decision.ts';
export { cachedGeocode, GeocodeCacheStore } from './cache.ts';
export { geocodeAddress } from './service.ts';
export type { GeocoderConfig } from './config.ts';

/** The User-Agent the usage policy asks for: the app and where it runs. */
export const geocoderUserAgent = (appUrl: string) => `same-day-dispatch (+${appUrl})`;

/** null when no geocoder is configured: addresses without coordinates go to NEEDS_ATTENTION as before. */
export function createGeocoder(config: GeocoderConfig | null, opts: { appUrl: string } & Partial<Omit<NominatimOptions, 'baseUrl' | 'apiKey' | 'userAgent'>>): Geocoder | null {
  if (!config) return null;
  const { appUrl, ...rest } = opts;
  switch (config.provider) {
    case 'nominatim':
      return new NominatimGeocoder({ ...rest, baseUrl: config.url, apiKey: config.apiKey, userAgent: geocoderUserAgent(appUrl) });
  }
}
