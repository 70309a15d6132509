// GET /storefront/slots: the cart block's slots, through Shopify's app proxy
// ([app_proxy] in shopify.app.toml: the storefront's /apps/same-day/slots lands here).
// - The proxy signature is checked first; unsigned, forged or stale → 401 with one body for
//   every reason (the caller learns nothing).
// - The shop is the signed `shop`; unknown or uninstalled → a JSON error, never a 500.
// - Short cache: remaining places change as orders come in.
import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import { errorMessage } from '../ops/errors.ts';
import { parseStoredSettings } from '../settings/schema.ts';
import { findShop } from '../settings/store.ts';
import { verifyAppProxy } from '../shopify/app-proxy.ts';
import { windowFor } from '../windows/settings.ts';
import { slotValue } from './attributes.ts';
import { placesTaken, windowKey } from './capacity.ts';
import { asapOffered, bookAt, generateSlots, type SlotDay } from './generate.ts';
import type { SlotsSettings } from '../settings/slots-schema.ts';
import type { WindowConfig } from '../windows/schedule.ts';

// Generating a week of slots takes a few hundred Intl calls: kept per (settings, location, minute),
// then filtered to the exact instant (a slot whose booking time passed this minute drops out).
const GENERATED_MAX = 500;
const generated = new Map<string, SlotDay[]>();
function slotsAt(settingsText: string, location: string | null, config: WindowConfig, rules: SlotsSettings, now: number): SlotDay[] {
  const key = `${Math.floor(now / 60_000)}|${location ?? ''}|${settingsText}`;
  let days = generated.get(key);
  if (!days) {
    // Generated for the start of the minute: a superset of what is offered later in it.
    days = generateSlots(config, rules, Math.floor(now / 60_000) * 60_000);
    if (generated.size >= GENERATED_MAX) generated.delete(generated.keys().next().value!);
    generated.set(key, days);
  }
  return days.map((d) => ({ date: d.date, slots: d.slots.filter((s) => bookAt(s.start, rules) >= now) })).filter((d) => d.slots.length > 0);
}

/** The app proxy's url in shopify.app.toml; Shopify appends the path after the subpath. */
export const APP_PROXY_PATH = '/storefront';
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

export interface SlotsAnswer {
  enabled: boolean;
  asap: boolean;
  timeZone: string | null;
  location: string | null;
  days: Array<{ date: string; slots: Array<{ value: string; start: string; end: string; remaining: number | null; full: boolean }> }>;
}

export function slotsRoutes(ctx: AppContext) {
  const router = express.Router();
  router.get(`${APP_PROXY_PATH}/slots`, async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const q = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    const check = verifyAppProxy(q, ctx.config.shopify.apiSecret, ctx.now());
    if (!check.ok) {
      ctx.log.info({ component: 'app-proxy', reason: check.reason }, 'app proxy request refused');
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    const domain = check.shop.toLowerCase();
    if (!SHOP_DOMAIN.test(domain)) {
      res.status(400).json({ error: 'shop must be a *.myshopify.com domain', field: 'shop' });
      return;
    }
    const location = typeof req.query.location === 'string' && req.query.location !== '' ? req.query.location : null;
    if (location !== null && !/^\d{1,20}$/.test(location)) {
      res.status(400).json({ error: 'location must be a numeric Shopify location id', field: 'location' });
      return;
    }
    try {
      const shop = await findShop(ctx.db, domain);
      if (!shop || shop.uninstalledAt) {
        res.status(404).json({ error: 'shop_not_installed' });
        return;
      }
      const settings = parseStoredSettings(shop.settings);
      const config = windowFor(settings.windows, location);
      const now = ctx.now();
      const answer: SlotsAnswer = { enabled: settings.slots.enabled && config !== null, asap: asapOffered(config, settings.slots, now), timeZone: config?.timeZone ?? null, location, days: [] };
      if (answer.enabled && config) {
        const days = slotsAt(shop.settings, location, config, settings.slots, now);
        const all = days.flatMap((d) => d.slots);
        const taken = all.length ? await placesTaken(ctx.db, shop.id, windowKey(settings.windows, location), all[0]!.start, all.at(-1)!.start) : new Map<number, number>();
        const cap = settings.slots.capacity;
        answer.days = days.map((d) => ({
          date: d.date,
          slots: d.slots.map((s) => {
            const remaining = cap === null ? null : Math.max(0, cap - (taken.get(s.start) ?? 0));
            return { value: slotValue(s), start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString(), remaining, full: remaining === 0 };
          }),
        }));
      }
      res.set('Cache-Control', 'private, max-age=15');
      res.status(200).json(answer);
    } catch (e) {
      ctx.log.error({ component: 'app-proxy', shop: domain, err: errorMessage(e) }, 'app proxy slots failed');
      if (!res.headersSent) res.status(503).json({ error: 'unavailable' });
    }
  });
  return router;
}
