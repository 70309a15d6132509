import { describe, expect, it } from 'vitest';
import { decideAddressChange, type AddressChangeInput } from '../../web/dispatch/address-change.ts';
import { parseOrderSnapshot } from '../../web/dispatch/order.ts';
import type { DeliveryStatus } from '../../web/lifecycle/machine.ts';
import { paidOrder, type OrderPayload } from '../support/orders.ts';

const original = paidOrder();
const stored = parseOrderSnapshot(original);
/** The stored order as orders/updated would send it, with changes. */
const updated = (changes: OrderPayload) => ({ ...structuredClone(original), ...changes, shipping_address: changes.shipping_address === null ? null : { ...original.shipping_address, ...changes.shipping_address } });

describe('decideAddressChange', () => {
  it.each<[string, OrderPayload, DeliveryStatus, string, string[]]>([
    // [name, payload changes, delivery status, kind, changed fields]
    ['our own tag write (nothing delivery-relevant)', { tags: 'same-day-dispatched' }, 'CREATED', 'none', []],
    ['case and spacing only', { shipping_address: { address1: '  12  RIVONIA road ' } }, 'PENDING', 'none', []],
    ['coordinates within 10 cm', { shipping_address: { latitude: original.shipping_address.latitude + 1e-7 } }, 'PENDING', 'none', []],
    ['a new street before booking', { shipping_address: { address1: '1 Fredman Drive' } }, 'NEEDS_ATTENTION', 'update', ['shipping_address.address1']],
    ['a new phone on the order before booking', { phone: '+27821234567' }, 'PENDING', 'update', ['phone']],
    ['a new address phone before booking', { shipping_address: { phone: '+27821234567' } }, 'SKIPPED', 'update', ['shipping_address.phone']],
    ['coordinates added before booking', { shipping_address: { latitude: -26.1, longitude: 28.05 } }, 'FAILED', 'update', ['shipping_address.latitude', 'shipping_address.longitude']],
    ['the address removed', { shipping_address: null }, 'PENDING', 'update', ['shipping_address']],
    ['a new street after booking', { shipping_address: { address1: '1 Fredman Drive' } }, 'CREATED', 'flag', ['shipping_address.address1']],
    ['a new recipient while on the way', { shipping_address: { last_name: 'Other' } }, 'IN_PROGRESS', 'flag', ['shipping_address.last_name']],
    ['a change after delivery', { shipping_address: { address1: '1 Fredman Drive' } }, 'DELIVERED', 'none', []],
  ])('%s', (_name, changes, status, kind, changed) => {
    const d = decideAddressChange({ stored, payload: updated(changes), status });
    expect(d.kind).toBe(kind);
    if (d.kind === 'update' || d.kind === 'flag') expect(d.changed).toEqual(changed);
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

  it('after booking: names what changed for the merchant', () => {
    const d = decideAddressChange({ stored, payload: updated({ phone: '+27821234567', shipping_address: { latitude: -26.2, longitude: 28.1 } }), status: 'CREATED' });
    expect(d).toMatchObject({ kind: 'flag', message: "The order's phone and coordinates changed in Shopify after the courier was booked; the courier still has the old details" });
  });

  it('ignores a payload older than the stored one (webhooks arrive out of order)', () => {
    const payload = updated({ shipping_address: { address1: '1 Fredman Drive' }, updated_at: '2026-11-22T10:00:00Z' });
    expect(decideAddressChange({ stored, payload, status: 'PENDING', storedUpdatedAt: '2026-11-22T10:00:05Z' })).toEqual({ kind: 'none', reason: 'stale' });
    expect(decideAddressChange({ stored, payload, status: 'PENDING', storedUpdatedAt: '2026-11-22T09:59:00Z' })).toMatchObject({ kind: 'update' });
  });

  it('a payload it cannot read changes nothing', () => {
    expect(decideAddressChange({ stored, payload: { id: null }, status: 'PENDING' })).toMatchObject({ kind: 'none', reason: 'unparseable' });
  });
});
