// Create-order validation and pricing for the sandbox. Written independently of the client's
// zod schema on purpose, so contract tests compare two readings of the spec. Pure.

/** A JSON number kept as source text. */
class Num {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

export function parseWithNumberText(text: string): unknown {
  const reviver: Reviver = (_k, v, ctx) => (typeof v === 'number' && ctx?.source !== undefined ? new Num(ctx.source) : v);
  return JSON.parse(text, reviver as (k: string, v: unknown) => unknown);
}

/** Canonical form for the idempotency "same payload" check: key order and whitespace do not matter, number text does. */
export function canonicalJson(v: unknown): string {
  if (v instanceof Num) return v.text;
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

export interface ValidOrder {
  reference: string;
  storeId: string;
  serviceType: string;
  size: string;
  weightGrams: number;
  currency: string;
}

export interface FieldProblem {
  field: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Num);

/** All problems, in the spec's field-table order; the first one is the headline. */
export function validateCreateOrder(body: unknown): { ok: true; order: ValidOrder } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  if (!isObj(body)) return { ok: false, problems: [{ field: '', message: 'body must be a JSON object' }] };
  const get = (path: string): unknown => path.split('.').reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), body);

  const str = (path: string, required: boolean, pattern?: RegExp, hint?: string) => {
    const v = get(path);
    if (v === undefined || v === null) {
      if (required) problems.push({ field: path, message: `${path} is required` });
      return;
    }
    if (typeof v !== 'string' || v.trim() === '') problems.push({ field: path, message: `${path} must be a non-empty string` });
    else if (pattern && !pattern.test(v)) problems.push({ field: path, message: `${path} ${hint}` });
  };
  const num = (path: string, check: (n: number) => boolean, hint: string, requiredHint = '') => {
    const v = get(path);
    if (v === undefined || v === null) problems.push({ field: path, message: `${path} is required${requiredHint}` });
    else if (!(v instanceof Num)) problems.push({ field: path, message: `${path} must be a number` });
    else if (!check(Number(v.text))) problems.push({ field: path, message: `${path} ${hint}` });
  };
  const obj = (path: string) => {
    const v = get(path);
    if (v === undefined) problems.push({ field: path, message: `${path} is required` });
    else if (!isObj(v)) problems.push({ field: path, message: `${path} must be an object` });
  };

  str('reference', true);
  str('channel', true);
  str('sellerType', false);
  str('fulfilmentType', false);
  str('originSystem', false);
  str('serviceType', true);
  obj('pickup');
  str('pickup.storeId', true);
  obj('dropoff');
  str('dropoff.name', true);
  str('dropoff.phone', true, /^\+[1-9]\d{5,14}$/, 'must be in international format with a leading + and country code');
  str('dropoff.addressLine1', true);
  str('dropoff.addressLine2', false);
  str('dropoff.city', true);
  str('dropoff.country', true, /^[A-Z]{2}$/, 'must be a two-letter upper-case country code');
  const coords = ' (coordinates are needed for pricing and routing)';
  num('dropoff.latitude', (n) => n >= -90 && n <= 90, 'must be between -90 and 90', coords);
  num('dropoff.longitude', (n) => n >= -180 && n <= 180, 'must be between -180 and 180', coords);
  str('dropoff.email', false, /^[^\s@]+@[^\s@]+$/, 'must be an e-mail address');
  obj('package');
  str('package.size', true);
  num('package.weightKg', (n) => n > 0 && n <= 1000, 'must be greater than 0 and at most 1000');
  str('package.category', false);
  num('amount', (n) => n >= 0, 'must not be negative');
  str('currency', true, /^[A-Z]{3}$/, 'must be a three-letter upper-case currency code');
  str('notes', false);
  const meta = get('metadata');
  if (meta !== undefined && (!isObj(meta) || Object.values(meta).some((x) => typeof x !== 'string'))) {
    problems.push({ field: 'metadata', message: 'metadata must be an object of string values' });
  }
  // An object problem makes its members' "is required" redundant.
  const deduped = problems.filter((p) => !problems.some((q) => q !== p && p.field.startsWith(`${q.field}.`) && q.message.endsWith('must be an object')));
  if (deduped.length) return { ok: false, problems: deduped };

  return {
    ok: true,
    order: {
      reference: get('reference') as string,
      storeId: get('pickup.storeId') as string,
      serviceType: get('serviceType') as string,
      size: get('package.size') as string,
      weightGrams: gramsOf((get('package.weightKg') as Num).text),
      currency: get('currency') as string,
    },
  };
}

/** Exact kilograms text -> whole grams, rounding any sub-gram part up. */
export function gramsOf(kgText: string): number {
  const m = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(kgText);
  if (!m) return Math.ceil(Number(kgText) * 1000);
  if (m[3] !== undefined) return Math.ceil(Number(kgText) * 1000); // exponent form: rare, float is fine for a sandbox
  const frac = m[2] ?? '';
  const grams = Number(m[1]) * 1000 + Number(frac.slice(0, 3).padEnd(3, '0'));
  return /[1-9]/.test(frac.slice(3)) ? grams + 1 : grams;
}

// Sandbox pricing (integer cents, in the request's currency):
//   base by serviceType: SAME_DAY 75.00, EXPRESS/ON_DEMAND 99.00, NEXT_DAY 55.00, other 75.00
// + size: SMALL 0, MEDIUM 15.00, LARGE 35.00, XLARGE/EXTRA_LARGE 60.00, other 15.00
// + 4.50 per started kilogram above 2 kg.
const BASE: Record<string, number> = { SAME_DAY: 7500, EXPRESS: 9900, ON_DEMAND: 9900, NEXT_DAY: 5500 };
const SIZE: Record<string, number> = { SMALL: 0, MEDIUM: 1500, LARGE: 3500, XLARGE: 6000, EXTRA_LARGE: 6000 };

export function priceCents(o: Pick<ValidOrder, 'serviceType' | 'size' | 'weightGrams'>): number {
  const base = BASE[o.serviceType.toUpperCase()] ?? 7500;
  const size = SIZE[o.size.toUpperCase()] ?? 1500;
  const extraKg = Math.max(0, Math.ceil(o.weightGrams / 1000) - 2);
  return base + size + extraKg * 450;
}

/** 7500 -> "75.00" */
export function formatCents(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
