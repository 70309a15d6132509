// The `rates` settings section: the checkout rate's rules (web/rates/pricing.ts applies them).
import { z } from 'zod';
import { toE164 } from '../phone/phone.ts';

export const ROUNDINGS = ['none', 'up_whole', 'nearest_whole', 'up_99'] as const;
export type Rounding = (typeof ROUNDINGS)[number];

const amount = z.string().trim().regex(/^\d{1,9}(\.\d{1,2})?$/, 'expected an amount like 150 or 149.99');
// With no default region, only an international number (+ and country code) parses.
const internationalPhone = z.string().trim().max(32, 'must be at most 32 characters')
  .refine((v) => toE164(v) !== null, 'expected a phone number in international format, like +27 11 555 0100');
const coordinate = (max: number) => z.number().finite().min(-max).max(max).nullable().default(null);

export const RatesSettingsSchema = z.object({
  /** Register the carrier service and answer rate requests. */
  enabled: z.boolean().default(false),
  /** What the buyer sees at checkout. */
  serviceName: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').default('Same-day delivery'),
  /** The shipping line's `code` on the order: dispatch eligibility matches it exactly. */
  serviceCode: z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected letters, digits, - or _ (at most 64)').default('SDD_SAME_DAY'),
  description: z.string().trim().max(120, 'must be at most 120 characters').default('Delivered today by courier'),
  /** Added to the courier's quote, percent with up to 2 places. */
  markupPercent: z.string().trim().regex(/^\d{1,3}(\.\d{1,2})?$/, 'expected a percentage like 10 or 12.5').default('0'),
  fixedFee: amount.default('0'),
  /** Order value (items) at or above which the rate is free; null = never free. */
  freeAbove: amount.nullable().default(null),
  rounding: z.enum(ROUNDINGS).default('none'),
  /** No rate beyond this distance from the pickup store; null = no limit. */
  maxDistanceKm: z.number().finite().min(0.1).max(1000).nullable().default(null),
  /** The pickup store's coordinates; null = the rate request's origin (geocoded when it has none). */
  pickupLatitude: coordinate(90),
  pickupLongitude: coordinate(180),
  /** The answer goes out by then, quote or not (Shopify's own limit is 3 s at its busiest). */
  timeoutMs: z.number().int().min(300).max(2800).default(2000),
  /** Answered when the courier is slow or failing; null = no rate. */
  fallbackRate: amount.nullable().default(null),
  cacheMinutes: z.number().int().min(0).max(30).default(5),
  /** The quote's drop-off phone when neither checkout address has one (a quote books nothing); null = no quote then. */
  quotePhone: internationalPhone.nullable().default(null),
});

export type RatesSettings = z.infer<typeof RatesSettingsSchema>;
