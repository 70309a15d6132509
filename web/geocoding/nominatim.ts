// Nominatim (OpenStreetMap) search: https://nominatim.org/release-docs/latest/api/Search/
// Pure parts (the request URL, reading the jsonv2 answer, the confidence) are
// exported for table tests; NominatimGeocoder does the HTTP (undici; there is no
// maintained Nominatim client on npm that reports HTTP status and Retry-After).
//
// The public OSMF server's usage policy: at most 1 request a second for the
// whole app, a User-Agent naming the app, results cached (web/geocoding/cache.ts),
// no bulk or type-ahead use. The throttle below keeps the first per process;
// several instances or heavier use need a self-hosted Nominatim (GEOCODER_URL).
import { Agent, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { parseRetryAfter } from '../retry/policy.ts';
import { normalisePart } from './address.ts';
import { PUBLIC_NOMINATIM_URL } from './config.ts';
import {
  GeocodeError, GeocodeRateLimitedError, GeocodeTimeoutError, GeocodeZeroResultsError,
  type AddressQuery, type GeocodeCandidate, type GeocodeResult, type Geocoder,
} from './types.ts';

export const NOMINATIM = 'nominatim';
const LIMIT = 5;
const MAX_BODY_BYTES = 512 * 1024;

/** GET /search, free-form (commas help it), limited to the address's country. The key is for Nominatim-compatible hosted services. */
export function searchUrl(baseUrl: string, q: AddressQuery, apiKey?: string | null): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/search`);
  const text = [q.address1, q.city, q.province, q.zip].filter((p) => p && p.trim()).join(', ');
  url.searchParams.set('q', text);
  url.searchParams.set('countrycodes', q.countryCode.toLowerCase());
  url.searchParams.set('format', 'jsonv2');
  url.searchParams.set('addressdetails', '1');
  url.searchParams.set('limit', String(LIMIT));
  if (apiKey) url.searchParams.set('key', apiKey);
  return url.toString();
}

// jsonv2 place (https://nominatim.org/release-docs/latest/api/Output/): lat/lon are decimal strings.
const decimal = z.union([z.string(), z.number()]).transform(Number).refine(Number.isFinite, 'expected a decimal');
const PlaceSchema = z.object({
  lat: decimal.refine((v) => v >= -90 && v <= 90, 'latitude out of range'),
  lon: decimal.refine((v) => v >= -180 && v <= 180, 'longitude out of range'),
  display_name: z.string().default(''),
  place_rank: z.coerce.number().default(0),
  address: z.object({ house_number: z.string().optional(), postcode: z.string().optional(), country_code: z.string().optional() }).loose().optional(),
}).loose();
type Place = z.infer<typeof PlaceSchema>;

/** Latitude/longitude to 7 places, as Nominatim gives them. */
export const round7 = (n: number) => Math.round(n * 1e7) / 1e7;

const HOUSE_NUMBER = /^\s*(\d+[a-z]?)\b/i;

/**
 * How sure a place is the address, 0..1, from what Nominatim matched:
 * place_rank 28-30 is a building or house number (1.0), 26-27 a street (0.6),
 * 17-25 a suburb or block (0.3), anything larger a town or region (0.1).
 * A house number asked for but not in the answer makes it a street match; a
 * different postcode costs 20%.
 */
export function placeConfidence(place: Place, q: AddressQuery): Pick<GeocodeCandidate, 'confidence' | 'precision'> {
  let precision: GeocodeCandidate['precision'] = place.place_rank >= 28 ? 'building' : place.place_rank >= 26 ? 'street' : 'area';
  let confidence = precision === 'building' ? 1 : precision === 'street' ? 0.6 : place.place_rank >= 17 ? 0.3 : 0.1;
  const wanted = HOUSE_NUMBER.exec(q.address1)?.[1]?.toLowerCase();
  const got = place.address?.house_number?.toLowerCase();
  if (precision === 'building' && wanted && place.address && got !== wanted) {
    precision = 'street';
    confidence = 0.6;
  }
  if (q.zip && place.address?.postcode && normalisePart(q.zip) !== normalisePart(place.address.postcode)) confidence *= 0.8;
  return { confidence: Math.round(confidence * 100) / 100, precision };
}

/** Two building matches this far apart: the address is ambiguous (same street name in two suburbs). */
export const AMBIGUOUS_METRES = 250;

/**
 * A jsonv2 search answer → the best candidate and all of them, best first; null
 * for an empty list. Throws GeocodeError('bad_response') for anything else.
 */
export function parseSearchResponse(body: unknown, q: AddressQuery): GeocodeResult | null {
  const r = z.array(PlaceSchema).safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new GeocodeError('bad_response', `The geocoder's answer is not a Nominatim place list (${i.path.join('.') || 'body'}: ${i.message})`);
  }
  if (r.data.length === 0) return null;
  const candidates: GeocodeCandidate[] = r.data
    .map((p) => ({ lat: round7(p.lat), lng: round7(p.lon), formattedAddress: p.display_name, ...placeConfidence(p, q) }))
    .sort((a, b) => b.confidence - a.confidence); // stable: Nominatim's own order among equals
  const best = { ...candidates[0]! };
  const rival = candidates.slice(1).find((c) => c.precision === best.precision && c.confidence >= best.confidence && metresBetween(best, c) > AMBIGUOUS_METRES);
  if (rival) best.confidence = Math.min(best.confidence, 0.5);
  return { provider: NOMINATIM, ...best, candidates };
}

