// Phone numbers, parsed once for the whole app: dispatch's drop-off phone and a
// merchant's fix (web/dispatch), the checkout quote (web/rates) and the
// rates.quotePhone setting (web/settings). Pure and table-tested
// (test/unit/phone.test.ts); it imports no feature folder, so settings can use it
// although dispatch imports settings.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

export type PhoneProblem = { code: 'missing_phone' | 'invalid_phone'; message: string };

/**
 * `raw` as E.164 when it is a valid number, else null. `country` (ISO 3166-1
 * alpha-2) reads national numbers; with none, only an international number
 * (+ and country code) parses.
 */
export function toE164(raw: string, country: string | null = null): string | null {
  const p = parsePhoneNumberFromString(raw.trim(), (country ?? undefined) as CountryCode | undefined);
  return p?.isValid() ? p.number : null;
}

/** The first candidate that is a valid number in the destination country, as E.164. */
export function normalisePhone(candidates: Array<string | null | undefined>, country: string | null): { e164: string } | { problem: PhoneProblem } {
  const present = candidates.map((c) => c?.trim()).filter((c): c is string => !!c);
  if (present.length === 0) return { problem: { code: 'missing_phone', message: 'No phone number on the shipping address or the order' } };
  for (const raw of present) {
    const e164 = toE164(raw, country);
    if (e164) return { e164 };
  }
  return { problem: { code: 'invalid_phone', message: `Phone '${present[0]}' is not a valid ${country ?? 'international'} number` } };
}
