// Message catalogues: one JSON file per surface and language,
// web/i18n/messages/<surface>/<locale>.json, in ICU MessageFormat
// (plurals, selects and numbers through intl-messageformat, which uses Intl's
// plural rules). English is the reference: every other language has exactly
// its keys and arguments (test/unit/i18n-catalogues.test.ts).
import { IntlMessageFormat } from 'intl-messageformat';
import { DEFAULT_LOCALE, type Locale } from './locales.ts';

export type Catalogue = Readonly<Record<string, string>>;
export type Catalogues = Readonly<Record<Locale, Catalogue>>;
export type MessageValues = Record<string, string | number | Date>;
export type Translate = (key: string, values?: MessageValues) => string;

/**
 * A translator for one locale. A key missing in that locale falls back to
 * English (the catalogue test keeps that from shipping); a key missing in
 * English is a programming error and throws.
 */
export function translator(catalogues: Catalogues, locale: Locale): Translate {
  const cache = new Map<string, IntlMessageFormat>();
  return (key, values) => {
    let f = cache.get(key);
    if (!f) {
      const own = catalogues[locale]?.[key];
      const text = own ?? catalogues[DEFAULT_LOCALE][key];
      if (text === undefined) throw new Error(`no message "${key}" in the ${DEFAULT_LOCALE} catalogue`);
      f = new IntlMessageFormat(text, own === undefined ? DEFAULT_LOCALE : locale);
      cache.set(key, f);
    }
    return String(f.format(values));
  };
}
