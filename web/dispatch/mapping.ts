// Shopify order → Delivery Orders API create-order request. Pure and
// table-tested (test/unit/dispatch-mapping.test.ts). When something required is
// missing or invalid, no request is built: the problems go to the merchant as
// NEEDS_ATTENTION and the courier is never called.
import { createHash } from 'node:crypto';
import { CreateOrderRequestSchema, type CreateOrderRequest } from '../delivery/index.ts';
import { normalisePhone } from '../phone/phone.ts';
import { gramsOf, type EnvironmentName, type Settings } from '../settings/schema.ts';
import { gramsToKg, money2 } from '../order/money.ts';
import { FIXABLE_TEXT, orderGidOf, orderIdOf, type OrderSnapshot, type Overrides } from '../order/snapshot.ts';
import type { Problem } from './status.ts';

export interface MappingContext {
  shopDomain: string;
  environment: EnvironmentName;
  settings: Settings;
  /** The environment's default pickup store and its Shopify location → store map. */
  pickupStoreId: string | null;
  locationStores: Record<string, string>;
  /** The Shopify location fulfilling the order, when known. */
  locationId: string | null;
  overrides: Overrides;
}

export type MappingResult = { ok: true; request: CreateOrderRequest } | { ok: false; problems: Problem[] };

/** Free-text bounds are not in the spec; we keep notes short enough for any courier UI. */
export const NOTES_MAX = 500;

export function mapOrderToRequest(order: OrderSnapshot, ctx: MappingContext): MappingResult {
  const problems: Problem[] = [];
  const addr = order.shipping_address ? withAddressFixes(order.shipping_address, ctx.overrides) : order.shipping_address;
  const country = addr?.country_code?.toUpperCase() ?? null;

  // pickup.storeId: the fulfilling location's store, else the environment's default store.
  const storeId = (ctx.locationId && ctx.locationStores[ctx.locationId]) || ctx.pickupStoreId;
  if (!storeId) problems.push({ code: 'missing_pickup_store', message: `No pickup store is set for the ${ctx.environment} environment` });

  // amount/currency: the order total, exact to 2 decimals (decimal string until serialisation).
  const amount = money2(order.total_price);
  if (amount === null || !/^[A-Z]{3}$/.test(order.currency.toUpperCase())) {
    problems.push({ code: 'invalid_amount', message: `Order total '${order.total_price} ${order.currency}' is not a valid amount` });
  }

  if (!addr) {
    problems.push({ code: 'no_shipping_address', message: 'No shipping address' });
    return { ok: false, problems };
  }

  // dropoff.name: the shipping address name, else first + last name, else the company.
  const name = addr.name ?? ([addr.first_name, addr.last_name].filter(Boolean).join(' ') || addr.company);
  const missing = [
    !name && 'recipient name',
    !addr.address1 && 'street address',
    !addr.city && 'city',
    !country && 'country',
  ].filter(Boolean);
  if (missing.length) problems.push({ code: 'incomplete_address', message: `Shipping address has no ${missing.join(', ')}` });

  // dropoff.latitude/longitude: required by the courier for pricing and routing.
  const lat = ctx.overrides.latitude ?? addr.latitude;
  const lng = ctx.overrides.longitude ?? addr.longitude;
  if (!validCoordinates(lat, lng)) problems.push({ code: 'missing_coordinates', message: 'Shipping address has no coordinates' });

  // dropoff.phone: international format, parsed in the destination country.
  const phone = dropoffPhone(order, ctx.overrides);
  if ('problem' in phone) problems.push(phone.problem);

  if (problems.length) return { ok: false, problems };

  // package.weightKg: the order's total weight, else the sum of its shippable lines, else the default.
  const grams = orderGrams(order) || gramsOf(ctx.settings.package.defaultWeightKg);

  const email = ctx.overrides.email !== undefined ? ctx.overrides.email : (order.email ?? order.contact_email);
  const request: CreateOrderRequest = {
    // reference: the Shopify order id (numeric, as a string); the courier echoes it and can look it up.
    reference: orderIdOf(order),
    channel: channelFor(order.source_name),
    sellerType: ctx.settings.sellerType,
    fulfilmentType: ctx.settings.fulfilmentType,
    originSystem: 'shopify',
    serviceType: ctx.settings.serviceType,
    pickup: { storeId: storeId! },
    dropoff: {
      name: name!,
      phone: (phone as { e164: string }).e164,
      addressLine1: addr.address1!,
      ...(addr.address2 ? { addressLine2: addr.address2 } : {}),
      city: addr.city!,
      country: country!,
      latitude: lat!,
      longitude: lng!,
      ...(email ? { email } : {}),
    },
    package: {
      size: sizeFor(grams, ctx.settings),
      weightKg: gramsToKg(grams),
      category: ctx.settings.package.category,
    },
    amount: amount!,
    currency: order.currency.toUpperCase(),
    ...(order.note ? { notes: order.note.slice(0, NOTES_MAX) } : {}),
    // metadata: string pairs the merchant recognises in the courier portal.
    metadata: { orderName: order.name, shopDomain: ctx.shopDomain, orderGid: orderGidOf(order) },
  };
  const invalid = requestProblems(request);
  return invalid.length ? { ok: false, problems: invalid } : { ok: true, request };
}

