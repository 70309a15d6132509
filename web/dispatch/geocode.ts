// Geocoding in dispatch: an address without coordinates (and no coordinates
// from the merchant) is looked up before the request is built
// (docs/geocoding.md). The outcome is stored in Overrides: the coordinates
// with geocode.state 'used', or the candidate ('candidate') for the merchant
// to confirm through Fix. Rate limits and timeouts throw (GeocodeError,
// retryable, with retryAfterMs): the dispatch job retries.
import type { AppContext } from '../context.ts';
import type { Dispatcher } from 'undici';
import { courierUrlPolicy, guardedAgent } from '../delivery/address-policy.ts';
import { createGeocoder, GeocodeCacheStore, GeocodeError, geocodeAddress, type GeocodeDecision, type Geocoder, type GeocoderConfig } from '../geocoding/index.ts';
import { DecryptionError } from '../security/crypto.ts';
import { shopGeocoder, type ShopGeocoderRow } from '../settings/store.ts';
import { validCoordinates, withAddressFixes } from './mapping.ts';
import type { OrderSnapshot, Overrides } from '../order/snapshot.ts';
import type { Problem } from './status.ts';

/** Does dispatch need to look this address up? Pure. */
export function needsGeocoding(order: OrderSnapshot, overrides: Overrides): boolean {
  const a = order.shipping_address;
  if (!a) return false;
  return !validCoordinates(overrides.latitude ?? a.latitude, overrides.longitude ?? a.longitude);
}

export type GeocodeStep =
  /** Go on with these overrides (the coordinates are in them). */
  | { kind: 'use'; overrides: Overrides; note: string }
  /** NEEDS_ATTENTION; the overrides keep the candidate, if any. */
  | { kind: 'attention'; problem: Problem; overrides: Overrides };

const pct = (n: number) => `${Math.round(n * 100)}%`;

/** The geocoder's decision → what dispatch does and stores. Pure. */
export function geocodeStep(decision: GeocodeDecision, provider: string, overrides: Overrides): GeocodeStep {
  const { geocode: _old, ...rest } = overrides;
  switch (decision.kind) {
    case 'ok':
      return {
        kind: 'use',
        overrides: { ...rest, latitude: decision.lat, longitude: decision.lng, geocode: { state: 'used', provider, lat: decision.lat, lng: decision.lng, confidence: decision.confidence, formattedAddress: decision.formattedAddress } },
        note: `Coordinates found by the geocoder (${provider}, ${pct(decision.confidence)} sure)`,
      };
    case 'needs_confirmation': {
      const c = decision.candidate;
      return {
        kind: 'attention',
        problem: { code: 'geocode_low_confidence', message: decision.message },
        overrides: { ...rest, geocode: { state: 'candidate', provider, lat: c.lat, lng: c.lng, confidence: c.confidence, formattedAddress: c.formattedAddress, precision: c.precision } },
      };
    }
    case 'none':
      return { kind: 'attention', problem: { code: 'geocode_no_result', message: decision.message }, overrides: rest };
  }
}

/** A refusal that waiting will not change (a wrong key, an answer we cannot read): as without a geocoder. */
export function permanentGeocodeProblem(e: GeocodeError): Problem {
  return { code: 'missing_coordinates', message: `Shipping address has no coordinates, and the geocoder could not be used: ${e.message}` };
}

/** GEOCODER_MIN_CONFIDENCE's default, for a shop's own geocoder when the app has none. */
export const DEFAULT_MIN_CONFIDENCE = 0.8;

export interface ChosenGeocoder {
  config: GeocoderConfig;
  /** The shop's own (settings page), or the app-wide one (GEOCODER_*). */
  source: 'shop' | 'app';
}

/**
 * The geocoder for a shop: its own (settings), else the app-wide one
 * (GEOCODER_*), else none. Throws DecryptionError when the shop's key cannot be read.
 */
export function chooseGeocoder(ctx: Pick<AppContext, 'config' | 'box'>, shop: ShopGeocoderRow | null): ChosenGeocoder | null {
  const own = shop ? shopGeocoder(shop, ctx.box, ctx.config.geocoder?.minConfidence ?? DEFAULT_MIN_CONFIDENCE) : null;
  if (own) return { config: own, source: 'shop' };
  return ctx.config.geocoder ? { config: ctx.config.geocoder, source: 'app' } : null;
}

// One client per configuration: the client keeps the usage policy's pace per server.
const clients = new Map<string, Geocoder>();
let guarded: Dispatcher | undefined;
export function geocoderOf(ctx: Pick<AppContext, 'config'>, chosen: ChosenGeocoder | null): Geocoder | null {
  if (!chosen) return null;
  const { config, source } = chosen;
  const key = JSON.stringify([source, config.provider, config.url, config.apiKey]);
  let g = clients.get(key);
  if (!g) {
    // Neither a merchant's URL nor GEOCODER_URL may reach private addresses in production, as for courier base URLs.
    const dispatcher = !courierUrlPolicy(ctx.config.nodeEnv).allowPrivate ? (guarded ??= guardedAgent({ connectTimeoutMs: 5_000 })) : undefined;
    g = createGeocoder(config, { appUrl: ctx.config.shopify.appUrl, ...(dispatcher ? { dispatcher } : {}) })!;
    clients.set(key, g);
  }
  return g;
}

/**
 * null: nothing to do (coordinates present, no geocoder configured, or an
 * address too incomplete to look up; mapping then reports it as before).
 * Throws a retryable GeocodeError for rate limits, timeouts and outages.
 */
export async function geocodeForDispatch(
  ctx: Pick<AppContext, 'config' | 'db' | 'box'>, order: OrderSnapshot, overrides: Overrides, shop: ShopGeocoderRow | null,
): Promise<GeocodeStep | null> {
  if (!needsGeocoding(order, overrides)) return null;
  let chosen;
  try {
    chosen = chooseGeocoder(ctx, shop);
  } catch (e) {
    if (!(e instanceof DecryptionError)) throw e;
    return { kind: 'attention', problem: { code: 'missing_coordinates', message: `Shipping address has no coordinates, and the shop's geocoder key cannot be read (${e.message}); enter it again in Settings` }, overrides };
  }
  const geocoder = geocoderOf(ctx, chosen);
  if (!chosen || !geocoder) return null;
  const config = chosen.config;
  const address = withAddressFixes(order.shipping_address!, overrides);
  let decision;
  try {
    decision = await geocodeAddress(geocoder, new GeocodeCacheStore(ctx.db), address, config.minConfidence);
  } catch (e) {
    if (e instanceof GeocodeError && !e.retryable) return { kind: 'attention', problem: permanentGeocodeProblem(e), overrides };
    throw e;
  }
  return decision ? geocodeStep(decision, geocoder.provider, overrides) : null;
}
