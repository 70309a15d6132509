// The part of a Shopify order that dispatch needs, parsed tolerantly from the
// orders/paid webhook (REST payload shape). Stored as Delivery.orderJson; it
// holds personal data and is erased by customers/redact.
import { z } from 'zod';

const id = z.union([z.string(), z.number()]).transform(String);
const optText = z.string().nullish().transform((v) => (v && v.trim() ? v.trim() : null));
const optNumber = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((v) => (v === null || v === undefined || v === '' ? null : Number(v)))
  .refine((v) => v === null || Number.isFinite(v));

const AddressSchema = z.object({
  name: optText,
  first_name: optText,
  last_name: optText,
  company: optText,
  address1: optText,
  address2: optText,
  city: optText,
  province: optText,
  zip: optText,
  country: optText,
  country_code: optText,
  phone: optText,
  latitude: optNumber,
  longitude: optNumber,
});

export const OrderSnapshotSchema = z.object({
  id,
  admin_graphql_api_id: z.string().nullish(),
  name: z.string().default(''),
  email: optText,
  contact_email: optText,
  phone: optText,
  note: optText,
  currency: z.string().default(''),
  total_price: z.union([z.string(), z.number()]).transform(String).default('0'),
  source_name: optText,
  test: z.boolean().default(false),
  cancelled_at: optText,
  // Kept so an older orders/updated than the one stored is ignored (web/dispatch/address-change.ts).
  updated_at: optText,
  financial_status: optText,
  // The customer's language at checkout ("de", "fr-CA"): the tracking page speaks it (web/tracking/locale.ts).
  customer_locale: optText,
  // Cart attributes copied to the order; the cart block's delivery slot is one (web/slots/attributes.ts).
  note_attributes: z
    .array(z.object({ name: z.string(), value: z.union([z.string(), z.number(), z.boolean()]).nullish().transform((v) => (v === null || v === undefined ? null : String(v))) }))
    .nullish()
    .transform((v) => v ?? [])
    .catch([]),
  total_weight: optNumber,
  location_id: id.nullish(),
  // Only the id (to find a customer's deliveries for customers/redact): contact details come from the order itself.
  customer: z.object({ id: id.nullish() }).nullish(),
  shipping_address: AddressSchema.nullish(),
  shipping_lines: z
    .array(z.object({ title: optText, code: optText, source: optText }))
    .default([]),
  line_items: z
    .array(
      z.object({
        id: id.nullish(),
        grams: optNumber,
        quantity: z.number().default(1),
        requires_shipping: z.boolean().default(true),
        fulfillable_quantity: z.number().nullish(),
      }),
    )
    .default([]),
});

export type OrderSnapshot = z.infer<typeof OrderSnapshotSchema>;
export type Address = z.infer<typeof AddressSchema>;

/** Merchant corrections applied on top of the snapshot (CLI / admin "fix and retry"). */
/**
 * Merchant corrections applied on top of the order snapshot: the fields our own
 * request validation can refuse (web/dispatch/mapping.ts requestProblems).
 * Lengths are the create-order limits (web/delivery/types.ts); address2 and
 * email may be emptied to leave them out.
 */
export const FIXABLE_TEXT = {
  name: { field: 'dropoff.name', label: 'recipient name', max: 255, optional: false },
  address1: { field: 'dropoff.addressLine1', label: 'street address', max: 255, optional: false },
  address2: { field: 'dropoff.addressLine2', label: 'address line 2', max: 255, optional: true },
  city: { field: 'dropoff.city', label: 'city', max: 128, optional: false },
  email: { field: 'dropoff.email', label: 'e-mail', max: 254, optional: true },
} as const;

const fixText = (k: keyof typeof FIXABLE_TEXT) => {
  const f = FIXABLE_TEXT[k];
  const base = z.string().trim().max(f.max, `${f.label} may be at most ${f.max} characters`);
  return f.optional ? base : base.min(1, `enter the ${f.label}`);
};

/**
 * Overrides.geocode: what the geocoder said about an address without coordinates
 * (web/dispatch/geocode.ts). 'used': Overrides.latitude/longitude came from it.
 * 'candidate': below the confidence threshold, shown for one-click confirmation.
 */
export const GeocodeNoteSchema = z.object({
  state: z.enum(['used', 'candidate']),
  provider: z.string(),
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
  confidence: z.number().min(0).max(1),
  formattedAddress: z.string(),
  precision: z.enum(['building', 'street', 'area']).optional(),
});
export type GeocodeNote = z.infer<typeof GeocodeNoteSchema>;

export const OverridesSchema = z
  .object({
    phone: z.string().trim().min(3).max(32),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    name: fixText('name'),
    address1: fixText('address1'),
    address2: fixText('address2'),
    city: fixText('city'),
    email: fixText('email').refine((s) => s === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), 'must be an e-mail address'),
    geocode: GeocodeNoteSchema,
  })
  .partial();
export type Overrides = z.infer<typeof OverridesSchema>;

export class OrderPayloadError extends Error {}

/** Validates `value` with `schema` (the snapshot or one of its fields, under `path`); throws OrderPayloadError naming the field. */
export function parseOrderPart<T>(schema: z.ZodType<T>, value: unknown, path: readonly PropertyKey[] = []): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new OrderPayloadError(`order payload: ${[...path, ...issue.path].join('.') || '(root)'} ${issue.message}`);
  }
  return r.data;
}

export function parseOrderSnapshot(payload: unknown): OrderSnapshot {
  return parseOrderPart(OrderSnapshotSchema, payload);
}

/** The numeric order id as a string, from the GID when present (exact), else `id`. */
export function orderIdOf(o: OrderSnapshot): string {
  const m = o.admin_graphql_api_id?.match(/\/Order\/(\d+)$/);
  return m ? m[1]! : o.id;
}

export function orderGidOf(o: OrderSnapshot): string {
  return o.admin_graphql_api_id ?? `gid://shopify/Order/${orderIdOf(o)}`;
}
