// Structured JSON logs (pino). Secrets are redacted by key wherever they sit in
// a logged object; code must still never put a secret into a message string.
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

const seg = (k: string) => (/^\w+$/.test(k) ? `.${k}` : `["${k}"]`);
const path = (...parts: string[]) => parts.map((p) => (p === '*' ? '.*' : seg(p))).join('').replace(/^\./, '');

// Two levels down covers headers (res.headers.x); every path is checked on every line, so none twice.
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [
  path(k),
  path('*', k),
  path('*', '*', k),
]);

export function createLogger(opts: { level?: string; destination?: NodeJS.WritableStream; base?: Record<string, unknown> } = {}): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: { service: 'same-day-dispatch', ...opts.base },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    (opts.destination as any) ?? pino.destination({ sync: false }),
  );
}
