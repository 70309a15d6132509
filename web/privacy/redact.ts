// Erasing a customer's personal data from what we store (customers/redact).
// Pure: JSON text in, JSON text out. Whole subtrees that describe a person are
// replaced, whatever shape the courier or Shopify gave them.

export const REDACTED = '[redacted]';

const PERSONAL_KEYS = new Set([
  'customer', 'shipping_address', 'billing_address', 'dropoff', 'recipient', 'destination',
  'email', 'contact_email', 'phone', 'note', 'notes', 'note_attributes',
  'name_on_card', 'first_name', 'last_name', 'firstName', 'lastName',
  'address', 'address1', 'address2', 'addressLine1', 'addressLine2', 'latitude', 'longitude',
  'browser_ip', 'client_details',
]);

export function redactValue(value: unknown, strings: Set<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => redactValue(v, strings));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (PERSONAL_KEYS.has(k)) {
        collectStrings(v, strings);
        out[k] = v === null ? null : REDACTED;
      } else out[k] = redactValue(v, strings);
    }
    return out;
  }
  return value;
}

/** Redacts a JSON document; returns the new text and the personal strings it held. */
export function redactJsonText(text: string | null): { text: string | null; strings: Set<string> } {
  const strings = new Set<string>();
  if (text === null) return { text, strings };
  try {
    return { text: JSON.stringify(redactValue(JSON.parse(text), strings)), strings };
  } catch {
    return { text: JSON.stringify({ redacted: true }), strings };
  }
}

/** Replaces every known personal string (4+ chars) in free text, e.g. an error message quoting a phone. */
export function scrubText(text: string | null, strings: Iterable<string>): string | null {
  if (!text) return text;
  let out = text;
  for (const s of [...strings].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(s).join(REDACTED);
  }
  return out;
}

function collectStrings(v: unknown, into: Set<string>): void {
  if (typeof v === 'string' || typeof v === 'number') into.add(String(v));
  else if (Array.isArray(v)) v.forEach((x) => collectStrings(x, into));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => collectStrings(x, into));
}
