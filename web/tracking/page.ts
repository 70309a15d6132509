// The tracking page's HTML: server-rendered, mobile-first, in the customer's
// language. One inline stylesheet and one inline script, each allowed by its
// hash; no external asset. The script keeps the page current without reloading
// it: every LIVE_POLL_SECONDS it fetches the page again, swaps the part that
// changed (#now) and, when the status moved, says so in a polite live region.
import { createHash } from 'node:crypto';
import type { PageLocale } from './locale.ts';
import type { StoreContact } from './shop.ts';
import type { TrackingView } from './view.ts';

const CSS = `*{box-sizing:border-box}body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:32rem;margin:0 auto;padding:1.25rem 1rem 2rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
.shop{color:#5c5f62;font-size:.875rem;margin:0 0 .25rem}h1{font-size:1.5rem;margin:0 0 .5rem}h2{font-size:1rem;margin:0 0 .35rem}
.meta{margin:0;color:#3d3f41}.meta dt{font-weight:600;float:left;clear:left;margin-right:.4rem}.meta dd{margin:0 0 .2rem}
.window{font-size:1.25rem;font-weight:700;margin:0 0 .35rem}.note{color:#5c5f62;font-size:.875rem;margin:0}
a{color:#005bd3}a:focus-visible{outline:2px solid #005bd3;outline-offset:2px}
ol{list-style:none;margin:0;padding:0}li{position:relative;padding:0 0 1rem 1.5rem;border-left:2px solid #d2d5d8;margin-left:.4rem}
li:last-child{border-color:transparent;padding-bottom:0}li::before{content:"";position:absolute;left:-.45rem;top:.3rem;width:.8rem;height:.8rem;border-radius:50%;background:#d2d5d8}
li.now::before{background:#008060}li.now .label{font-weight:700}.when{display:block;color:#5c5f62;font-size:.875rem}
.foot{color:#5c5f62;font-size:.8rem;text-align:center;margin:.25rem 0}`;

// Static text (no value is interpolated), so its hash never changes. Stops on a final
// status and on 404/410; a failed or rate-limited check just waits for the next one.
const SCRIPT = `(() => {
  const main = document.querySelector('main');
  const every = Number(main.dataset.poll) * 1000;
  if (!every || main.dataset.final === 'true') return;
  const check = async () => {
    try {
      if (!document.hidden) {
        const r = await fetch(location.href, { cache: 'no-store', credentials: 'omit' });
        if (r.status === 404 || r.status === 410) return;
        if (r.ok) {
          const next = new DOMParser().parseFromString(await r.text(), 'text/html');
          const nextMain = next.querySelector('main');
          const fresh = next.getElementById('now');
          const shown = document.getElementById('now');
          if (nextMain && fresh && shown) {
            if (fresh.innerHTML !== shown.innerHTML) shown.replaceChildren(...document.adoptNode(fresh).childNodes);
            if (nextMain.dataset.version !== main.dataset.version) {
              main.dataset.version = nextMain.dataset.version;
              document.title = next.title;
              document.getElementById('announce').textContent = nextMain.dataset.announce;
            }
            if (nextMain.dataset.final === 'true') return;
          }
        }
      }
    } catch {}
    setTimeout(check, every);
  };
  setTimeout(check, every);
})();`;

const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

/** Nothing loads but the inline stylesheet and script, and the script's fetch of this page; no frames, forms or base changes. */
export const TRACKING_CSP = `default-src 'none'; style-src ${hash(CSS)}; script-src ${hash(SCRIPT)}; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** How often an open page checks for a new status. */
export const LIVE_POLL_SECONDS = 30;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(language: string, title: string, body: string, main: Record<string, string> = {}, script = false): string {
  const attrs = Object.entries(main).map(([k, v]) => ` data-${k}="${escape(v)}"`).join('');
  return `<!doctype html><html lang="${escape(language)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title><style>${CSS}</style></head>
<body><main${attrs}>${body}</main>${script ? `<script>${SCRIPT}</script>` : ''}</body></html>`;
}

const EMAIL = /^[^\s@?&#<>"']+@[^\s@?&#<>"']+$/;

/** The store's contact card; empty when Shopify gave neither an email nor a phone. */
function contactCard(store: StoreContact, { t }: PageLocale): string {
  const rows: string[] = [];
  if (store.email && EMAIL.test(store.email)) rows.push(`<dt>${escape(t('contact.email'))}</dt><dd><a href="mailto:${escape(store.email)}">${escape(store.email)}</a></dd>`);
  const dial = store.phone?.replace(/[^+\d]/g, '') ?? '';
  if (store.phone && /^\+?\d{5,}$/.test(dial)) rows.push(`<dt>${escape(t('contact.phone'))}</dt><dd><a href="tel:${dial}">${escape(store.phone)}</a></dd>`);
  if (!rows.length) return '';
  return `<section class="card" aria-labelledby="contact-h"><h2 id="contact-h">${escape(t('contact.heading'))}</h2>
