// An order edited in Shopify (orders/updated; orders/edited carries line-item
// changes only, no address) against what we stored. Pure: stored order +
// payload + delivery status in, decision out. orders/updated also fires for
// our own tag and metafield writes, so "no change" is the common answer.
import { BOOKED, type DeliveryStatus } from '../lifecycle/machine.ts';
import { OrderSnapshotSchema, type Address, type OrderSnapshot, type Overrides } from '../order/snapshot.ts';

/** The delivery-relevant fields compared; coordinates compare to 6 places (about 10 cm). */
export const ADDRESS_FIELDS = [
  'name', 'first_name', 'last_name', 'company', 'address1', 'address2', 'city', 'province', 'zip', 'country_code', 'phone', 'latitude', 'longitude',
] as const;
type AddressField = (typeof ADDRESS_FIELDS)[number];
export type ChangedField = `shipping_address.${AddressField}` | 'shipping_address' | 'phone';

/** Fields whose change makes the stored (or merchant-fixed, or geocoded) coordinates wrong. */
const LOCATING: readonly AddressField[] = ['address1', 'city', 'province', 'zip', 'country_code'];

export type AddressChangeDecision =
  | { kind: 'none'; reason: 'unchanged' | 'stale' | 'final' | 'unparseable'; message?: string }
  /** Before booking: store the new snapshot and drop the merchant's corrections that Shopify's edit replaces. */
  | { kind: 'update'; changed: ChangedField[]; snapshot: OrderSnapshot; dropOverrides: Array<keyof Overrides> }
  /** After booking: the courier has the old address; tell the merchant. The snapshot is what Shopify holds now (a later edit compares with it). */
  | { kind: 'flag'; changed: ChangedField[]; message: string; snapshot: OrderSnapshot };

/** Statuses where an address change no longer matters. */
const FINAL: readonly DeliveryStatus[] = ['DELIVERED'];

export interface AddressChangeInput {
  stored: OrderSnapshot;
  /** The orders/updated body (REST order shape). */
  payload: unknown;
  status: DeliveryStatus;
  /** updated_at of the payload that produced the stored snapshot, when known: older payloads are ignored. */
  storedUpdatedAt?: string | null;
  overrides?: Overrides;
}

export function decideAddressChange(input: AddressChangeInput): AddressChangeDecision {
  const parsed = OrderSnapshotSchema.safeParse(input.payload);
  if (!parsed.success) return { kind: 'none', reason: 'unparseable', message: `order payload: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}` };
  const incomingAt = updatedAtOf(input.payload);
  if (incomingAt !== null && input.storedUpdatedAt && incomingAt <= Date.parse(input.storedUpdatedAt)) return { kind: 'none', reason: 'stale' };

  const next = parsed.data;
  const changed = addressChanges(input.stored, next);
  if (changed.length === 0) return { kind: 'none', reason: 'unchanged' };
  if (FINAL.includes(input.status)) return { kind: 'none', reason: 'final' };
  const snapshot = { ...input.stored, shipping_address: next.shipping_address ?? null, phone: next.phone, updated_at: next.updated_at ?? input.stored.updated_at };
  if (BOOKED.includes(input.status)) {
    return { kind: 'flag', changed, snapshot, message: `The order's ${describe(changed)} changed in Shopify after the courier was booked; the courier still has the old details` };
  }
  return { kind: 'update', changed, snapshot, dropOverrides: staleOverrides(changed, input.overrides ?? {}) };
}

export function addressChanges(before: OrderSnapshot, after: OrderSnapshot): ChangedField[] {
  const out: ChangedField[] = [];
  if (norm(before.phone) !== norm(after.phone)) out.push('phone');
  const a = before.shipping_address;
  const b = after.shipping_address;
  if (!a || !b) return a || b ? ['shipping_address', ...out] : out;
  for (const f of ADDRESS_FIELDS) if (!same(f, a, b)) out.push(`shipping_address.${f}`);
  return out;
}

function same(f: AddressField, a: Address, b: Address): boolean {
  if (f === 'latitude' || f === 'longitude') {
    const x = a[f];
    const y = b[f];
    return x === null || y === null ? x === y : Math.abs(x - y) < 5e-7;
  }
  return norm(a[f]) === norm(b[f]);
}

/** Case and spacing are not changes. ß folds to ss as in Unicode case folding ("Straße" = "STRASSE"). */
const norm = (v: string | null | undefined) => (v ?? '').normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase().replace(/ß/g, 'ss');

function staleOverrides(changed: ChangedField[], overrides: Overrides): Array<keyof Overrides> {
  const has = (f: string) => changed.includes(f as ChangedField) || changed.includes('shipping_address');
  const drop = new Set<keyof Overrides>();
  for (const k of ['name', 'address1', 'address2', 'city'] as const) if (has(`shipping_address.${k}`)) drop.add(k);
  if (has('phone') || has('shipping_address.phone')) drop.add('phone');
  if (LOCATING.some((f) => has(`shipping_address.${f}`)) || has('shipping_address.latitude') || has('shipping_address.longitude')) {
    drop.add('latitude');
    drop.add('longitude');
  }
  return [...drop].filter((k) => overrides[k] !== undefined);
}

function describe(changed: ChangedField[]): string {
  const parts = new Set(changed.map((c) => (c === 'phone' || c === 'shipping_address.phone' ? 'phone' : c === 'shipping_address.latitude' || c === 'shipping_address.longitude' ? 'coordinates' : 'shipping address')));
  return [...parts].join(' and ');
}

function updatedAtOf(payload: unknown): number | null {
  const v = (payload as { updated_at?: unknown } | null)?.updated_at;
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : t;
}
