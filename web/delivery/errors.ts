// Typed courier errors. One base class with a `kind` discriminator; `message` is one line a
// merchant can read. The error body shape is "not shown" in the spec, so describeErrorBody
// reads the common shapes (ours from the sandbox, OAuth, RFC 7807, {errors:[...]}, ...).
import { wellFormed } from '../security/text.ts';

export type DeliveryErrorKind = 'credentials' | 'scope' | 'rejected' | 'conflict' | 'transient' | 'bad_response' | 'config';

export interface DeliveryErrorOptions {
  status?: number;
  body?: string;
  retryable?: boolean;
  code?: string;
  attempts?: number;
  /** The wait the service asked for (Retry-After), for whoever retries the call. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class DeliveryApiError extends Error {
  readonly kind: DeliveryErrorKind;
  /** HTTP status of the response that caused the error, if there was one. */
  readonly status?: number;
  /** The service's error body as received (capped, secrets removed). */
  readonly body?: string;
  readonly retryable: boolean;
  /** The service's error code, when its body names one (e.g. "validation_error"). */
  readonly code?: string;
  /** HTTP requests made for the failing call. */
  readonly attempts?: number;
  /** The wait the service asked for (Retry-After); the job queue waits at least this long (web/retry/policy.ts retryAfterOf). */
  readonly retryAfterMs?: number;

  constructor(kind: DeliveryErrorKind, message: string, opts: DeliveryErrorOptions = {}) {
    super(oneLine(message, 1000), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.body !== undefined) this.body = opts.body;
    if (opts.code !== undefined) this.code = opts.code;
    if (opts.attempts !== undefined) this.attempts = opts.attempts;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    this.retryable = opts.retryable ?? false;
  }
}

/** Token endpoint refused the client id/secret (400/401/403), or the API refused a fresh token. Never retried in a loop. */
export class CredentialsError extends DeliveryApiError {
  constructor(message: string, opts: DeliveryErrorOptions = {}) {
    super('credentials', message, { ...opts, retryable: false });
  }
}

/** 403: the app lacks a scope. */
export class ScopeError extends DeliveryApiError {
  readonly scope: string;
  constructor(scope: string, message: string, opts: DeliveryErrorOptions = {}) {
    super('scope', message, { ...opts, retryable: false });
    this.scope = scope;
  }
}

/** Any other 4xx: permanent. `field` is the request field the service named, if any. */
export class RejectedError extends DeliveryApiError {
  readonly field?: string;
  constructor(message: string, opts: DeliveryErrorOptions & { field?: string } = {}) {
    super('rejected', message, { ...opts, retryable: false });
    if (opts.field !== undefined) this.field = opts.field;
  }
}

/** The Idempotency-Key was already used with a different payload. */
export class IdempotencyConflictError extends DeliveryApiError {
  constructor(message: string, opts: DeliveryErrorOptions = {}) {
    super('conflict', message, { ...opts, retryable: false });
  }
}

/** Network error, timeout, 5xx or 429 after the retries or the deadline ran out. Safe to retry later with the same key. */
export class TransientError extends DeliveryApiError {
  constructor(message: string, opts: DeliveryErrorOptions = {}) {
    super('transient', message, { ...opts, retryable: true });
  }
}

/**
 * A create whose outcome is unknown: the request was sent and then timed out, or the
 * connection dropped before an answer. The courier may hold the order, or still be booking
 * it. Not resent by the client: the caller waits, then looks the order up by reference.
 */
export class OutcomeUnknownError extends TransientError {
  readonly outcomeUnknown = true;
}

/** A 2xx the client cannot use (not JSON, required field missing). */
export class BadResponseError extends DeliveryApiError {
  constructor(message: string, opts: DeliveryErrorOptions = {}) {
    super('bad_response', message, { ...opts, retryable: false });
  }
}

/**
 * Our own courier configuration or input is wrong (no idempotency key, bad base URL, invalid
 * body). Not web/config/env.ts's ConfigError (the process environment is invalid).
 */
export class CourierConfigError extends DeliveryApiError {
  /** The request field at fault, when the problem is in the create-order body. */
  readonly field?: string;
  constructor(message: string, opts: DeliveryErrorOptions & { field?: string } = {}) {
    super('config', message, { ...opts, retryable: false });
    if (opts.field !== undefined) this.field = opts.field;
  }
}

export function isDeliveryApiError(e: unknown): e is DeliveryApiError {
  return e instanceof DeliveryApiError;
}

// ---------------------------------------------------------------------------------------
// Pure helpers

/** Collapses whitespace to one line and caps the length. */
export function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * A short excerpt of text from another system, safe to show a merchant: no
 * markup, no control, zero-width or bidi characters, lone surrogates replaced, one line.
 */
export function foreignExcerpt(s: string, max = 160): string {
  const clean = wellFormed(s)
    .replace(/<[^>]*>?/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, ' ');
  return oneLine(clean, max);
}

/** Replaces every occurrence of each secret (4+ chars) with [redacted]. */
export function scrubSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

