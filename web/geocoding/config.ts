// The app-wide geocoder from the environment (GEOCODER_* in web/config/env.ts).
export const GEOCODER_PROVIDERS = ['nominatim'] as const;
export type GeocoderProvider = (typeof GEOCODER_PROVIDERS)[number];

/** The public OSMF server: 1 request a second for the whole app, an identifying User-Agent, results cached. */
export const PUBLIC_NOMINATIM_URL = 'https://nominatim.openstreetmap.org';

export interface GeocoderConfig {
  provider: GeocoderProvider;
  /** Base URL, no trailing slash. */
  url: string;
  apiKey: string | null;
  /** 0..1: below it a result needs the merchant's confirmation. */
  minConfidence: number;
}

export function geocoderConfig(e: { GEOCODER_PROVIDER?: GeocoderProvider; GEOCODER_URL?: string; GEOCODER_API_KEY?: string; GEOCODER_MIN_CONFIDENCE: number }): GeocoderConfig | null {
  if (!e.GEOCODER_PROVIDER) return null;
  return {
    provider: e.GEOCODER_PROVIDER,
    url: (e.GEOCODER_URL ?? PUBLIC_NOMINATIM_URL).replace(/\/+$/, ''),
    apiKey: e.GEOCODER_API_KEY ?? null,
    minConfidence: e.GEOCODER_MIN_CONFIDENCE,
  };
}
