// POST /carrier-service/rates: Shopify asks for rates at checkout (the callback URL
// the carrier service is registered with, carrier-service.ts). Public, so:
// - the HMAC (X-Shopify-Hmac-Sha256, the app secret) is checked on the raw body first;
// - the shop is the X-Shopify-Shop-Domain header, trusted only after that, and only an
//   installed shop with rates on gets a rate;
// - bad input is a 4xx naming the field; anything unexpected answers "no rates", never
//   a 500 and never a hung checkout (service.ts answers by the shop's deadline).
import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import { errorMessage } from '../ops/errors.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { findShop } from '../settings/store.ts';
import { verifyShopifyHmac } from '../shopify/hmac.ts';
import { QuoteCache } from './cache.ts';
import { windowsOpen, type SameDayOpen } from './hours.ts';
import { parseRateRequest } from './request.ts';
import { answerRate, within } from './service.ts';

export const RATES_CALLBACK_PATH = '/carrier-service/rates';
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;
const LATE_MARGIN_MS = 300;

export function ratesCallbackRoute(ctx: AppContext, opts: { cache?: QuoteCache; isOpen?: SameDayOpen } = {}) {
  const deps = { cache: opts.cache ?? new QuoteCache({ now: ctx.now }), isOpen: opts.isOpen ?? windowsOpen };
  const noRates = (res: Response) => res.status(200).json({ rates: [] });
  return [
    express.raw({ type: '*/*', limit: '1mb' }),
    async (req: Request, res: Response) => {
      const startedAt = ctx.now();
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!verifyShopifyHmac(raw, req.get('x-shopify-hmac-sha256'), ctx.config.shopify.apiSecret)) {
        res.status(401).json({ error: 'HMAC validation failed: X-Shopify-Hmac-Sha256 must sign the body with the app secret' });
        return;
      }
      const domain = (req.get('x-shopify-shop-domain') ?? '').trim().toLowerCase();
      if (!SHOP_DOMAIN.test(domain)) {
        res.status(400).json({ error: 'X-Shopify-Shop-Domain must be a *.myshopify.com domain', field: 'X-Shopify-Shop-Domain' });
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        res.status(400).json({ error: 'body is not valid JSON' });
        return;
      }
      const parsed = parseRateRequest(body);
      if (!parsed.ok) {
        res.status(422).json({ error: `invalid rate request: ${parsed.message}`, field: parsed.field });
        return;
      }
      const log = ctx.log.child({ shop: domain, component: 'rates' });
      try {
        const shop = await findShop(ctx.db, domain);
        if (!shop || shop.uninstalledAt) {
          log.info('rates: shop not installed, no rates');
          return noRates(res);
        }
        const settings = parseStoredSettings(shop.settings);
        if (!settings.rates.enabled) return noRates(res);
        // The service keeps its own deadline; this bounds anything outside it (database, courier access).
        const a = await within(answerRate(ctx, deps, shop, settings, parsed.rate, startedAt), startedAt + settings.rates.timeoutMs + LATE_MARGIN_MS, ctx.now);
        if (!a) {
          log.warn({ ms: ctx.now() - startedAt }, 'rates: no answer by the deadline, no rates');
          return noRates(res);
        }
        const d = a.decision;
        log.info({ ...(d.rate ? { cents: d.cents.toString(), source: d.source } : { reason: d.reason, detail: d.detail }), ms: ctx.now() - startedAt }, 'rates: answered');
        res.status(200).json({ rates: a.rates });
      } catch (e) {
        log.error({ err: errorMessage(e) }, 'rates: failed, answering no rates');
        if (!res.headersSent) noRates(res);
      }
    },
  ];
}
