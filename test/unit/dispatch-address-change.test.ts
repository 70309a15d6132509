import { describe, expect, it } from 'vitest';
import { addressChanges, decideAddressChange, type AddressChangeDecision, type AddressChangeInput } from '../../web/dispatch/address-change.ts';
import { parseOrderSnapshot, type Overrides } from '../../web/order/snapshot.ts';
import type { DeliveryStatus } from '../../web/lifecycle/machine.ts';
import { paidOrder, type OrderPayload } from '../support/orders.ts';

const original = paidOrder();
const stored = parseOrderSnapshot(original);
/** The stored order as orders/updated would send it, with changes. */
const updated = (changes: OrderPayload) => ({ ...structuredClone(original), ...changes, shipping_address: changes.shipping_address === null ? null : { ...original.shipping_address, ...changes.shipping_address } });
/** A stored snapshot of the fixture order with changes (for addressChanges). */
const snapshot = (changes: OrderPayload) => parseOrderSnapshot(updated(changes));

describe('decideAddressChange', () => {
  it.each<[string, OrderPayload, DeliveryStatus, Partial<AddressChangeDecision>]>([
    // [name, payload changes, delivery status, decision]
    ['our own tag write (nothing delivery-relevant)', { tags: 'same-day-dispatched' }, 'CREATED', { kind: 'none', reason: 'unchanged' }],
    ['case and spacing only', { shipping_address: { address1: '  12  RIVONIA road ' } }, 'PENDING', { kind: 'none', reason: 'unchanged' }],
    ['coordinates within 10 cm', { shipping_address: { latitude: original.shipping_address.latitude + 1e-7 } }, 'PENDING', { kind: 'none', reason: 'unchanged' }],
    ['a new street before booking', { shipping_address: { address1: '1 Fredman Drive' } }, 'NEEDS_ATTENTION', { kind: 'update', changed: ['shipping_address.address1'] }],
    ['a new phone on the order before booking', { phone: '+27821234567' }, 'PENDING', { kind: 'update', changed: ['phone'] }],
    ['a new address phone before booking', { shipping_address: { phone: '+27821234567' } }, 'SKIPPED', { kind: 'update', changed: ['shipping_address.phone'] }],
    ['coordinates moved before booking', { shipping_address: { latitude: -26.1, longitude: 28.05 } }, 'FAILED', { kind: 'update', changed: ['shipping_address.latitude', 'shipping_address.longitude'] }],
    ['coordinates removed before booking', { shipping_address: { latitude: null, longitude: null } }, 'PENDING', { kind: 'update', changed: ['shipping_address.latitude', 'shipping_address.longitude'] }],
    ['the address removed', { shipping_address: null }, 'PENDING', { kind: 'update', changed: ['shipping_address'] }],
    ['a new street after booking', { shipping_address: { address1: '1 Fredman Drive' } }, 'CREATED', { kind: 'flag', changed: ['shipping_address.address1'] }],
    ['a new recipient while on the way', { shipping_address: { last_name: 'Other' } }, 'IN_PROGRESS', { kind: 'flag', changed: ['shipping_address.last_name'] }],
    ['a change after delivery', { shipping_address: { address1: '1 Fredman Drive' } }, 'DELIVERED', { kind: 'none', reason: 'final' }],
  ])('%s', (_name, changes, status, expected) => {
    expect(decideAddressChange({ stored, payload: updated(changes), status })).toMatchObject(expected);
  });

  it('before booking: the new snapshot keeps everything else, and stale corrections go', () => {
    const input: AddressChangeInput = {
      stored, status: 'NEEDS_ATTENTION', payload: updated({ shipping_address: { address1: '1 Fredman Drive', latitude: null, longitude: null } }),
      overrides: { latitude: -26.1, longitude: 28.05, phone: '+27821234567', name: 'Fixed Name' },
    };
    const d = decideAddressChange(input);
    if (d.kind !== 'update') throw new Error(d.kind);
    expect(d.snapshot).toEqual({ ...stored, shipping_address: { ...stored.shipping_address, address1: '1 Fredman Drive', latitude: null, longitude: null } });
    // A moved street makes the fixed coordinates wrong; the fixed phone and name still stand.
    expect(d.dropOverrides.sort()).toEqual(['latitude', 'longitude']);
  });

  // Every correction the merchant can make, so each row shows exactly which ones an edit replaces.
  const allOverrides: Overrides = {
    name: 'Thandi N.', address1: '12 Rivonia Rd', address2: 'Unit 4', city: 'Sandton', email: 'thandi@example.com', phone: '+27825551234', latitude: -26.1076, longitude: 28.0567,
  };
  it.each<[string, OrderPayload, Array<keyof Overrides>]>([
    // [name, payload changes, corrections dropped]
    ['a new recipient name', { shipping_address: { name: 'Thandi Dlamini' } }, ['name']],
    ['a new street', { shipping_address: { address1: '1 Fredman Drive' } }, ['address1', 'latitude', 'longitude']],
    ['a new address line 2', { shipping_address: { address2: 'Unit 9' } }, ['address2']],
    ['a new city', { shipping_address: { city: 'Randburg' } }, ['city', 'latitude', 'longitude']],
    ['a new postal code', { shipping_address: { zip: '2191' } }, ['latitude', 'longitude']],
    ['a new province', { shipping_address: { province: 'Western Cape' } }, ['latitude', 'longitude']],
    ['a new country', { shipping_address: { country_code: 'NA' } }, ['latitude', 'longitude']],
    ['new latitude only', { shipping_address: { latitude: -26.2 } }, ['latitude', 'longitude']],
    ['new longitude only', { shipping_address: { longitude: 28.1 } }, ['latitude', 'longitude']],
    ['a new phone on the order', { phone: '+27821234567' }, ['phone']],
    ['a new phone on the address', { shipping_address: { phone: '+27821234567' } }, ['phone']],
    ['a new company (no correction covers it)', { shipping_address: { company: 'Acme' } }, []],
    ['the address removed (every address correction goes; e-mail stays)', { shipping_address: null }, ['name', 'address1', 'address2', 'city', 'phone', 'latitude', 'longitude']],
  ])('before booking, %s drops the matching corrections', (_name, changes, dropped) => {
    const d = decideAddressChange({ stored, payload: updated(changes), status: 'PENDING', overrides: allOverrides });
    if (d.kind !== 'update') throw new Error(d.kind);
    expect([...d.dropOverrides].sort()).toEqual([...dropped].sort());
  });

  it('after booking: names what changed for the merchant', () => {
    const d = decideAddressChange({ stored, payload: updated({ phone: '+27821234567', shipping_address: { latitude: -26.2, longitude: 28.1 } }), status: 'CREATED' });
    expect(d).toMatchObject({ kind: 'flag', message: "The order's phone and coordinates changed in Shopify after the courier was booked; the courier still has the old details" });
  });

  it.each<[string, OrderPayload, string]>([
    // [name, payload changes, what the message names]
    ['a street', { shipping_address: { address1: '1 Fredman Drive' } }, 'shipping address'],
    ['the address phone', { shipping_address: { phone: '+27821234567' } }, 'phone'],
    ['the address removed', { shipping_address: null }, 'shipping address'],
    ['a street and the address phone', { shipping_address: { address1: '1 Fredman Drive', phone: '+27821234567' } }, 'shipping address and phone'],
  ])('after booking, %s is named in the message', (_name, changes, what) => {
    const d = decideAddressChange({ stored, payload: updated(changes), status: 'IN_PROGRESS' });
    expect(d).toMatchObject({ kind: 'flag', message: `The order's ${what} changed in Shopify after the courier was booked; the courier still has the old details` });
  });

  it('the new snapshot carries the payload\'s updated_at, so an older edit arriving later is ignored', () => {
    const at = '2026-11-22T10:00:00Z';
    for (const status of ['PENDING', 'CREATED'] as const) {
      const d = decideAddressChange({ stored, payload: updated({ shipping_address: { address1: '1 Fredman Drive' }, updated_at: at }), status });
      expect(d).toMatchObject({ snapshot: { updated_at: at } });
    }
    // A payload without one keeps the stored time.
    const d = decideAddressChange({ stored, payload: updated({ shipping_address: { address1: '1 Fredman Drive' }, updated_at: null }), status: 'PENDING' });
    expect(d).toMatchObject({ snapshot: { updated_at: stored.updated_at } });
    expect(stored.updated_at).toBeTruthy();
  });

  it('ignores a payload older than the stored one, or the same one again (webhooks arrive out of order, and twice)', () => {
    const payload = updated({ shipping_address: { address1: '1 Fredman Drive' }, updated_at: '2026-11-22T10:00:00Z' });
    expect(decideAddressChange({ stored, payload, status: 'PENDING', storedUpdatedAt: '2026-11-22T10:00:05Z' })).toEqual({ kind: 'none', reason: 'stale' });
    expect(decideAddressChange({ stored, payload, status: 'PENDING', storedUpdatedAt: '2026-11-22T12:00:00+02:00' })).toEqual({ kind: 'none', reason: 'stale' });
    expect(decideAddressChange({ stored, payload, status: 'PENDING', storedUpdatedAt: '2026-11-22T09:59:00Z' })).toMatchObject({ kind: 'update' });
  });

  it.each<[string, unknown]>([
    ['no updated_at', null],
    ['an updated_at that is not a time', 'yesterday'],
  ])('a payload with %s is not taken for an old one', (_name, updatedAt) => {
    const payload = updated({ shipping_address: { address1: '1 Fredman Drive' }, updated_at: updatedAt });
    expect(decideAddressChange({ stored, payload, status: 'PENDING', storedUpdatedAt: '2026-11-22T10:00:05Z' })).toMatchObject({ kind: 'update' });
  });

  it.each<[string, unknown, string]>([
    ['no order id', { id: null }, 'id'],
    ['coordinates that are not numbers', updated({ shipping_address: { latitude: 'north' } }), 'shipping_address.latitude'],
  ])('a payload it cannot read (%s) changes nothing and names the field', (_name, payload, field) => {
    const d = decideAddressChange({ stored, payload, status: 'PENDING' });
    expect(d).toMatchObject({ kind: 'none', reason: 'unparseable' });
    // "order payload: <field> <zod's message>"
    expect(d.kind === 'none' && d.message?.split(' ').slice(0, 3)).toEqual(['order', 'payload:', field]);
    expect(d.kind === 'none' && d.message?.split(' ').length).toBeGreaterThan(3);
  });
});

