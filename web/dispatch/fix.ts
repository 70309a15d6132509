// A merchant's correction ("Fix"): the one validator, used by fixAndRetry
// (web/dispatch/service.ts) and so by the admin API and the CLI alike, before
// anything is stored. The fields our request validation can refuse, with their
// limits (the stored shape, OverridesSchema), and the phone parsed for the
// destination country, exactly as dispatch will parse it.
import { z } from 'zod';
import { normalisePhone } from '../phone/phone.ts';
import { FIXABLE_TEXT, OverridesSchema, type OrderSnapshot, type Overrides } from '../order/snapshot.ts';

const text = (k: keyof typeof FIXABLE_TEXT) => OverridesSchema.shape[k];

/**
 * Decimal degrees as a number or a decimal string (a CLI argument, a form
 * field). Never null, '' or a boolean: z.coerce would read those as 0 or 1.
 */
const degrees = (example: string, max: number) =>
  z
    .union([z.number(), z.string().trim().regex(/^[+-]?(\d+(\.\d*)?|\.\d+)$/).transform(Number)], { error: `expected decimal degrees, e.g. ${example}` })
    .pipe(z.number().min(-max, `must be between -${max} and ${max}`).max(max, `must be between -${max} and ${max}`));

const FixInput = z
  .object({
    phone: z.string().trim().min(1, 'enter a phone number').max(32).optional(),
    latitude: degrees('-26.1076', 90).optional(),
    longitude: degrees('28.0567', 180).optional(),
    name: text('name'),
    address1: text('address1'),
    address2: text('address2'),
    city: text('city'),
    email: text('email'),
  })
  .strict();

export type FixCheck = { ok: true; fix: Overrides } | { ok: false; errors: Record<string, string> };

export function checkFix(input: unknown, order: OrderSnapshot): FixCheck {
  const r = FixInput.safeParse(input);
  if (!r.success) {
    const errors: Record<string, string> = {};
    for (const i of r.error.issues) errors[i.path.join('.') || 'fix'] ??= i.message;
    return { ok: false, errors };
  }
  const fix = r.data;
  const errors: Record<string, string> = {};
  if ((fix.latitude === undefined) !== (fix.longitude === undefined)) errors[fix.latitude === undefined ? 'latitude' : 'longitude'] = 'enter both latitude and longitude';
  if (fix.latitude === 0 && fix.longitude === 0) errors.latitude = '0, 0 is not a real address location';
  if (fix.phone !== undefined) {
    const country = order.shipping_address?.country_code?.toUpperCase() ?? null;
    const p = normalisePhone([fix.phone], country);
    if ('problem' in p) errors.phone = p.problem.message;
  }
  if (!Object.values(fix).some((v) => v !== undefined)) errors.phone = 'enter a correction: phone, coordinates, name, address or e-mail';
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, fix: OverridesSchema.parse(Object.fromEntries(Object.entries(fix).filter(([, v]) => v !== undefined))) };
}

/**
 * The stored corrections after a checked fix. Coordinates typed (or a candidate
 * confirmed) by the merchant replace the geocoder's; a corrected street or city
 * drops coordinates the geocoder found for the old address, so dispatch looks
 * the new one up.
 */
export function applyFix(stored: Overrides, fix: Overrides): Overrides {
  const next: Overrides = { ...stored, ...fix };
  if (fix.latitude !== undefined) {
    delete next.geocode;
  } else if (stored.geocode && (fix.address1 !== undefined || fix.city !== undefined)) {
    if (stored.geocode.state === 'used') {
      delete next.latitude;
      delete next.longitude;
    }
    delete next.geocode;
  }
  return next;
}
