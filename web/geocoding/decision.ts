// What to do with a geocoding answer. Pure: result + threshold in, decision out.
import type { GeocodeCandidate, GeocodeResult } from './types.ts';

export type GeocodeDecision =
  /** Confident enough: use the coordinates. */
  | { kind: 'ok'; lat: number; lng: number; confidence: number; formattedAddress: string }
  /** Found, not sure: NEEDS_ATTENTION showing the candidate for one-click confirmation. */
  | { kind: 'needs_confirmation'; candidate: GeocodeCandidate; candidates: GeocodeCandidate[]; message: string }
  /** Nothing found: NEEDS_ATTENTION for coordinates typed by hand, as without a geocoder. */
  | { kind: 'none'; message: string };

/** @param result null when the geocoder found nothing. */
export function decideGeocode(result: GeocodeResult | null, minConfidence: number): GeocodeDecision {
  if (!result) return { kind: 'none', message: 'The geocoder found no place for this address; enter the coordinates' };
  const { candidates, provider: _provider, ...best } = result;
  if (best.confidence >= minConfidence) {
    return { kind: 'ok', lat: best.lat, lng: best.lng, confidence: best.confidence, formattedAddress: best.formattedAddress };
  }
  const pct = (n: number) => `${Math.round(n * 100)}%`;
  return {
    kind: 'needs_confirmation',
    candidate: best,
    candidates,
    message: `The geocoder is ${pct(best.confidence)} sure (${best.precision} match: ${best.formattedAddress}); confirm the location or enter the coordinates`,
  };
}