/** Great-circle distance (haversine). */
export function metresBetween(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

export interface NominatimOptions {
  baseUrl: string;
  apiKey?: string | null;
  /** Names the app, as the usage policy asks, e.g. "same-day-dispatch (+https://dispatch.example.com)". */
  userAgent: string;
  /** Whole request budget. Default 10 s. */
  timeoutMs?: number;
  /** Least time between two requests to this server. Default 1100 ms for the public server, else 0. */
  minIntervalMs?: number;
  dispatcher?: Dispatcher;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

// One throttle per server, shared by every client in the process.
const nextSlot = new Map<string, number>();
let sharedAgent: Agent | undefined;

export class NominatimGeocoder implements Geocoder {
  readonly provider = NOMINATIM;
  readonly #o: Required<Omit<NominatimOptions, 'apiKey' | 'dispatcher'>> & { apiKey: string | null; dispatcher: Dispatcher };

  constructor(o: NominatimOptions) {
    if (!o.userAgent?.trim()) throw new GeocodeError('config', 'The geocoder needs a User-Agent naming the app');
    const baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.#o = {
      baseUrl,
      apiKey: o.apiKey ?? null,
      userAgent: o.userAgent,
      timeoutMs: o.timeoutMs ?? 10_000,
      // A little over the policy's 1 s, so clock jitter never makes two requests in one second.
      minIntervalMs: o.minIntervalMs ?? (new URL(baseUrl).host === new URL(PUBLIC_NOMINATIM_URL).host ? 1_100 : 0),
      dispatcher: o.dispatcher ?? (sharedAgent ??= new Agent({ keepAliveTimeout: 4_000 })),
      now: o.now ?? Date.now,
      sleep: o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
    };
  }

  async geocode(q: AddressQuery): Promise<GeocodeResult> {
    await this.#throttle();
    const o = this.#o;
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(searchUrl(o.baseUrl, q, o.apiKey), {
        method: 'GET',
        headers: { 'user-agent': o.userAgent, accept: 'application/json' },
        dispatcher: o.dispatcher,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      status = res.statusCode;
      headers = res.headers;
      text = await readCapped(res.body);
    } catch (e) {
      if (e instanceof GeocodeError) throw e;
      if (isTimeout(e)) throw new GeocodeTimeoutError(`The geocoder did not answer within ${o.timeoutMs} ms`, { cause: e });
      throw new GeocodeError('unavailable', `The geocoder could not be reached (${(e as { code?: string }).code ?? (e as Error).name})`, { cause: e });
    }
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(headers['retry-after'], o.now());
      throw new GeocodeRateLimitedError(`The geocoder is rate limiting us (HTTP 429${retryAfterMs === undefined ? '' : `, retry after ${Math.ceil(retryAfterMs / 1000)} s`})`, { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    }
    if (status === 401 || status === 403) throw new GeocodeError('denied', `The geocoder refused us (HTTP ${status}): check GEOCODER_API_KEY, or its usage policy`, { status });
    if (status >= 500) throw new GeocodeError('unavailable', `The geocoder failed (HTTP ${status})`, { status });
    if (status !== 200) throw new GeocodeError('bad_response', `The geocoder refused the query (HTTP ${status}${errorMessage(text)})`, { status });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new GeocodeError('bad_response', 'The geocoder answered HTTP 200 with a body that is not JSON', { status });
    }
    const result = parseSearchResponse(body, q);
    if (!result) throw new GeocodeZeroResultsError();
    return result;
  }

  /** Waits for this server's next free slot and takes it. */
  async #throttle(): Promise<void> {
    const { minIntervalMs, baseUrl, now, sleep } = this.#o;
    if (minIntervalMs <= 0) return;
    const t = now();
    const start = Math.max(t, nextSlot.get(baseUrl) ?? 0);
    nextSlot.set(baseUrl, start + minIntervalMs);
    if (start > t) await sleep(start - t);
  }
}

function isTimeout(e: unknown): boolean {
  const err = e as { name?: string; code?: string } | null;
  return err?.name === 'TimeoutError' || err?.code === 'UND_ERR_HEADERS_TIMEOUT' || err?.code === 'UND_ERR_BODY_TIMEOUT' || err?.code === 'UND_ERR_CONNECT_TIMEOUT';
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > MAX_BODY_BYTES) throw new GeocodeError('bad_response', `The geocoder's answer is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Nominatim's error body: {"error": {"code": 400, "message": "..."}} or {"error": "..."}. */
function errorMessage(text: string): string {
  try {
    const e = JSON.parse(text)?.error;
    const m = typeof e === 'string' ? e : e?.message;
    return typeof m === 'string' && m ? `: ${m.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
