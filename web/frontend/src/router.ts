// Client-side routes. Paths change with history.pushState (App Bridge mirrors
// them to the admin URL); the query string Shopify added (shop, host, embedded,
// locale) is kept so a reload still loads the app. Leaving a page with unsaved
// changes asks first (App Bridge's save bar leave confirmation).
import { signal } from '@preact/signals';

export const path = signal(location.pathname);

/** Query parameters pages own; everything else in the query (Shopify's) is kept. */
export const PAGE_PARAMS = ['status', 'q', 'from', 'to'];

/** Resolves when the page may be left: no save bar is showing, or the merchant chose to discard. */
function leaveConfirmed(): Promise<void> {
  return typeof shopify !== 'undefined' && shopify.saveBar?.leaveConfirmation ? shopify.saveBar.leaveConfirmation() : Promise.resolve();
}

function go(to: string, opts: { replace?: boolean }): void {
  const [p = '/', q = ''] = to.split('?');
  const params = new URLSearchParams(location.search);
  for (const k of PAGE_PARAMS) params.delete(k);
  for (const [k, v] of new URLSearchParams(q)) params.set(k, v);
  const search = params.toString() ? `?${params}` : '';
  if (p === location.pathname && search === location.search) return;
  history[opts.replace ? 'replaceState' : 'pushState'](null, '', `${p}${search}`);
  if (path.value !== p) {
    path.value = p;
    if (!opts.replace) window.scrollTo(0, 0);
  }
}

/** A replace keeps the page (a filter in the URL) and never asks; a new page waits for the leave confirmation. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) return go(to, opts);
  void leaveConfirmed().then(() => go(to, opts));
}

export function pageParam(name: string): string {
  return new URLSearchParams(location.search).get(name) ?? '';
}

addEventListener('popstate', () => {
  path.value = location.pathname;
});

// App Bridge: a click on an s-app-nav link (sidebar) asks the app to route.
document.addEventListener('shopify:navigate', (event) => {
  const href = (event.target as Element | null)?.getAttribute?.('href');
  if (href) navigate(href);
});

/** onClick for in-app links: route without reloading (modifier clicks open a tab as usual). */
export function linkTo(href: string) {
  return (e: Event) => {
    const m = e as Partial<MouseEvent>;
    if (m.metaKey || m.ctrlKey || m.shiftKey || m.button === 1) return;
    e.preventDefault();
    navigate(href);
  };
}

export type Route =
  | { name: 'home' }
  | { name: 'settings'; section: string | null }
  | { name: 'deliveries' }
  | { name: 'delivery'; id: string }
  | { name: 'unmatched' }
  | { name: 'missing' };

export function match(p: string): Route {
  if (p === '/' || p === '') return { name: 'home' };
  if (p === '/settings') return { name: 'settings', section: null };
  const s = /^\/settings\/([\w-]+)$/.exec(p);
  if (s) return { name: 'settings', section: s[1]! };
  if (p === '/deliveries') return { name: 'deliveries' };
  if (p === '/unmatched') return { name: 'unmatched' };
  const m = /^\/deliveries\/([\w-]+)$/.exec(p);
  if (m) return { name: 'delivery', id: m[1]! };
  return { name: 'missing' };
}
