// The shop's delivery windows (Settings.windows): a default and per Shopify
// location (numeric id). Validation names the field, e.g.
// "windows.locations.123.hours.mon.close". No config = no window (dispatch at once).
import { z } from 'zod';
import { isTimeZone, parseLocalTime, WEEKDAYS, type WindowConfig } from './schedule.ts';

const localTime = z.string().trim().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a 24-hour time like 08:30');

/** Minutes of a valid "HH:MM", else null (refinements run even when the format check failed). */
function minutes(t: string): number | null {
  try {
    return parseLocalTime(t);
  } catch {
    return null;
  }
}

const HoursSchema = z
  .object({ open: localTime, close: localTime })
  .refine((h) => (minutes(h.close) ?? 0) > (minutes(h.open) ?? -1), { message: 'must be after the opening time', path: ['close'] });

const isoDate = z.string().trim().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date like 2026-12-25')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date');

export const WindowConfigSchema = z
  .object({
    timeZone: z.string().trim().refine(isTimeZone, 'expected an IANA time zone like Europe/London'),
    hours: z.object(Object.fromEntries(WEEKDAYS.map((d) => [d, HoursSchema.nullable().default(null)])) as Record<(typeof WEEKDAYS)[number], z.ZodDefault<z.ZodNullable<typeof HoursSchema>>>),
    cutoff: localTime.nullable().default(null),
    closures: z.array(isoDate).max(366).default([]),
    prepMinutes: z.number().int('expected whole minutes').min(0).max(720).default(0),
  })
  .superRefine((c, ctx) => {
    const open = WEEKDAYS.filter((d) => c.hours[d]);
    if (!open.length) ctx.addIssue({ code: 'custom', path: ['hours'], message: 'at least one day must be open' });
    const cut = c.cutoff === null ? null : minutes(c.cutoff);
    if (cut !== null) {
      if (open.some((d) => cut <= (minutes(c.hours[d]!.open) ?? 0))) ctx.addIssue({ code: 'custom', path: ['cutoff'], message: 'must be after every opening time' });
    }
  });

export const WindowsSettingsSchema = z
  .object({
    /** For locations without their own config; null = no window. A location set to null uses the default. */
    default: WindowConfigSchema.nullable().default(null),
    locations: z.record(z.string(), WindowConfigSchema.nullable()).default({})
      .superRefine((locations, ctx) => {
        for (const id of Object.keys(locations)) {
          if (!/^\d{1,20}$/.test(id)) ctx.addIssue({ code: 'custom', path: [id], message: 'expected a numeric Shopify location id' });
        }
      }),
  })
  .prefault({});

export type WindowsSettings = z.infer<typeof WindowsSettingsSchema>;

/** The config for a pickup location: its own, else the default, else none. */
export function windowFor(settings: WindowsSettings | undefined, locationId: string | null): WindowConfig | null {
  if (!settings) return null;
  return (locationId ? settings.locations[locationId] : undefined) ?? settings.default;
}
