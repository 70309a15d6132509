// Per-shop settings: one zod schema, stored as JSON text in Shop.settings.
// Parsing fills defaults, so an empty document is a valid, safe configuration
// (auto-dispatch off, test environment). Courier credentials live per
// environment in CourierEnvironment (web/settings/store.ts), not here.
import { z } from 'zod';
import { RatesSettingsSchema } from './rates-schema.ts';
import { WindowsSettingsSchema } from '../windows/settings.ts';
import { SlotsSettingsSchema } from './slots-schema.ts';
import { FULFILLMENT_TRIGGERS, SHOPIFY_EVENT_STATUSES } from '../lifecycle/progress.ts';

export const ENVIRONMENTS = ['test', 'live'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** Decimal with up to 2 places, as text (money never goes through floats). */
const decimal2 = z.string().trim().regex(/^\d{1,9}(\.\d{1,2})?$/, 'expected an amount like 150 or 149.99');
/** Kilograms with up to 3 places (grams precision), as text. */
const kg = z.string().trim().regex(/^\d{1,4}(\.\d{1,3})?$/, 'expected kilograms like 2 or 2.5');
const label = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters');

export const SizeRuleSchema = z.object({ maxKg: kg, size: label });

export const SettingsSchema = z.object({
  activeEnvironment: z.enum(ENVIRONMENTS).default('test'),
  autoDispatch: z.boolean().default(false),
  eligibility: z
    .object({
      /** Shipping line titles or codes that qualify, compared case-insensitively. Empty = every shipping line. */
      shippingLines: z.array(z.string().trim().min(1).max(128)).max(50).default(['Same-day delivery']),
      /** ISO 3166-1 alpha-2 destination countries. Empty = any country. */
      countries: z
        .array(z.string().trim().toUpperCase().regex(/^[A-Z]{2}$/, 'expected a two-letter country code like ZA'))
        .max(250)
        .default(['ZA']),
      /** Dispatch orders Shopify marks `test`. They are never sent to the live environment. */
      dispatchTestOrders: z.boolean().default(true),
    })
    .prefault({}),
  serviceType: label.default('SAME_DAY'),
  sellerType: label.default('merchant'),
  fulfilmentType: label.default('on_demand'),
  package: z
    .object({
      /** Used when the order carries no weight. */
      defaultWeightKg: kg.default('1'),
      /** Ascending by maxKg: the first rule whose maxKg >= the weight gives the size. */
      sizes: z
        .array(SizeRuleSchema)
        .max(20)
        .default([
          { maxKg: '5', size: 'SMALL' },
          { maxKg: '15', size: 'MEDIUM' },
        ]),
      /** Size for anything heavier than every rule. */
      largestSize: label.default('LARGE'),
      category: label.default('standard'),
    })
    .prefault({}),
  /** When set, a quote is requested first and orders priced above this are held for the merchant. */
  maxDeliveryPrice: decimal2.nullable().default(null),
  fulfillment: z
    .object({
      trigger: z.enum(FULFILLMENT_TRIGGERS).default('driver_assigned'),
      notifyCustomer: z.boolean().default(true),
      courierName: label.default('Same-Day Courier'),
      /** e.g. https://track.example.com/{jobId}; placeholders {jobId}, {orderId}, {deliveryId}, {reference}. */
      trackingUrlTemplate: z
        .string()
        .trim()
        .max(500)
        .refine((v) => /^https:\/\/[^\s]+$/.test(v), 'expected an https:// URL, e.g. https://track.example.com/{jobId}')
        .nullable()
        .default(null),
      /** Courier status (lower-case) → Shopify fulfillment event status; overrides the defaults. */
      eventMapping: z.record(z.string().regex(/^[a-z0-9_]+$/, 'expected a lower-case courier status'), z.enum(SHOPIFY_EVENT_STATUSES)).default({}),
    })
    .prefault({}),
  reconcile: z
    .object({
      /** Ask the courier about a non-final delivery after this long without an event. */
      staleAfterMinutes: z.number().int().min(1).max(1440).default(15),
    })
    .prefault({}),
  tracking: z
    .object({
      /** The customer tracking page (web/tracking/) answers 410 this many days after the delivery ended. */
      expiryDays: z.number().int().min(1).max(90).default(7),
      /** The page's expected window: deliveries usually arrive within this many minutes of booking (web/tracking/estimate.ts). */
      estimateMinutes: z.number().int('expected whole minutes').min(30).max(720).default(180),
    })
    .prefault({}),
  /** Same-day price at checkout (Shopify CarrierService); docs/rates.md. */
  rates: RatesSettingsSchema.prefault({}),
  /** Opening hours, cut-off, closures and preparation time per pickup location (docs/delivery-windows.md). */
  windows: WindowsSettingsSchema,
  /** Delivery slots the customer picks on the cart (docs/delivery-slots.md). */
  slots: SlotsSettingsSchema,
  /** Shopify Flow triggers (docs/flow.md). */
  flow: z
    .object({
      /** Send triggers for deliveries on the courier's test environment too (off: real deliveries only). */
      sendTestDeliveries: z.boolean().default(false),
    })
    .prefault({}),
});

export type Settings = z.infer<typeof SettingsSchema>;
export type SettingsInput = z.input<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = SettingsSchema.parse({});

/** Field-level problems, keyed by dotted path (e.g. "package.sizes.0.maxKg"). */
export type FieldErrors = Record<string, string>;

export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.') || '(settings)';
    out[key] ??= issue.message;
  }
  return out;
}

