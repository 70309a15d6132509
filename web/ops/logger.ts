// Structured JSON logs (pino). Secrets are redacted by key wherever they sit in
// a logged object (down to two levels); code must still never put a secret into a message string.
import { pino, type Logger } from 'pino';

export type { Logger };

const SECRET_KEYS = [
  'accessToken', 'access_token', 'refreshToken', 'refresh_token', 'clientSecret', 'client_secret',
  'webhookSecret', 'webhook_secret', 'apiSecret', 'apiSecretKey', 'password', 'secret', 'token',
  'authorization', 'Authorization', 'cookie', 'x-shopify-access-token', 'X-Shopify-Access-Token',
  'x-shopify-hmac-sha256', 'x-service-signature', 'encryptionKey',
  // Courier access (web/settings/store.ts CourierAccess) and the stored ciphertexts.
  'webhookSecrets', 'webhookSecretPrev', 'secrets', 'encryptionKeys', 'clientSecretEnc', 'webhookSecretEnc', 'webhookSecretPrevEnc',
];

const SECRETS = new Set(SECRET_KEYS);
// The same text as web/privacy/redact.ts REDACTED; ops/ sits below privacy/ (test/unit/layers.test.ts).
const REDACTED = '[redacted]';
/** Keys are looked at on the logged object and two levels down (headers: res.headers.x); arrays count as a level. */
const DEPTH = 2;

/**
 * The logged object with every secret-named key's value replaced, at the top and two levels
 * down; copied only where something changes (the caller's object is never touched).
 * Pino's path redaction did the same at 86–151 µs a line (every wildcard path walked on every
 * line, docs/benchmarks.md); with this walk a whole line costs 6–8.5 µs.
 */
export function censor<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > DEPTH) return value;
  const src = value as unknown as Record<string, unknown>;
  let out: Record<string, unknown> | unknown[] | null = null;
  const set = (k: string, v: unknown) => {
    if (!out) {
      // An Error stays one, message and stack kept, for pino's err serializer.
      out = Array.isArray(src) ? [...src] : src instanceof Error ? Object.assign(Object.create(Object.getPrototypeOf(src)) as Error, src, { message: src.message, stack: src.stack }) : { ...src };
    }
    (out as Record<string, unknown>)[k] = v;
  };
  for (const k in src) {
    const v = src[k];
    if (SECRETS.has(k)) {
      if (v !== undefined) set(k, REDACTED);
    } else if (depth < DEPTH && v !== null && typeof v === 'object') {
      const c = censor(v, depth + 1);
      if (c !== v) set(k, c);
    }
  }
  return (out ?? value) as T;
}

export function createLogger(opts: { level?: string; destination?: NodeJS.WritableStream; base?: Record<string, unknown> } = {}): Logger {
  const logger = pino(
    {
      level: opts.level ?? 'info',
      base: { service: 'same-day-dispatch', ...opts.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), bindings: (b) => censor(b), log: (o) => censor(o) },
    },
    (opts.destination as any) ?? pino.destination({ sync: false }),
  );
  // A child's bindings skip formatters.bindings; every descendant inherits this child().
  const child = logger.child;
  logger.child = function (this: Logger, bindings: Record<string, unknown>, options?: object) {
    return child.call(this, censor(bindings), options);
  } as Logger['child'];
  return logger;
}
