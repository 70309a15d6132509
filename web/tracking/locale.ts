// The tracking page's language: the order's customer locale, else the shop's
// primary (storefront) locale, else the browser's Accept-Language choice
// (web/i18n/locales.ts pickLocale), with the messages of
// web/i18n/messages/tracking/ and dates in that locale and the shop's zone.
import { pickLocale, type Locale } from '../i18n/locales.ts';
import { translator, type Catalogues, type Translate } from '../i18n/messages.ts';
import { dateFormats, formattingTag, type DateFormats } from '../i18n/format.ts';
import en from '../i18n/messages/tracking/en.json' with { type: 'json' };
import de from '../i18n/messages/tracking/de.json' with { type: 'json' };
import fr from '../i18n/messages/tracking/fr.json' with { type: 'json' };
import es from '../i18n/messages/tracking/es.json' with { type: 'json' };
import af from '../i18n/messages/tracking/af.json' with { type: 'json' };

export const TRACKING_CATALOGUES: Catalogues = { en, de, fr, es, af };

export interface LocaleCandidates {
  /** orders/paid customer_locale, from the stored order snapshot. */
  customer?: string | null;
  /** The shop's storefront default locale (Shopify). */
  shop?: string | null;
  /** Accept-Language, best first (express req.acceptsLanguages()). */
  browser?: readonly string[];
  /** The shop's country: the region a bare language is formatted for. */
  country?: string | null;
}

export interface PageLocale {
  language: Locale;
  t: Translate;
  dates: (timeZone: string) => DateFormats;
}

const translators = new Map<Locale, Translate>();

export function pageLocale(c: LocaleCandidates): PageLocale {
  const candidates = [c.customer, c.shop, ...(c.browser ?? [])];
  const language = pickLocale(candidates);
  let t = translators.get(language);
  if (!t) {
    t = translator(TRACKING_CATALOGUES, language);
    translators.set(language, t);
  }
  const tag = formattingTag(language, candidates, c.country ?? null);
  return { language, t, dates: (timeZone) => dateFormats(tag, timeZone) };
}
