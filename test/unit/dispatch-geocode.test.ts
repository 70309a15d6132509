// Geocoding in dispatch, the pure parts: when to look an address up, what the
// geocoder's decision does to the stored corrections, and how a merchant's fix
// replaces the geocoder's coordinates.
import { describe, expect, it } from 'vitest';
import { applyFix } from '../../web/dispatch/fix.ts';
import { geocodeStep, needsGeocoding } from '../../web/dispatch/geocode.ts';
import { parseOrderSnapshot, type GeocodeNote, type Overrides } from '../../web/order/snapshot.ts';
import type { GeocodeDecision } from '../../web/geocoding/index.ts';
import { loadOrderFixture } from '../support/orders.ts';

const order = (address: Record<string, unknown> | null) => {
  const o = loadOrderFixture('sandton-same-day');
  o.shipping_address = address === null ? null : { ...o.shipping_address, ...address };
  return parseOrderSnapshot(o);
};

describe('needsGeocoding', () => {
  it.each<[string, Record<string, unknown> | null, Overrides, boolean]>([
    ['coordinates on the address', {}, {}, false],
    ['no coordinates', { latitude: null, longitude: null }, {}, true],
    ['only one coordinate', { latitude: -26.1, longitude: null }, {}, true],
    ['0, 0 (a geocoder’s non-answer)', { latitude: 0, longitude: 0 }, {}, true],
    ['no coordinates, the merchant’s', { latitude: null, longitude: null }, { latitude: -26.1, longitude: 28.05 }, false],
    ['no shipping address', null, {}, false],
  ])('%s', (_name, address, overrides, expected) => {
    expect(needsGeocoding(order(address), overrides)).toBe(expected);
  });
});

const candidate = { lat: -26.2384, lng: 27.9086, confidence: 0.6, formattedAddress: 'Vilakazi Street, Soweto', precision: 'street' as const };
const oldNote: GeocodeNote = { state: 'candidate', provider: 'nominatim', lat: 1, lng: 2, confidence: 0.3, formattedAddress: 'old' };

describe('geocodeStep', () => {
  it.each<[string, GeocodeDecision, Overrides, ReturnType<typeof geocodeStep>]>([
    ['confident: the coordinates are used and marked as the geocoder’s',
      { kind: 'ok', lat: -25.75373, lng: 28.23768, confidence: 1, formattedAddress: '1115 Burnett Street' }, { phone: '+27825550199' },
      { kind: 'use', note: 'Coordinates found by the geocoder (nominatim, 100% sure)', overrides: { phone: '+27825550199', latitude: -25.75373, longitude: 28.23768, geocode: { state: 'used', provider: 'nominatim', lat: -25.75373, lng: 28.23768, confidence: 1, formattedAddress: '1115 Burnett Street' } } }],
    ['not sure: attention with the candidate kept, no coordinates',
      { kind: 'needs_confirmation', candidate, candidates: [candidate], message: 'confirm' }, { geocode: oldNote },
      { kind: 'attention', problem: { code: 'geocode_low_confidence', message: 'confirm' }, overrides: { geocode: { state: 'candidate', provider: 'nominatim', ...candidate } } }],
    ['nothing found: attention, an old candidate dropped',
      { kind: 'none', message: 'none found' }, { geocode: oldNote, city: 'Soweto' },
      { kind: 'attention', problem: { code: 'geocode_no_result', message: 'none found' }, overrides: { city: 'Soweto' } }],
  ])('%s', (_name, decision, overrides, expected) => {
    expect(geocodeStep(decision, 'nominatim', overrides)).toEqual(expected);
  });
});

describe('applyFix', () => {
  const used: Overrides = { latitude: -25.7, longitude: 28.2, geocode: { ...oldNote, state: 'used', lat: -25.7, lng: 28.2 } };
  it.each<[string, Overrides, Overrides, Overrides]>([
    ['a plain correction is merged', { phone: '+27825550199' }, { city: 'Soweto' }, { phone: '+27825550199', city: 'Soweto' }],
    ['confirming the candidate: the merchant’s coordinates, the candidate gone', { geocode: oldNote }, { latitude: 1, longitude: 2 }, { latitude: 1, longitude: 2 }],
    ['coordinates typed over the geocoder’s', used, { latitude: -26, longitude: 28 }, { latitude: -26, longitude: 28 }],
    ['a new street drops the geocoder’s coordinates (looked up again)', used, { address1: '8115 Vilakazi Street' }, { address1: '8115 Vilakazi Street' }],
    ['a new city drops the candidate', { geocode: oldNote }, { city: 'Soweto' }, { city: 'Soweto' }],
    ['a new phone keeps the geocoder’s coordinates', used, { phone: '+27825550199' }, { ...used, phone: '+27825550199' }],
    ['a new street keeps the merchant’s own coordinates', { latitude: 1, longitude: 2 }, { address1: 'x' }, { latitude: 1, longitude: 2, address1: 'x' }],
  ])('%s', (_name, stored, fix, expected) => {
    expect(applyFix(stored, fix)).toEqual(expected);
  });
});
