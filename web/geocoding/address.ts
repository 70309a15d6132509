// From a stored order address to a geocoder query, and the cache key of a
// query. Pure. The key is a hash of the normalised address, so the cache table
// holds no address in the clear, and "12 Rivonia Rd." and "12  rivonia rd"
// share one entry.
import { createHash } from 'node:crypto';
import type { Address } from '../order/snapshot.ts';
import type { AddressQuery } from './types.ts';

/** The query for an order's shipping address (with the merchant's fixes applied), or null when it is too incomplete to look up. */
export function queryFromAddress(addr: Pick<Address, 'address1' | 'address2' | 'city' | 'province' | 'zip' | 'country_code'> | null | undefined): AddressQuery | null {
  if (!addr?.address1 || !addr.city || !addr.country_code) return null;
  return { address1: addr.address1, address2: addr.address2, city: addr.city, province: addr.province, zip: addr.zip, countryCode: addr.country_code.toUpperCase() };
}

/** Lower case, accents and punctuation dropped, spaces collapsed: "Rue de l'Église, 5" → "rue de l eglise 5". */
export function normalisePart(text: string | null | undefined): string {
  return (text ?? '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The normalised address: country, zip, province, city, street. address2 (unit,
 * floor, complex) is left out: it does not move the point, and geocoders stumble on it.
 */
export function normaliseAddress(q: AddressQuery): string {
  return [q.countryCode, q.zip, q.province, q.city, q.address1].map(normalisePart).join('|');
}

/** Cache key: provider and normalised address, hashed. */
export function geocodeCacheKey(provider: string, q: AddressQuery): string {
  return createHash('sha256').update(`${provider}\n${normaliseAddress(q)}`).digest('hex');
}
