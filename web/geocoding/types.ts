// The geocoder seam: one interface, provider modules behind it (nominatim.ts).
// Coordinates are numbers in decimal degrees rounded to 7 places (about 1 cm),
// the precision Nominatim answers with and what the courier's latitude/longitude take.

/** An address to find, in the order snapshot's terms (web/order/snapshot.ts Address). */
export interface AddressQuery {
  address1: string;
  address2?: string | null;
  city: string;
  province?: string | null;
  zip?: string | null;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
}

export interface GeocodeCandidate {
  lat: number;
  lng: number;
  /** 0..1: how sure we are this point is the address (provider-specific, see nominatim.ts confidenceOf). */
  confidence: number;
  formattedAddress: string;
  /** What the point stands for: a building, a street, an area. */
  precision: 'building' | 'street' | 'area';
}

/** The best candidate, with every candidate (best first) for the merchant to pick from. */
export interface GeocodeResult extends GeocodeCandidate {
  provider: string;
  candidates: GeocodeCandidate[];
}

export interface Geocoder {
  readonly provider: string;
  /** Throws GeocodeError (zero_results, rate_limited, timeout, unavailable, denied, bad_response). */
  geocode(query: AddressQuery): Promise<GeocodeResult>;
}

export type GeocodeErrorKind = 'zero_results' | 'rate_limited' | 'timeout' | 'unavailable' | 'denied' | 'bad_response' | 'config';

/** One line a merchant can read; never holds the API key. */
export class GeocodeError extends Error {
  readonly kind: GeocodeErrorKind;
  readonly status?: number;
  /** Worth trying again later (rate limited, timeout, 5xx). */
  readonly retryable: boolean;
  constructor(kind: GeocodeErrorKind, message: string, opts: { status?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    this.retryable = kind === 'rate_limited' || kind === 'timeout' || kind === 'unavailable';
  }
}

export class GeocodeZeroResultsError extends GeocodeError {
  constructor(message = 'The geocoder found no place for this address') {
    super('zero_results', message);
  }
}

export class GeocodeRateLimitedError extends GeocodeError {
  /** From Retry-After, when the geocoder sent one. */
  readonly retryAfterMs?: number;
  constructor(message: string, opts: { status?: number; retryAfterMs?: number } = {}) {
    super('rate_limited', message, opts);
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

export class GeocodeTimeoutError extends GeocodeError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('timeout', message, opts);
  }
}