export interface ErrorBodyInfo {
  message?: string;
  code?: string;
  field?: string;
  scope?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

function firstObject(v: unknown): Record<string, unknown> | undefined {
  const x = Array.isArray(v) ? v[0] : v;
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

// `name` and `path` only count inside a list of field problems (RFC 7807 invalid_params,
// zod-style issues); on an error object they are usually the error class or the URL path.
function fieldOf(o: Record<string, unknown> | undefined, listItem = false): string | undefined {
  if (!o) return undefined;
  const direct = str(o.field) ?? str(o.param) ?? str(o.parameter) ?? str(o.pointer) ?? str(o.property) ?? (listItem ? str(o.name) : undefined);
  if (direct) return normaliseField(direct);
  if (!listItem) return undefined;
  if (Array.isArray(o.path) && o.path.length) return o.path.join('.');
  if (typeof o.path === 'string') return normaliseField(o.path);
  return undefined;
}

/** "/dropoff/latitude", "dropoff[latitude]", "body.dropoff.latitude" -> "dropoff.latitude". */
export function normaliseField(f: string): string {
  return f
    .replace(/^#?\//, '')
    .replace(/\//g, '.')
    .replace(/\[(\w+)\]/g, '.$1')
    .replace(/^(body|request|data)\./, '')
    .replace(/^\./, '');
}

/** Reads message, code, field and scope from an error body of any common shape. */
export function describeErrorBody(text: string | undefined): ErrorBodyInfo {
  if (!text) return {};
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    const plain = oneLine(text, 200);
    return plain && !/^</.test(plain) ? { message: plain } : {}; // ignore HTML error pages
  }
  const root = firstObject(j);
  if (!root) return {};
  const errObj = firstObject(root.error);
  const list = firstObject(root.errors) ?? firstObject(root.details) ?? firstObject(root.invalid_params) ?? firstObject(errObj?.details) ?? firstObject(errObj?.errors);
  const info: ErrorBodyInfo = {};
  const message =
    str(errObj?.message) ?? str(root.message) ?? str(root.error_description) ?? str(root.detail) ?? str(list?.message) ?? str(root.title) ??
    (typeof root.error === 'string' ? str(root.error) : undefined);
  if (message) info.message = oneLine(message, 200);
  const code = str(errObj?.code) ?? str(errObj?.type) ?? str(root.code) ?? (typeof root.error === 'string' ? str(root.error) : undefined) ?? str(list?.code);
  if (code) info.code = code;
  const field = fieldOf(errObj) ?? fieldOfRoot(root) ?? fieldOf(list, true);
  if (field) info.field = field;
  const scope = str(errObj?.scope) ?? str(errObj?.required_scope) ?? str(root.scope) ?? str(root.required_scope) ?? scopeInText(message);
  if (scope) info.scope = scope;
  return info;
}

/**
 * Every field problem an error body lists, as "field: message" lines (the
 * sandbox's details, {errors:[...]}, RFC 7807 invalid_params, error.details).
 * A body that lists none gives [].
 */
export function errorDetails(text: string | undefined): string[] {
  if (!text) return [];
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return [];
  }
  const root = firstObject(j);
  if (!root) return [];
  const errObj = firstObject(root.error);
  const list = [root.details, root.errors, root.invalid_params, errObj?.details, errObj?.errors].find(Array.isArray) as unknown[] | undefined;
  if (!list) return [];
  return list.flatMap((item) => {
    if (typeof item === 'string') return item.trim() ? [oneLine(item, 200)] : [];
    const o = firstObject(item);
    if (!o) return [];
    const field = fieldOf(o, true);
    const message = str(o.message) ?? str(o.reason) ?? str(o.detail) ?? str(o.code);
    if (!message && !field) return [];
    return [oneLine(field && message && !message.includes(field) ? `${field}: ${message}` : (message ?? field)!, 200)];
  });
}

function fieldOfRoot(root: Record<string, unknown>): string | undefined {
  const f = str(root.field) ?? str(root.param) ?? str(root.parameter);
  return f ? normaliseField(f) : undefined;
}

function scopeInText(text: string | undefined): string | undefined {
  return text ? /\b([a-z][a-z_]*:[a-z][a-z_]*)\b/.exec(text)?.[1] : undefined;
}

const REQUEST_FIELDS = [
  'reference', 'channel', 'sellerType', 'fulfilmentType', 'originSystem', 'serviceType', 'pickup.storeId',
  'dropoff.name', 'dropoff.phone', 'dropoff.addressLine1', 'dropoff.addressLine2', 'dropoff.city', 'dropoff.country',
  'dropoff.latitude', 'dropoff.longitude', 'dropoff.email', 'package.size', 'package.weightKg', 'package.category',
  'amount', 'currency', 'notes', 'metadata',
];

/**
 * The request field an error is about: the body's own field element, else a create-order
 * field path mentioned in the message ("dropoff.latitude is required"), else a unique leaf
 * name ("latitude is required" -> dropoff.latitude).
 */
export function fieldFromError(info: ErrorBodyInfo): string | undefined {
  if (info.field) return info.field;
  const m = info.message;
  if (!m) return undefined;
  const byPath = REQUEST_FIELDS.filter((f) => f.includes('.')).find((f) => new RegExp(`\\b${f.replace('.', '\\.')}\\b`).test(m));
  if (byPath) return byPath;
  const hits = REQUEST_FIELDS.filter((f) => new RegExp(`\\b${f.split('.').pop()}\\b`).test(m));
  return hits.length === 1 ? hits[0] : undefined;
}

/** True when a 409/4xx body says the idempotency key is in flight (retry later), not a payload conflict. */
export function isIdempotencyInProgress(info: ErrorBodyInfo): boolean {
  const s = `${info.code ?? ''} ${info.message ?? ''}`;
  return /in[_ -]?progress|in[_ -]?use|processing|concurrent/i.test(s);
}

/** True when a 4xx body says the idempotency key was reused with a different payload. */
export function isIdempotencyConflict(status: number, info: ErrorBodyInfo): boolean {
  const s = `${info.code ?? ''} ${info.message ?? ''}`;
  if (status === 409) return !isIdempotencyInProgress(info);
  return /idempot/i.test(s) && /conflict|mismatch|different|reuse|already/i.test(s);
}
