// GET /track/:token, the customer's public tracking page. No session, no
// cookies; never indexed, never framed, nothing external. Unknown, malformed
// and expired links get the same page shape (404 / 410) with no delivery data,
// naming the store when the token identified one. In the customer's language
// (locale.ts). Rate-limited per client IP (req.ip, which TRUST_PROXY decides)
// against load and scraping.
import { Router, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { AppContext } from '../context.ts';
import type { DeliveryStatus } from '../lifecycle/machine.ts';
import { readOrderJson } from '../db/json-columns.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { FINAL_STATUSES } from '../privacy/erase.ts';
import { windowFor } from '../windows/settings.ts';
import { endedAt, isLinkExpired } from './expiry.ts';
import { pageLocale } from './locale.ts';
import { TRACKING_CSP, trackingPage, unavailablePage } from './page.ts';
import { boundedProfileLookup, storeContact, type ProfileLookup } from './shop.ts';
import { findTracked } from './store.ts';
import { isTrackingToken, TRACKING_PATH } from './token.ts';
import { trackingView } from './view.ts';

/**
 * Per client IP, per process (memory store). A customer refreshing by hand, or the page's
 * own check every 30 s in a few tabs, stays far below; a scraper does not.
 */
export const TRACKING_RATE_LIMIT = { limit: 60, windowMs: 60_000 };

function send(res: Response, status: number, html: string, language: string): void {
  // The token is the credential: never in the access log. Unknown and expired links are routine, not warnings.
  res.locals.logPath = `${TRACKING_PATH}/<token>`;
  res.locals.accessLogLevel = 'info';
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': TRACKING_CSP,
      'X-Robots-Tag': 'noindex, nofollow',
      // The token is the URL: never kept by a shared cache (Referrer-Policy: no-referrer and nosniff come from web/ops/security-headers.ts).
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      // In the customer's language: the order's first, Accept-Language last.
      'Content-Language': language,
      Vary: 'Accept-Language',
    })
    .send(html);
}

// A snapshot that no longer parses shows no address and no customer language rather than failing the page.
function snapshotOf(d: { orderJson: string }) {
  try {
    return readOrderJson(d);
  } catch {
    return null;
  }
}

const browserLanguages = (req: Request) => req.acceptsLanguages();

export function trackingRoutes(ctx: Pick<AppContext, 'db' | 'now' | 'log'>, opts: { shopProfile: ProfileLookup }): Router {
  const router = Router();
  const profileOf = boundedProfileLookup(opts.shopProfile);
  router.use(
    TRACKING_PATH,
    rateLimit({
      ...TRACKING_RATE_LIMIT,
      // RateLimit and RateLimit-Policy headers; Retry-After on the 429.
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      logger: ctx.log,
      handler: (req, res) => {
        const locale = pageLocale({ browser: browserLanguages(req) });
        send(res, 429, unavailablePage('too_many', { locale }), locale.language);
      },
    }),
  );
  router.get(`${TRACKING_PATH}/:token`, async (req, res, next) => {
    try {
      const token = req.params.token;
      const d = isTrackingToken(token) ? await findTracked(ctx.db, token) : null;
      if (!d) {
        const locale = pageLocale({ browser: browserLanguages(req) });
        return send(res, 404, unavailablePage('not_found', { locale }), locale.language);
      }
      const profile = await profileOf(d.shop.domain);
      const store = storeContact(d.shop.domain, profile);
      // Erased personal data: the snapshot is not even parsed.
      const order = d.redactedAt ? null : snapshotOf(d);
      const locale = pageLocale({ customer: order?.customer_locale, shop: profile.primaryLocale, browser: browserLanguages(req), country: profile.countryCode });
      if (d.shop.uninstalledAt) return send(res, 404, unavailablePage('not_found', { locale, store }), locale.language);
      const status = d.status as DeliveryStatus;
      const settings = parseStoredSettings(d.shop.settings);
      const now = ctx.now();
      if (isLinkExpired({ status, endedAt: endedAt(d, d.events), now, expiryDays: settings.tracking.expiryDays })) {
        return send(res, 410, unavailablePage('expired', { locale, store }), locale.language);
      }
      const view = trackingView(
        { ...d, status, shippingAddress: () => order?.shipping_address, chosenSlot: d.slotStart && d.slotEnd ? { from: d.slotStart, to: d.slotEnd } : null },
        d.events,
        {
          courierName: settings.fulfillment.courierName,
          store,
          final: FINAL_STATUSES.includes(status),
          timeZone: profile.timeZone,
          prepMinutes: windowFor(settings.windows, d.locationId)?.prepMinutes ?? 0,
          estimateMinutes: settings.tracking.estimateMinutes,
          now,
        },
      );
      send(res, 200, trackingPage(view, { now, locale }), locale.language);
    } catch (e) {
      next(e);
    }
  });
  return router;
}
