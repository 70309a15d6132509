// A merchant's correction ("Fix"), checked the same way for the admin API and
// the CLI before anything is stored: the fields our request validation can
// refuse, with their limits, and the phone parsed for the destination country.
import { z } from 'zod';
import { normalisePhone } from './mapping.ts';
import { FIXABLE_TEXT, OverridesSchema, type OrderSnapshot, type Overrides } from './order.ts';

const text = (k: keyof typeof FIXABLE_TEXT) => OverridesSchema.shape[k];

const FixInput = z
  .object({
    phone: z.string().trim().min(1, 'enter a phone number').max(32).optional(),
    latitude: z.coerce.number({ error: 'expected decimal degrees, e.g. -26.1076' }).min(-90, 'must be between -90 and 90').max(90, 'must be between -90 and 90').optional(),
    longitude: z.coerce.number({ error: 'expected decimal degrees, e.g. 28.0567' }).min(-180, 'must be between -180 and 180').max(180, 'must be between -180 and 180').optional(),
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
