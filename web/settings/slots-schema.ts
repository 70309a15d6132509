// The customer's delivery slots (Settings.slots, docs/delivery-slots.md). The slots
// themselves come from the pickup location's delivery window (web/windows/settings.ts).
import { z } from 'zod';

export const INVALID_SLOT_POLICIES = ['asap', 'attention'] as const;

export const SlotsSettingsSchema = z
  .object({
    /** The cart block lists slots (the app proxy answers them); off: it offers "as soon as possible" only. */
    enabled: z.boolean().default(false),
    /** Length of one slot, in minutes (e.g. 120 = 2 h slots). */
    slotMinutes: z.number().int('expected whole minutes').min(15).max(720).default(120),
    /** Days after today that are offered: 0 = today only, 6 = today and the next six days. */
    daysAhead: z.number().int('expected whole days').min(0).max(14).default(6),
    /** Orders per slot and location; null = no limit. */
    capacity: z.number().int('expected a whole number').min(1, 'must be at least 1 (empty: no limit)').max(10_000).nullable().default(null),
    /** Also offer "as soon as possible" while same-day dispatch is open. */
    sameDayAsap: z.boolean().default(true),
    /** The courier's lead time: the booking is made this long before the slot starts. */
    leadMinutes: z.number().int('expected whole minutes').min(0).max(720).default(60),
    /** A chosen slot that is no longer valid (full, past, closed): book as soon as possible, or needs attention. */
    invalidSlot: z.enum(INVALID_SLOT_POLICIES).default('attention'),
  })
  .prefault({});

export type SlotsSettings = z.infer<typeof SlotsSettingsSchema>;
