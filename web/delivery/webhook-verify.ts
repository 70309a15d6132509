// Courier webhook signature verification (spec "Events"), pure with the clock injected.
// Modelled on stripe-node's Webhooks: one verifier, one signer for tests.
//
// Rules, in the order they are checked:
//   - all five x-service-* headers present (missing_header);
//   - x-service-signature-version is exactly "v1" (unsupported_version);
//   - x-service-timestamp is a decimal Unix time, x-service-signature parses as
//     comma-separated k=v elements with exactly one t and at least one v1 (malformed_signature_header);
//   - t equals x-service-timestamp (timestamp_mismatch);
//   - some v1 equals HMAC-SHA256(secret, "<t>.<raw body bytes>") in lower-case hex, compared
//     in constant time, for some configured secret (signature_mismatch). Several v1 values and
//     several secrets are allowed (rotation). Upper-case hex is REJECTED: the spec says the
//     signature is written in lower-case hex, and accepting other spellings widens what an
//     attacker may send for no gain. A v1 that is not 64 lower-case hex chars never matches;
//     if no v1 is well-formed the header is malformed_signature_header.
//   - the timestamp is within toleranceSec (default 300 s) of now, past or future
//     (timestamp_outside_window). Checked after the signature, so this reason always means a
//     genuine but stale or early delivery (clock skew, a replay), worth telling apart.
//   - the body is a JSON event (malformed_body: the HTTP layer answers 400, 401 otherwise);
//   - x-service-event-id equals the payload id (event_id_mismatch) and x-service-event equals
//     the payload type (event_type_mismatch).
// Rule 4 (raw body, never re-serialised): the HMAC is computed over the bytes given; parse after.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type VerifyFailureReason =
  | 'missing_header'
  | 'unsupported_version'
  | 'malformed_signature_header'
  | 'timestamp_mismatch'
  | 'timestamp_outside_window'
  | 'signature_mismatch'
  | 'malformed_body'
  | 'event_id_mismatch'
  | 'event_type_mismatch';

export interface DeliveryWebhookEvent {
  id: string;
  type: string;
  created_at: string;
  /** For delivery.status.updated both fields are checked; for other (unknown) types, narrow on `type` first. */
  data: { delivery_id: string; status: string; [k: string]: unknown };
  [k: string]: unknown;
}

export type VerifyResult =
  | { ok: true; event: DeliveryWebhookEvent; eventId: string; timestamp: number; secretIndex: number }
  | { ok: false; reason: VerifyFailureReason; detail: string };

export const SIGNATURE_HEADERS = {
  event: 'x-service-event',
  eventId: 'x-service-event-id',
  timestamp: 'x-service-timestamp',
  version: 'x-service-signature-version',
  signature: 'x-service-signature',
} as const;

