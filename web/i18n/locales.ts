// The languages we ship and how one is chosen. Pure: no I/O, table-tested in
// test/unit/i18n.test.ts. Each surface passes its candidates in its own order:
// - the admin: Shopify's `locale` query parameter;
// - the tracking page and the cart block: the order's customer locale, then the
//   shop's primary locale, then the browser's Accept-Language choice.

export const LOCALES = ['en', 'de', 'fr', 'es', 'af'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

const SHIPPED = new Set<string>(LOCALES);

/** The shipped language of one BCP 47 tag ("de-AT" → "de", "pt-BR" → null). */
export function shippedLocale(tag: string | null | undefined): Locale | null {
  if (typeof tag !== 'string') return null;
  const language = tag.trim().toLowerCase().replace('_', '-').split('-')[0] ?? '';
  return SHIPPED.has(language) ? (language as Locale) : null;
}

/** The first candidate we ship, in the order given; English when none is. */
export function pickLocale(candidates: ReadonlyArray<string | null | undefined>): Locale {
  for (const c of candidates) {
    const l = shippedLocale(c);
    if (l) return l;
  }
  return DEFAULT_LOCALE;
}
