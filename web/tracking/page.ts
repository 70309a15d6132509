// The tracking page's HTML: server-rendered, mobile-first, one inline
// stylesheet allowed by its hash, no script, no external asset.
import { createHash } from 'node:crypto';
import type { TrackingView } from './view.ts';

const CSS = `*{box-sizing:border-box}body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:32rem;margin:0 auto;padding:1.25rem 1rem 2rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
.shop{color:#5c5f62;font-size:.875rem;margin:0 0 .25rem}h1{font-size:1.5rem;margin:0 0 .5rem}
.meta{margin:0;color:#3d3f41}.meta dt{font-weight:600;float:left;clear:left;margin-right:.4rem}.meta dd{margin:0 0 .2rem}
ol{list-style:none;margin:0;padding:0}li{position:relative;padding:0 0 1rem 1.5rem;border-left:2px solid #d2d5d8;margin-left:.4rem}
li:last-child{border-color:transparent;padding-bottom:0}li::before{content:"";position:absolute;left:-.45rem;top:.3rem;width:.8rem;height:.8rem;border-radius:50%;background:#d2d5d8}
li.now::before{background:#008060}li.now .label{font-weight:700}.when{display:block;color:#5c5f62;font-size:.875rem}
.foot{color:#5c5f62;font-size:.8rem;text-align:center}`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/** Nothing loads but the inline stylesheet; no frames, forms or base changes. */
export const TRACKING_CSP = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** "just now", "12 min ago", "3 h ago", "2 days ago": no time zone needed. */
export function ago(at: Date, now: number): string {
  const min = Math.max(0, Math.floor((now - at.getTime()) / 60_000));
  if (min < 1) return 'just now';
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ago`;
  const days = Math.floor(h / 24);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

// One formatter per zone: building one costs far more than formatting with it.
const formatters = new Map<string, Intl.DateTimeFormat>();
function partsIn(timeZone: string, d: Date): Record<string, string> {
  let f = formatters.get(timeZone);
  if (!f) {
    // en-US parts assembled by hand: the same words in every ICU; h23 so midnight is 00, not 24.
    f = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, f);
  }
  return Object.fromEntries(f.formatToParts(d).map((p) => [p.type, p.value]));
}

/** The wall-clock time in the shop's zone: "14:05" on the same local day as now, else "Mon 23 Nov, 14:05". */
export function clockTime(at: Date, now: number, timeZone: string): string {
  const a = partsIn(timeZone, at);
  const n = partsIn(timeZone, new Date(now));
  const time = `${a.hour}:${a.minute}`;
  return a.year === n.year && a.month === n.month && a.day === n.day ? time : `${a.weekday} ${a.day} ${a.month}, ${time}`;
}

function layout(title: string, body: string, refreshSeconds?: number): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<meta name="referrer" content="no-referrer">
${refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : ''}
<title>${escape(title)}</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`;
}

export function trackingPage(v: TrackingView, now: number): string {
  // The shop's clock (the customer is nearby), and how long ago: the page refreshes every minute.
  const time = (d: Date) => `<time datetime="${d.toISOString()}">${clockTime(d, now, v.timeZone)}</time> · ${ago(d, now)}`;
  const steps = v.steps
    .map((s, i) => `<li${i === v.steps.length - 1 ? ' class="now"' : ''}><span class="label">${escape(s.label)}</span><span class="when">${time(s.at)}</span></li>`)
    .reverse()
    .join('');
  const greeting = v.firstName ? `Hi ${escape(v.firstName)}, here` : 'Here';
  const meta = [
    ['Courier', escape(v.courierName)],
    ...(v.suburb ? [['Delivering to', escape(v.suburb)]] : []),
    ['Last update', time(v.lastUpdate)],
  ].map(([k, val]) => `<dt>${k}</dt><dd>${val}</dd>`).join('');
  const body = `<section class="card"><p class="shop">${escape(v.shopName)}${v.orderName ? ` · order ${escape(v.orderName)}` : ''}</p>
<h1>${escape(v.headline)}</h1><p class="meta">${greeting} is where your same-day delivery is.</p></section>
<section class="card"><dl class="meta">${meta}</dl></section>
<section class="card" aria-label="Delivery progress"><ol>${steps}</ol></section>
<p class="foot">${v.final ? 'This delivery is complete.' : 'This page refreshes every minute.'} Times are ${v.timeZone === 'UTC' ? 'in UTC' : `${escape(v.timeZone)} time`}.</p>`;
  return layout(`${v.headline} · ${v.shopName}`, body, v.final ? undefined : 60);
}

const UNAVAILABLE = {
  expired: ['This tracking link has expired', 'Tracking links stop working some days after the delivery. The shop can help with any question about your order.'],
  not_found: ['Tracking page not found', 'Check the link in your shipping email, or contact the shop.'],
  too_many: ['Too many requests', 'This page was asked for too often from your network. Please try again in a minute.'],
} as const;

/** One page for an unknown, malformed and expired link (and a rate-limited request) alike, apart from the wording. */
export function unavailablePage(kind: keyof typeof UNAVAILABLE): string {
  const [title, text] = UNAVAILABLE[kind];
  return layout(title, `<section class="card"><h1>${title}</h1><p class="meta">${text}</p></section>`);
}
