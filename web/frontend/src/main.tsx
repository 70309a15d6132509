// Boot: the merchant's language (Shopify's `locale`) and its one catalogue,
// and the shop's time zone, then the app.
import { render } from 'preact';
import { App } from './app.tsx';
import { loadCatalogue, requestedLocale, startI18n } from './i18n.ts';
import { shopZone } from './shop.ts';

const locale = requestedLocale();
document.documentElement.lang = locale;
const [catalogue, zone] = await Promise.all([loadCatalogue(locale), shopZone()]);
startI18n(locale, catalogue, zone ?? undefined);
render(<App />, document.getElementById('app')!);
