// Security headers on every response, from one place (helmet), for the full app and
// the start-up app alike. Content-Security-Policy is not set here: the embedded admin
// sends Shopify's per-shop frame-ancestors policy (shopify.cspHeaders()) and the
// tracking page its own strict one (web/tracking/page.ts); a default here would
// overwrite one or the other. No X-Frame-Options for the same reason: the admin is
// framed by Shopify (the tracking page sets DENY itself).
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** At least 180 days, as HSTS preload lists and scanners expect: one year. */
export const HSTS_MAX_AGE_SECONDS = 365 * 24 * 3_600;

/** Plain Node middleware: Express mounts it, and routes answered before Express call it (web/ops/bare-http.ts). */
export function securityHeaders(opts: { production: boolean; hstsIncludeSubDomains: boolean }): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  return helmet({
    contentSecurityPolicy: false,
    frameguard: false,
    // Only production is served over https; a browser would pin localhost to https otherwise.
    strictTransportSecurity: opts.production ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: opts.hstsIncludeSubDomains } : false,
    // The tracking link is the credential: never sent onward (a stricter default suits the admin and API too).
    referrerPolicy: { policy: 'no-referrer' },
    xContentTypeOptions: true,
  });
}