export const DEFAULT_TOLERANCE_SEC = 300;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  let v = headers[name];
  if (v === undefined) {
    const k = Object.keys(headers).find((h) => h.toLowerCase() === name);
    v = k === undefined ? undefined : headers[k];
  }
  // Node joins repeated x- headers with ", "; an array means the caller kept them apart.
  if (Array.isArray(v)) v = v.join(', ');
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** HMAC-SHA256 over "<timestampSec>.<body>" as lower-case hex. */
export function computeDeliverySignature(secret: string, timestampSec: number | string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestampSec}.`).update(body).digest('hex');
}

function fail(reason: VerifyFailureReason, detail: string): VerifyResult {
  return { ok: false, reason, detail };
}

const HEX64 = /^[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

export function verifyDeliveryWebhook(input: {
  headers: Headers;
  rawBody: Buffer | string;
  secrets: string[];
  nowMs: number;
  toleranceSec?: number;
}): VerifyResult {
  const h = input.headers ?? {};
  const values = {
    event: header(h, SIGNATURE_HEADERS.event),
    eventId: header(h, SIGNATURE_HEADERS.eventId),
    timestamp: header(h, SIGNATURE_HEADERS.timestamp),
    version: header(h, SIGNATURE_HEADERS.version),
    signature: header(h, SIGNATURE_HEADERS.signature),
  };
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) return fail('missing_header', `${SIGNATURE_HEADERS[k as keyof typeof SIGNATURE_HEADERS]} is missing`);
  }
  const { event, eventId, timestamp, version, signature } = values as Record<keyof typeof values, string>;

  if (version !== 'v1') return fail('unsupported_version', `signature version ${JSON.stringify(version.slice(0, 16))} is not v1`);
  if (!TIMESTAMP.test(timestamp)) return fail('malformed_signature_header', 'x-service-timestamp is not a decimal Unix time');

  // t=<timestamp>,v1=<hex>[,v1=<hex>...]; unknown schemes (v0, v2) are ignored.
  const ts: string[] = [];
  const v1: string[] = [];
  for (const element of signature.split(',')) {
    const part = element.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return fail('malformed_signature_header', 'x-service-signature element without "="');
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') ts.push(v);
    else if (k === 'v1') v1.push(v);
  }
  const uniqueT = [...new Set(ts)];
  if (uniqueT.length !== 1) return fail('malformed_signature_header', uniqueT.length === 0 ? 'x-service-signature has no t' : 'x-service-signature has conflicting t values');
  if (v1.length === 0) return fail('malformed_signature_header', 'x-service-signature has no v1 signature');
  const candidates = v1.filter((s) => HEX64.test(s));
  if (candidates.length === 0) return fail('malformed_signature_header', 'v1 must be 64 lower-case hexadecimal characters');
  if (uniqueT[0] !== timestamp) return fail('timestamp_mismatch', 't in x-service-signature differs from x-service-timestamp');

  const secrets = (input.secrets ?? []).filter((s) => typeof s === 'string' && s !== '');
  if (secrets.length === 0) return fail('signature_mismatch', 'no webhook secret is configured');
  const raw = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  const given = candidates.map((c) => Buffer.from(c, 'utf8'));
  let secretIndex = -1;
  for (let i = 0; i < secrets.length && secretIndex < 0; i++) {
    const expected = Buffer.from(computeDeliverySignature(secrets[i]!, timestamp, raw), 'utf8');
    // Compare against every candidate without stopping early: time does not depend on which matched.
    let match = false;
    for (const g of given) match = timingSafeEqual(expected, g) || match;
    if (match) secretIndex = i;
  }
  if (secretIndex < 0) return fail('signature_mismatch', 'no v1 signature matches the body with any configured secret');

  const tsNum = Number(timestamp);
  const tolerance = input.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const skew = input.nowMs / 1000 - tsNum;
  if (Math.abs(skew) > tolerance) {
    return fail('timestamp_outside_window', `timestamp is ${Math.round(Math.abs(skew))} s in the ${skew > 0 ? 'past' : 'future'} (window ${tolerance} s)`);
  }

  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    return fail('malformed_body', 'body is not UTF-8 JSON');
  }
  const shape = eventShapeProblem(payload);
  if (shape) return fail('malformed_body', shape);
  const ev = payload as DeliveryWebhookEvent;
  if (ev.id !== eventId) return fail('event_id_mismatch', 'x-service-event-id differs from the payload id');
  if (ev.type !== event) return fail('event_type_mismatch', 'x-service-event differs from the payload type');
  return { ok: true, event: ev, eventId, timestamp: tsNum, secretIndex };
}

function eventShapeProblem(p: unknown): string | null {
  if (!p || typeof p !== 'object' || Array.isArray(p)) return 'body is not a JSON object';
  const o = p as Record<string, unknown>;
  if (typeof o.id !== 'string' || o.id === '') return 'event has no id';
  if (typeof o.type !== 'string' || o.type === '') return 'event has no type';
  if (typeof o.created_at !== 'string') return 'event has no created_at';
  if (!o.data || typeof o.data !== 'object' || Array.isArray(o.data)) return 'event has no data object';
  if (o.type === 'delivery.status.updated') {
    const d = o.data as Record<string, unknown>;
    if (typeof d.delivery_id !== 'string' || d.delivery_id === '') return 'event data has no delivery_id';
    if (typeof d.status !== 'string' || d.status === '') return 'event data has no status';
  }
  return null;
}

/** Test helper (and the sandbox's reference): the five x-service-* headers for a body. */
export function signDeliveryWebhook(input: {
  secret: string;
  body: string;
  timestampSec: number;
  eventId: string;
  type: string;
  extraSignatures?: string[];
}): Record<string, string> {
  const sig = computeDeliverySignature(input.secret, input.timestampSec, input.body);
  const extra = (input.extraSignatures ?? []).map((s) => `,v1=${s}`).join('');
  return {
    [SIGNATURE_HEADERS.event]: input.type,
    [SIGNATURE_HEADERS.eventId]: input.eventId,
    [SIGNATURE_HEADERS.timestamp]: String(input.timestampSec),
    [SIGNATURE_HEADERS.version]: 'v1',
    [SIGNATURE_HEADERS.signature]: `t=${input.timestampSec},v1=${sig}${extra}`,
  };
}
