// The cart attributes the cart block (extensions/delivery-slots) writes; Shopify copies
// them to the order's note_attributes. A leading underscore hides one from the customer
// at checkout. Pure.
import type { Slot } from './generate.ts';

export const SLOT_ATTRIBUTE = '_delivery_slot';
export const LOCATION_ATTRIBUTE = '_delivery_location';
/** The customer-readable choice ("Fri 27 Nov, 10:00–12:00"), shown on the order. */
export const LABEL_ATTRIBUTE = 'Delivery slot';
export const ASAP = 'asap';

export type Choice = { kind: 'none' } | { kind: 'asap' } | { kind: 'slot'; slot: Slot; locationId: string | null } | { kind: 'invalid'; value: string };

/** The customer's choice from note attributes: "<start ISO>/<end ISO>", "asap", or nothing. */
export function choiceFrom(attributes: ReadonlyArray<{ name: string; value: string | null }>): Choice {
  const value = attributes.find((a) => a.name === SLOT_ATTRIBUTE)?.value?.trim();
  if (!value) return { kind: 'none' };
  if (value === ASAP) return { kind: 'asap' };
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?Z)\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?Z)$/.exec(value);
  const start = m ? Date.parse(m[1]!) : NaN;
  const end = m ? Date.parse(m[2]!) : NaN;
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return { kind: 'invalid', value: value.slice(0, 80) };
  const location = attributes.find((a) => a.name === LOCATION_ATTRIBUTE)?.value?.trim() ?? '';
  return { kind: 'slot', slot: { start, end }, locationId: /^\d{1,20}$/.test(location) ? location : null };
}

export function slotValue(slot: Slot): string {
  return `${new Date(slot.start).toISOString()}/${new Date(slot.end).toISOString()}`;
}
