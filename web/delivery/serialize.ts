// The create-order body is built once, stored by the caller, and sent byte-identical on
// every retry (the Idempotency-Key promise only holds for the same payload). Output is
// deterministic: keys in the spec's table order, metadata keys sorted, money and weight
// written as JSON number literals with their exact decimal text ("250.00" -> 250.00).
import { CreateOrderRequestSchema, type CreateOrderRequest } from './types.ts';
import { CourierConfigError } from './errors.ts';
import { jsonNumberLiteral, NumberText, parseJsonExact } from './json.ts';
import type { z } from 'zod';

export function formatIssues(issues: z.core.$ZodIssue[]): { field: string; message: string } {
  const first = issues[0];
  const field = first?.path.map(String).join('.') || (first && 'keys' in first ? String((first as { keys: string[] }).keys[0]) : '');
  const missing = first?.code === 'invalid_type' && /received undefined/.test(first.message);
  const message =
    first?.code === 'unrecognized_keys' ? `unknown field ${field}`
    : missing ? `${field} is required`
    : `${field || 'body'}: ${first?.message ?? 'invalid'}`;
  return { field, message };
}

/** Validates and serialises; throws CourierConfigError naming the first bad field. */
export function serializeCreateOrder(req: CreateOrderRequest): string {
  const parsed = CreateOrderRequestSchema.safeParse(req);
  if (!parsed.success) {
    const { field, message } = formatIssues(parsed.error.issues);
    throw new CourierConfigError(`Delivery request is invalid: ${message}`, field ? { field } : {});
  }
  const r = parsed.data;
  const d = r.dropoff;
  const ordered = {
    reference: r.reference,
    channel: r.channel,
    sellerType: r.sellerType,
    fulfilmentType: r.fulfilmentType,
    originSystem: r.originSystem,
    serviceType: r.serviceType,
    pickup: { storeId: r.pickup.storeId },
    dropoff: {
      name: d.name,
      phone: d.phone,
      addressLine1: d.addressLine1,
      addressLine2: d.addressLine2,
      city: d.city,
      country: d.country,
      latitude: d.latitude,
      longitude: d.longitude,
      email: d.email,
    },
    package: { size: r.package.size, weightKg: jsonNumberLiteral(r.package.weightKg), category: r.package.category },
    amount: jsonNumberLiteral(r.amount),
    currency: r.currency,
    notes: r.notes,
    metadata: r.metadata && Object.fromEntries(Object.entries(r.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  // JSON.stringify drops undefined members, so omitted optional fields are simply absent.
  return JSON.stringify(ordered);
}

/**
 * Reads a stored create-order body back into the typed request (money and weight as their
 * exact decimal text) and validates it. Both must be JSON numbers on the wire.
 */
export function parseCreateOrderBody(body: string): { ok: true; request: CreateOrderRequest } | { ok: false; field: string; message: string } {
  let tree: unknown;
  try {
    tree = parseJsonExact(body);
  } catch {
    return { ok: false, field: '', message: 'body is not valid JSON' };
  }
  if (!tree || typeof tree !== 'object' || Array.isArray(tree)) return { ok: false, field: '', message: 'body is not a JSON object' };
  const t = tree as Record<string, unknown>;
  const pkg = t.package && typeof t.package === 'object' ? (t.package as Record<string, unknown>) : undefined;
  for (const [field, v] of [['amount', t.amount], ['package.weightKg', pkg?.weightKg]] as const) {
    if (v !== undefined && !(v instanceof NumberText)) return { ok: false, field, message: `${field}: must be a JSON number` };
  }
  const plain = fromExact(tree, '');
  const parsed = CreateOrderRequestSchema.safeParse(plain);
  if (!parsed.success) return { ok: false, ...formatIssues(parsed.error.issues) };
  return { ok: true, request: parsed.data };
}

// amount and package.weightKg keep their text; every other number becomes a JS number.
function fromExact(v: unknown, path: string): unknown {
  if (v instanceof NumberText) return path === 'amount' || path === 'package.weightKg' ? v.text : Number(v.text);
  if (Array.isArray(v)) return v.map((x, i) => fromExact(x, `${path}.${i}`));
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromExact(x, path ? `${path}.${k}` : k)]));
  }
  return v;
}
