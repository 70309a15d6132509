// Exact JSON numbers. The courier sends money as JSON numbers (order.deliveryPrice:
// 250.00); JSON.parse would turn that into a binary float and lose the text. Node 22's
// reviver context (`context.source`) gives each number's source text, and JSON.rawJSON
// writes a number literal verbatim, so money stays decimal text end to end.

/** A JSON number kept as its source text (e.g. "250.00"). */
export class NumberText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** Parses JSON; every number becomes a NumberText holding its exact source. */
export function parseJsonExact(text: string): unknown {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' && typeof context?.source === 'string' ? new NumberText(context.source) : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

/** A value JSON.stringify writes as the literal `text` (must be a valid JSON number). */
export function jsonNumberLiteral(text: string): unknown {
  if (!rawJSON) throw new Error('JSON.rawJSON is not available; Node 22.12 or later is required');
  return rawJSON(text);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * A JSON number literal or a decimal string -> plain decimal text without exponent, keeping
 * the given fraction digits ("250.00" stays "250.00"; "2.5e2" -> "250"). Null if not a number.
 */
export function toPlainDecimal(input: string): string | null {
  const m = DECIMAL.exec(input.trim());
  if (!m) return null;
  const [, sign = '', intPart = '', frac = '', expText] = m;
  const exp = expText === undefined ? 0 : Number(expText);
  if (!Number.isInteger(exp) || Math.abs(exp) > 30) return null;
  let int = intPart;
  let fr = frac;
  if (exp > 0) {
    const moved = fr.slice(0, exp).padEnd(exp, '0');
    int += moved;
    fr = fr.slice(exp);
  } else if (exp < 0) {
    const n = -exp;
    const padded = int.padStart(n + 1, '0');
    fr = padded.slice(padded.length - n) + fr;
    int = padded.slice(0, padded.length - n);
  }
  int = int.replace(/^0+(?=\d)/, '');
  const out = fr ? `${int}.${fr}` : int;
  return sign && /[1-9]/.test(out) ? `-${out}` : out;
}

/** Decimal text of a price-like value: a NumberText, a number-like string, or null. */
export function decimalTextOf(v: unknown): string | null {
  if (v instanceof NumberText) return toPlainDecimal(v.text);
  if (typeof v === 'string' && v.trim() !== '') return toPlainDecimal(v);
  return null;
}

/** Path lookup in a parsed JSON tree ("order.deliveryPrice", "quotes.0.price"). */
export function pick(tree: unknown, path: string): unknown {
  let cur: unknown = tree;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** First path that holds a non-empty string (ids, codes, currencies). */
export function pickString(tree: unknown, paths: string[]): string | undefined {
  for (const p of paths) {
    const v = pick(tree, p);
    if (typeof v === 'string' && v !== '') return v;
    if (v instanceof NumberText) return v.text; // numeric ids
  }
  return undefined;
}