describe('addressChanges', () => {
  const noCoordinates = { latitude: null, longitude: null };
  // Greenwich: a longitude of 0 is a real coordinate, not a missing one.
  const greenwich = { address1: 'Blackheath Avenue', city: 'London', zip: 'SE10 8XJ', country_code: 'GB', latitude: 51.4769, longitude: 0 };
  it.each<[string, OrderPayload, OrderPayload, string[]]>([
    // [name, stored order changes, new order changes, changed fields]
    ['no address before or after', { shipping_address: null }, { shipping_address: null }, []],
    ['no address before or after, a new phone', { shipping_address: null }, { shipping_address: null, phone: '+27821234567' }, ['phone']],
    ['an address added', { shipping_address: null }, {}, ['shipping_address']],
    ['an empty address line 2 and a missing one', { shipping_address: { address2: null } }, { shipping_address: { address2: '' } }, []],
    ['a street with ß in capitals (STRASSE)', { shipping_address: { address1: 'Hauptstraße 5' } }, { shipping_address: { address1: 'HAUPTSTRASSE 5' } }, []],
    ['the capital ẞ', { shipping_address: { address1: 'Hauptstraße 5' } }, { shipping_address: { address1: 'HAUPTSTRAẞE 5' } }, []],
    ['ss where there was one s is a change', { shipping_address: { address1: 'Hauptstrase 5' } }, { shipping_address: { address1: 'Hauptstrasse 5' } }, ['shipping_address.address1']],
    ['a space that splits a house number', { shipping_address: { address1: '2 14th Avenue' } }, { shipping_address: { address1: '214th Avenue' } }, ['shipping_address.address1']],
    ['no coordinates before or after, a new street', { shipping_address: noCoordinates }, { shipping_address: { ...noCoordinates, address1: '1 Fredman Drive' } }, ['shipping_address.address1']],
    ['coordinates on the prime meridian added', { shipping_address: { ...greenwich, ...noCoordinates } }, { shipping_address: greenwich }, ['shipping_address.latitude', 'shipping_address.longitude']],
    ['coordinates on the prime meridian removed', { shipping_address: greenwich }, { shipping_address: { ...greenwich, ...noCoordinates } }, ['shipping_address.latitude', 'shipping_address.longitude']],
    ['the same prime-meridian coordinates', { shipping_address: greenwich }, { shipping_address: greenwich }, []],
  ])('%s', (_name, before, after, changed) => {
    expect(addressChanges(snapshot(before), snapshot(after))).toEqual(changed);
  });
});