<p class="meta">${escape(t('contact.text', { store: store.name }))}</p><dl class="meta">${rows.join('')}</dl></section>`;
}

export function trackingPage(v: TrackingView, r: { now: number; locale: PageLocale }): string {
  const { t } = r.locale;
  const f = r.locale.dates(v.timeZone);
  const clock = (d: Date) => f.clock(d, r.now);
  // The shop's clock (the customer is nearby), then how long ago.
  const time = (d: Date) => `<time datetime="${d.toISOString()}">${escape(clock(d))}</time> · ${escape(f.ago(d, r.now))}`;
  const status = t(v.headline);
  const steps = v.steps
    .map((s, i) => `<li${i === v.steps.length - 1 ? ' class="now"' : ''}><span class="label">${escape(t(s.label))}</span><span class="when">${time(s.at)}</span></li>`)
    .reverse()
    .join('');
  const intro = v.firstName ? t('page.introNamed', { firstName: v.firstName }) : t('page.intro');
  const meta = [
    [t('page.courier'), escape(v.courierName)],
    ...(v.suburb ? [[t('page.deliveringTo'), escape(v.suburb)]] : []),
    [t('page.lastUpdate'), time(v.lastUpdate)],
  ].map(([k, val]) => `<dt>${escape(k!)}</dt><dd>${val}</dd>`).join('');
  const e = v.estimate;
  const estimate = !e
    ? ''
    : `<section class="card" aria-labelledby="estimate-h"><h2 id="estimate-h">${escape(t('estimate.heading'))}</h2>${
      e.kind === 'window'
        ? `<p class="window">${escape(f.window(e.from, e.to, r.now))}</p><p class="note">${escape(t(e.basis === 'slot' ? 'estimate.fromSlot' : 'estimate.fromBooking'))}</p>`
        : `<p class="note">${escape(t('estimate.late', { store: v.store.name }))}</p>`
    }</section>`;
  const zone = v.timeZone === 'UTC' ? t('zone.utc') : t('zone.named', { zone: f.zoneName(r.now) });
  const order = v.orderName ? ` · ${escape(t('page.order', { order: v.orderName }))}` : '';
  const now = `<section class="card"><p class="shop">${escape(v.store.name)}${order}</p>
<h1>${escape(status)}</h1><p class="meta">${escape(intro)}</p></section>
${estimate}<section class="card"><dl class="meta">${meta}</dl></section>
<section class="card" aria-label="${escape(t('page.progress'))}"><ol>${steps}</ol></section>
<p class="foot">${v.final ? `${escape(t('live.final'))} ` : ''}${escape(zone)}</p>`;
  const live = v.final ? '' : `<p class="foot" id="announce" role="status">${escape(t('live.auto'))}</p><noscript><p class="foot">${escape(t('live.reload'))}</p></noscript>`;
  const body = `<div id="now">${now}</div>${contactCard(v.store, r.locale)}${live}`;
  // The version moves with what the customer waits for (status, steps, estimate), not with "5 minutes ago".
  const version = createHash('sha256').update(JSON.stringify([v.headline, v.steps, v.estimate?.kind ?? null, v.final])).digest('base64url').slice(0, 16);
  return layout(r.locale.language, t('page.title', { status, store: v.store.name }), body, {
    poll: String(v.final ? 0 : LIVE_POLL_SECONDS),
    final: String(v.final),
    version,
    announce: t('live.updated', { time: clock(v.lastUpdate), status }),
  }, !v.final);
}

export type Unavailable = 'expired' | 'not_found' | 'too_many';

const WORDS = {
  expired: ['expired.title', 'expired.text', 'expired.textStore'],
  not_found: ['notFound.title', 'notFound.text', 'notFound.textStore'],
  too_many: ['tooMany.title', 'tooMany.text', 'tooMany.text'],
} as const;

/**
 * One page for an unknown, malformed and expired link (and a rate-limited request) alike, apart from the
 * wording; naming the store, with its contact, when the token identified one.
 */
export function unavailablePage(kind: Unavailable, r: { locale: PageLocale; store?: StoreContact | null }): string {
  const { t } = r.locale;
  const [title, text, textStore] = WORDS[kind];
  const store = r.store ?? null;
  const heading = escape(t(title));
  const body = `<section class="card">${store ? `<p class="shop">${escape(store.name)}</p>` : ''}<h1>${heading}</h1>
<p class="meta">${escape(store ? t(textStore, { store: store.name }) : t(text))}</p></section>${store ? contactCard(store, r.locale) : ''}`;
  return layout(r.locale.language, store ? `${t(title)} · ${store.name}` : t(title), body);
}