export class SettingsValidationError extends Error {
  readonly fields: FieldErrors;
  constructor(fields: FieldErrors) {
    const [first] = Object.entries(fields);
    super(first ? `${first[0]}: ${first[1]}` : 'invalid settings');
    this.fields = fields;
  }
}

/**
 * Parses stored text; a corrupt document falls back to defaults rather than stopping dispatch decisions silently wrong.
 * The intake and every job parse the same few documents again and again (a zod run each), so a result is
 * kept per text, frozen: callers share it, as they already share DEFAULT_SETTINGS.
 */
export function parseStoredSettings(text: string | null | undefined): Settings {
  const key = text || '{}';
  const hit = parsedSettings.get(key);
  if (hit) return hit;
  const settings = deepFreeze(parseSettingsText(key));
  if (parsedSettings.size >= PARSED_SETTINGS_MAX) parsedSettings.delete(parsedSettings.keys().next().value!);
  parsedSettings.set(key, settings);
  return settings;
}

const PARSED_SETTINGS_MAX = 256;
const parsedSettings = new Map<string, Settings>();

function parseSettingsText(text: string): Settings {
  try {
    const r = SettingsSchema.safeParse(JSON.parse(text));
    if (r.success) return r.data;
  } catch {
    /* fall through */
  }
  return DEFAULT_SETTINGS;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** Deep-merges a partial update onto current settings and validates the result. */
export function applySettingsPatch(current: Settings, patch: unknown): Settings {
  const merged = deepMerge(current, patch);
  const r = SettingsSchema.safeParse(merged);
  if (!r.success) throw new SettingsValidationError(fieldErrors(r.error));
  const sizes = r.data.package.sizes;
  for (let i = 1; i < sizes.length; i++) {
    if (gramsOf(sizes[i]!.maxKg) <= gramsOf(sizes[i - 1]!.maxKg)) {
      throw new SettingsValidationError({ [`package.sizes.${i}.maxKg`]: 'size rules must be in ascending order of maxKg' });
    }
  }
  return r.data;
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (isPlainObject(base) && isPlainObject(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = deepMerge(base[k], v);
    return out;
  }
  return patch; // arrays and scalars replace
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "2.5" kg → 2500 g, exactly (string arithmetic). */
export function gramsOf(kgText: string): number {
  const [whole, frac = ''] = kgText.split('.');
  return Number(whole) * 1000 + Number((frac + '000').slice(0, 3));
}
