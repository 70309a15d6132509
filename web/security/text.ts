// Text that every database we support can store. PostgreSQL refuses NUL in
// text; a lone UTF-16 surrogate cannot be encoded as UTF-8 at all. Values that
// come from outside (webhook fields, order names) pass through storableText
// before they reach a column; the exact bytes are kept elsewhere for audit.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Lone surrogates replaced with U+FFFD (String.prototype.toWellFormed, ES2024). */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** Lone surrogates and NUL replaced with U+FFFD. */
export function storableText(s: string): string {
  return wellFormed(s).replace(/\u0000/g, '\uFFFD');
}

export function storableOrNull(v: unknown): string | null {
  return typeof v === 'string' ? storableText(v) : null;
}

/** Whether text survives storage unchanged. */
export function isStorable(s: string): boolean {
  return storableText(s) === s;
}

/** Years outside 0001-9999 cannot be stored by PostgreSQL (it has no year 0) or compared as text in SQLite. */
export function storableDate(ms: number): Date | null {
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  return y >= 1 && y <= 9999 ? d : null;
}

/** storableText applied to every string (and key) of parsed JSON. */
export function storableDeep<T>(v: T): T {
  if (typeof v === 'string') return storableText(v) as T;
  if (Array.isArray(v)) return v.map(storableDeep) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[storableText(k)] = storableDeep(x);
    return out as T;
  }
  return v;
}
