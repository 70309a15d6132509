// Delivery slots, generated from a pickup location's delivery window
// (web/windows/schedule.ts: opening hours, cut-off, closures, preparation time)
// in the location's zone, DST included. Pure: table-tested in
// test/unit/slots-generate.test.ts. Slots are wall-clock times: a 2 h slot
// across a spring-forward gap lasts 1 h.
import { addDays, hoursOn, isoDate, parseLocalTime, sameDayOpen, wallClock, zonedInstant, type WindowConfig } from '../windows/schedule.ts';
import type { SlotsSettings } from '../settings/slots-schema.ts';

export interface Slot {
  start: number;
  end: number;
}

export interface SlotDay {
  /** Local date, YYYY-MM-DD. */
  date: string;
  slots: Slot[];
}

type SlotRules = Pick<SlotsSettings, 'slotMinutes' | 'daysAhead' | 'leadMinutes'>;

/**
 * The slots a customer may choose now, per local day (days without a slot are left out):
 * from opening + preparation time, whole slots before closing; today only before the
 * cut-off; and only slots whose booking time (start minus the lead time) is still ahead.
 */
export function generateSlots(config: WindowConfig, rules: SlotRules, now: number): SlotDay[] {
  const local = wallClock(now, config.timeZone);
  const today = { y: local.y, m: local.m, d: local.d };
  const out: SlotDay[] = [];
  for (let i = 0; i <= rules.daysAhead; i++) {
    const day = addDays(today, i);
    const hours = hoursOn(config, day);
    if (!hours) continue;
    if (i === 0 && config.cutoff !== null && local.minutes >= parseLocalTime(config.cutoff)) continue;
    const close = parseLocalTime(hours.close);
    const slots: Slot[] = [];
    for (let m = parseLocalTime(hours.open) + config.prepMinutes; m + rules.slotMinutes <= close; m += rules.slotMinutes) {
      const start = zonedInstant(day, m, config.timeZone);
      const end = zonedInstant(day, m + rules.slotMinutes, config.timeZone);
      // Wholly inside a spring-forward gap: no such time that day.
      if (end <= start) continue;
      if (bookAt(start, rules) < now) continue;
      slots.push({ start, end });
    }
    if (slots.length) out.push({ date: isoDate(day), slots });
  }
  return out;
}

/** When a slot's delivery is booked with the courier: its start minus the lead time. */
export function bookAt(start: number, rules: Pick<SlotsSettings, 'leadMinutes'>): number {
  return start - rules.leadMinutes * 60_000;
}

export type SlotCheck = { ok: true } | { ok: false; reason: 'past' | 'closed' };

/** Is a chosen slot still one on offer now? Capacity is checked apart, when it is claimed. */
export function checkSlot(config: WindowConfig, rules: SlotRules, chosen: Slot, now: number): SlotCheck {
  if (bookAt(chosen.start, rules) < now) return { ok: false, reason: 'past' };
  const offered = generateSlots(config, rules, now).some((d) => d.slots.some((s) => s.start === chosen.start && s.end === chosen.end));
  return offered ? { ok: true } : { ok: false, reason: 'closed' };
}

/** "As soon as possible" is offered beside the slots while same-day dispatch is open (and the merchant allows it). */
export function asapOffered(config: WindowConfig | null, rules: Pick<SlotsSettings, 'sameDayAsap'>, now: number): boolean {
  return rules.sameDayAsap && (config === null || sameDayOpen(config, now));
}
