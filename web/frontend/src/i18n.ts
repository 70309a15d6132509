// The admin's language: Shopify's `locale` query parameter chooses it
// (web/i18n/locales.ts pickLocale); only that language's catalogue is loaded
// (web/i18n/messages/admin/<locale>.json, one chunk per language). Messages are
// ICU MessageFormat through the shared translator (web/i18n/messages.ts).
// Dates and times are shown in the shop's time zone, money per locale.
import { DEFAULT_LOCALE, pickLocale, type Locale } from '../../i18n/locales.ts';
import { translator, type Catalogue, type Catalogues, type MessageValues, type Translate } from '../../i18n/messages.ts';

const LOADERS = import.meta.glob<Catalogue>('../../i18n/messages/admin/*.json', { import: 'default' });

interface State {
  locale: Locale;
  catalogue: Catalogue;
  translate: Translate;
  timeZone: string | undefined;
}

let state: State | null = null;

/** The language Shopify asks for (`?locale=de`), English when we do not ship it. */
export function requestedLocale(search = location.search): Locale {
  return pickLocale([new URLSearchParams(search).get('locale')]);
}

/** Loads the one catalogue the page needs. */
export async function loadCatalogue(locale: Locale): Promise<Catalogue> {
  const load = LOADERS[`../../i18n/messages/admin/${locale}.json`] ?? LOADERS[`../../i18n/messages/admin/${DEFAULT_LOCALE}.json`]!;
  return load();
}

export function startI18n(locale: Locale, catalogue: Catalogue, timeZone?: string): void {
  // Every language has every key (test/unit/i18n.test.ts), so the active catalogue is its own fallback.
  const catalogues = { [DEFAULT_LOCALE]: catalogue, [locale]: catalogue } as unknown as Catalogues;
  state = { locale, catalogue, translate: translator(catalogues, locale), timeZone };
  document.documentElement.lang = locale;
}

function current(): State {
  if (!state) throw new Error('i18n used before startI18n');
  return state;
}

export const locale = (): Locale => current().locale;
/** The shop's IANA zone, or the browser's while Shopify has not said. */
export const timeZone = (): string | undefined => current().timeZone;

export function t(key: string, values?: MessageValues): string {
  return current().translate(key, values);
}

/** Whether the catalogue has a message for a code the server sent (a newer server may send one it lacks). */
export function has(key: string): boolean {
  return key in current().catalogue;
}

/** `t(key)` when the catalogue knows it, else the server's own words. */
export function tOr(key: string, fallback: string, values?: MessageValues): string {
  return has(key) ? t(key, values) : fallback;
}