type Address = NonNullable<OrderSnapshot['shipping_address']>;

export function withAddressFixes(addr: Address, o: Overrides): Address {
  return {
    ...addr,
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.address1 !== undefined ? { address1: o.address1 } : {}),
    ...(o.address2 !== undefined ? { address2: o.address2 || null } : {}),
    ...(o.city !== undefined ? { city: o.city } : {}),
  };
}

const FIX_OPTION: Record<string, string> = Object.fromEntries(Object.entries(FIXABLE_TEXT).map(([k, v]) => [v.field, k]));

/**
 * Our own create-order validation (the schema the client enforces), as
 * merchant problems naming the field and the limit, so a request we would
 * refuse to send becomes NEEDS_ATTENTION with a fix, never a failed send.
 */
export function requestProblems(request: CreateOrderRequest): Problem[] {
  const r = CreateOrderRequestSchema.safeParse(request);
  if (r.success) return [];
  return r.error.issues.map((i) => {
    const field = i.path.join('.');
    const fix = FIX_OPTION[field];
    const how = fix ? `; correct the ${fix} with Fix` : '';
    if (i.code === 'too_big' && typeof (i as { maximum?: unknown }).maximum === 'number') {
      const value = i.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown>)?.[k as PropertyKey], request);
      const length = typeof value === 'string' ? `${value.length} characters` : 'too long';
      return { code: 'invalid_field' as const, message: `${field} is ${length}; the limit is ${(i as { maximum: number }).maximum}${how}` };
    }
    return { code: 'invalid_field' as const, message: `${field} ${i.message}${how}` };
  });
}

/**
 * Stable per (environment, shop, order, generation): every retry of one
 * generation sends the same key; a merchant's re-dispatch bumps the generation.
 */
export function idempotencyKey(environment: EnvironmentName, shopDomain: string, orderId: string, generation: number): string {
  const shop = createHash('sha256').update(shopDomain).digest('hex').slice(0, 12);
  return `sdd-${environment}-${shop}-${orderId}-g${generation}`;
}

/** Shopify `source_name` → courier `channel`. Unknown sources (sales-channel app ids) count as marketplace. */
export function channelFor(source: string | null): string {
  const s = (source ?? 'web').toLowerCase();
  if (s === 'web' || s === 'shopify_draft_order' || s === 'checkout') return 'web';
  if (s === 'pos') return 'pos';
  if (['iphone', 'android', 'mobile_app', 'shop_app', 'shop'].includes(s)) return 'app';
  if (['facebook', 'instagram', 'tiktok', 'pinterest', 'snapchat', 'youtube', 'social'].includes(s)) return 'social';
  if (['amazon', 'ebay', 'google', 'walmart', 'takealot'].includes(s) || /^\d+$/.test(s)) return 'marketplace';
  return 'web';
}

export function sizeFor(grams: number, settings: Settings): string {
  for (const rule of settings.package.sizes) if (grams <= gramsOf(rule.maxKg)) return rule.size;
  return settings.package.largestSize;
}

export function orderGrams(order: OrderSnapshot): number {
  if (order.total_weight && order.total_weight > 0) return Math.round(order.total_weight);
  return order.line_items
    .filter((l) => l.requires_shipping)
    .reduce((sum, l) => sum + Math.max(0, Math.round(l.grams ?? 0)) * (l.quantity || 1), 0);
}

export function validCoordinates(lat: number | null | undefined, lng: number | null | undefined): boolean {
  if (typeof lat !== 'number' || typeof lng !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lng)) return false;
  if (lat === 0 && lng === 0) return false; // "null island": a geocoder's non-answer
  return Math.abs(lat) <= 90 && Math.abs(lng) <= 180;
}

/**
 * The phone the courier gets: the corrected one, else the first valid of the
 * address's and the order's, as E.164. The admin shows this same value.
 */
export function dropoffPhone(order: OrderSnapshot, overrides: Overrides): { e164: string } | { problem: Problem } {
  const country = order.shipping_address?.country_code?.toUpperCase() ?? null;
  return normalisePhone(overrides.phone ? [overrides.phone] : [order.shipping_address?.phone, order.phone], country);
}
