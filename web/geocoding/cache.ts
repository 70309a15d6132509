// Geocoding answers cached by normalised address (GeocodeCache), including
// "found nothing" for a shorter time, so a retried order or a repeat customer
// does not ask the geocoder again. Errors (rate limited, timeout) are never cached.
import type { Db } from '../db/client.ts';
import { geocodeCacheKey } from './address.ts';
import { GeocodeError, type AddressQuery, type GeocodeResult, type Geocoder } from './types.ts';

export const DEFAULT_TTL_MS = 30 * 24 * 3_600_000;
export const DEFAULT_NEGATIVE_TTL_MS = 24 * 3_600_000;

export type CacheLookup = { hit: true; result: GeocodeResult | null } | { hit: false };

export class GeocodeCacheStore {
  readonly #db: Db;
  readonly #now: () => number;

  /** Pass the app's protected Db (web/runtime.ts) so results are encrypted at rest. */
  constructor(db: Db, opts: { now?: () => number } = {}) {
    this.#db = db;
    this.#now = opts.now ?? Date.now;
  }

  async get(key: string): Promise<CacheLookup> {
    const row = await this.#db.geocodeCache.findUnique({ where: { key } });
    if (!row || row.expiresAt.getTime() <= this.#now()) return { hit: false };
    if (row.result === null) return { hit: true, result: null };
    try {
      return { hit: true, result: JSON.parse(row.result) as GeocodeResult };
    } catch {
      return { hit: false }; // unreadable: ask again and overwrite it
    }
  }

  async put(key: string, provider: string, result: GeocodeResult | null, ttlMs: number): Promise<void> {
    const data = { provider, result: result === null ? null : JSON.stringify(result), expiresAt: new Date(this.#now() + ttlMs) };
    await this.#db.geocodeCache.upsert({ where: { key }, create: { key, ...data }, update: { ...data, createdAt: new Date(this.#now()) } });
  }

  /** Deletes expired answers; returns how many. */
  async sweep(): Promise<number> {
    return (await this.#db.geocodeCache.deleteMany({ where: { expiresAt: { lte: new Date(this.#now()) } } })).count;
  }
}

export interface CachedGeocode {
  /** null: the geocoder found nothing. */
  result: GeocodeResult | null;
  cached: boolean;
}

/** The cached answer for the address, else the geocoder's (then cached). Rate limits and timeouts throw and are not cached. */
export async function cachedGeocode(
  geocoder: Geocoder, cache: GeocodeCacheStore, q: AddressQuery, opts: { ttlMs?: number; negativeTtlMs?: number } = {},
): Promise<CachedGeocode> {
  const key = geocodeCacheKey(geocoder.provider, q);
  const hit = await cache.get(key);
  if (hit.hit) return { result: hit.result, cached: true };
  let result: GeocodeResult | null;
  try {
    result = await geocoder.geocode(q);
  } catch (e) {
    if (!(e instanceof GeocodeError && e.kind === 'zero_results')) throw e;
    result = null;
  }
  await cache.put(key, geocoder.provider, result, result ? (opts.ttlMs ?? DEFAULT_TTL_MS) : (opts.negativeTtlMs ?? DEFAULT_NEGATIVE_TTL_MS));
  return { result, cached: false };
}
