// Shopify's carrier-service rate request (its documented body) → what pricing needs,
// and the courier quote body for it. Pure; test/unit/rates-request.test.ts.
import { z } from 'zod';
import type { CreateOrderRequest } from '../delivery/index.ts';
import { gramsToKg, formatCents } from '../order/money.ts';
import { sizeFor, validCoordinates } from '../dispatch/mapping.ts';
import type { Address } from '../order/snapshot.ts';
import { normalisePhone } from '../phone/phone.ts';
import type { Settings } from '../settings/schema.ts';
import type { LatLng } from './pricing.ts';

const str = z.string().max(255).nullish();
const coord = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/).transform(Number)]).nullish();

const RateAddressSchema = z.looseObject({
  country: z.string().trim().toUpperCase().regex(/^[A-Z]{2}$/, 'expected a two-letter country code'),
  postal_code: str,
  province: str,
  city: str,
  name: str,
  address1: str,
  address2: str,
  address3: str,
  latitude: coord,
  longitude: coord,
  phone: str,
  email: str,
  company_name: str,
});

const RateItemSchema = z.looseObject({
  name: str,
  quantity: z.number().int().min(1).max(100_000),
  grams: z.number().int().min(0).max(10_000_000),
  /** Subunits (cents) per unit. */
  price: z.number().int().min(0).max(1e12),
  requires_shipping: z.boolean().nullish(),
});

export const RateRequestSchema = z.object({
  rate: z.looseObject({
    origin: RateAddressSchema,
    destination: RateAddressSchema,
    items: z.array(RateItemSchema).min(1, 'expected at least one item').max(1000),
    currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'expected a three-letter currency code'),
    locale: str,
  }),
});

export type RateRequest = z.infer<typeof RateRequestSchema>['rate'];
export type RateAddress = RateRequest['destination'];

export type ParsedRateRequest = { ok: true; rate: RateRequest } | { ok: false; field: string; message: string };

export function parseRateRequest(body: unknown): ParsedRateRequest {
  const r = RateRequestSchema.safeParse(body);
  if (r.success) return { ok: true, rate: r.data.rate };
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(body)';
  return { ok: false, field, message: `${field}: ${issue.message}` };
}

/** Shippable weight in grams (Shopify sends grams per unit). */
export function shippableGrams(rate: RateRequest): number {
  return rate.items.filter((i) => i.requires_shipping !== false).reduce((g, i) => g + i.grams * i.quantity, 0);
}

/** The items' value in subunits: what "free above" compares with. */
export function itemsCents(rate: RateRequest): bigint {
  return rate.items.reduce((sum, i) => sum + BigInt(i.price) * BigInt(i.quantity), 0n);
}

export function coordinatesOf(a: RateAddress): LatLng | null {
  return validCoordinates(a.latitude, a.longitude) ? { lat: a.latitude!, lng: a.longitude! } : null;
}

/** As the order snapshot's Address, for the geocoder. */
export function asAddress(a: RateAddress): Address {
  return {
    name: a.name ?? null, first_name: null, last_name: null, company: a.company_name ?? null, address1: a.address1 ?? null, address2: a.address2 ?? null,
    city: a.city ?? null, province: a.province ?? null, zip: a.postal_code ?? null, country: null, country_code: a.country, phone: a.phone ?? null,
    latitude: null, longitude: null,
  } as Address;
}

export type QuoteBody = { ok: true; request: CreateOrderRequest } | { ok: false; message: string };

/**
 * The create-order body the courier quotes (POST /v1/pricing/quote takes it), for the weight band's top weight.
 * A checkout often has no buyer phone yet: the origin's (store's) phone stands in, else the `rates.quotePhone`
 * setting (a quote books nothing, but the courier requires dropoff.phone).
 */
export function quoteBody(rate: RateRequest, o: { settings: Settings; storeId: string; destination: LatLng; bandGrams: number; reference: string }): QuoteBody {
  const d = rate.destination;
  const fallback = o.settings.rates.quotePhone;
  const phone = normalisePhone([d.phone, rate.origin.phone, fallback], d.country);
  if ('problem' in phone) {
    return { ok: false, message: `no valid phone number on the destination or the origin${fallback ? '' : ': set a phone for checkout quotes in Settings → Same-day price at checkout'}` };
  }
  if (!d.address1 || !d.city) return { ok: false, message: 'the destination has no street address or city' };
  const s = o.settings;
  return {
    ok: true,
    request: {
      reference: o.reference,
      channel: 'web',
      sellerType: s.sellerType,
      fulfilmentType: s.fulfilmentType,
      originSystem: 'shopify-checkout',
      serviceType: s.serviceType,
      pickup: { storeId: o.storeId },
      dropoff: {
        name: d.name?.trim() || d.company_name?.trim() || 'Checkout',
        phone: phone.e164,
        addressLine1: d.address1,
        ...(d.address2 ? { addressLine2: d.address2 } : {}),
        city: d.city,
        country: d.country,
        latitude: o.destination.lat,
        longitude: o.destination.lng,
      },
      package: { size: sizeFor(o.bandGrams, s), weightKg: gramsToKg(o.bandGrams), category: s.package.category },
      amount: formatCents(itemsCents(rate)),
      currency: rate.currency,
    },
  };
}
