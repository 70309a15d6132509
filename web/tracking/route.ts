// GET /track/:token, the customer's public tracking page. No session, no
// cookies; never indexed, never framed, nothing external. Unknown, malformed
// and expired links get the same page shape (404 / 410) with no delivery data.
// Rate-limited per client IP (req.ip, which TRUST_PROXY decides) against load and scraping.
import { Router, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { AppContext } from '../context.ts';
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { readOrderJson } from '../db/json-columns.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { FINAL_STATUSES } from '../privacy/erase.ts';
import { endedAt, isLinkExpired } from './expiry.ts';
import { TRACKING_CSP, trackingPage, unavailablePage } from './page.ts';
import { findTracked } from './store.ts';
import { isTrackingToken, TRACKING_PATH } from './token.ts';
import { trackingView } from './view.ts';
import { boundedZoneLookup, type ZoneLookup } from './time-zone.ts';

/**
 * Per client IP, per process (memory store). A customer refreshing by hand, or the page's
 * own refresh every minute in a few tabs, stays far below; a scraper does not.
 */
export const TRACKING_RATE_LIMIT = { limit: 60, windowMs: 60_000 };

function send(res: Response, status: number, html: string): void {
  // The token is the credential: never in the access log. Unknown and expired links are routine, not warnings.
  res.locals.logPath = `${TRACKING_PATH}/<token>`;
  res.locals.accessLogLevel = 'info';
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': TRACKING_CSP,
      'X-Robots-Tag': 'noindex, nofollow',
      // The token is the URL: never sent onward, never kept by a shared cache.
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    })
    .send(html);
}

// A snapshot that no longer parses shows no address rather than failing the page.
function addressOf(d: { orderJson: string }) {
  try {
    return readOrderJson(d).shipping_address;
  } catch {
    return null;
  }
}

export function trackingRoutes(ctx: Pick<AppContext, 'db' | 'now' | 'log'>, opts: { shopTimeZone: ZoneLookup }): Router {
  const router = Router();
  const zoneOf = boundedZoneLookup(opts.shopTimeZone);
  router.use(
    TRACKING_PATH,
    rateLimit({
      ...TRACKING_RATE_LIMIT,
      // RateLimit and RateLimit-Policy headers; Retry-After on the 429.
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      logger: ctx.log,
      handler: (_req, res) => send(res, 429, unavailablePage('too_many')),
    }),
  );
  router.get(`${TRACKING_PATH}/:token`, async (req, res, next) => {
    try {
      const token = req.params.token;
      const d = isTrackingToken(token) ? await findTracked(ctx.db, token) : null;
      if (!d) return send(res, 404, unavailablePage('not_found'));
      const status = d.status as DeliveryStatus;
      const settings = parseStoredSettings(d.shop.settings);
      const now = ctx.now();
      if (isLinkExpired({ status, endedAt: endedAt(d, d.events), now, expiryDays: settings.tracking.expiryDays })) {
        return send(res, 410, unavailablePage('expired'));
      }
      const view = trackingView(
        { ...d, status, shippingAddress: () => addressOf(d) },
        d.events,
        {
          courierName: settings.fulfillment.courierName,
          shopName: d.shop.domain.replace(/\.myshopify\.com$/, ''),
          final: FINAL_STATUSES.includes(status),
          timeZone: await zoneOf(d.shop.domain),
        },
      );
      send(res, 200, trackingPage(view, now));
    } catch (e) {
      next(e);
    }
  });
  return router;
}
