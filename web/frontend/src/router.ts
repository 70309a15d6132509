// Client-side routes. Paths change with history.pushState (App Bridge mirrors
// them to the admin URL); the query string Shopify added (shop, host, embedded)
// is kept so a reload still loads the app.
import { signal } from '@preact/signals';

export const path = signal(location.pathname);

/** Query parameters pages own; everything else in the query (Shopify's) is kept. */
export const PAGE_PARAMS = ['status', 'q', 'from', 'to'];

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
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

export type Route = { name: 'home' } | { name: 'settings' } | { name: 'deliveries' } | { name: 'delivery'; id: string } | { name: 'unmatched' } | { name: 'missing' };

export function match(p: string): Route {
  if (p === '/' || p === '') return { name: 'home' };
  if (p === '/settings') return { name: 'settings' };
  if (p === '/deliveries') return { name: 'deliveries' };
  if (p === '/unmatched') return { name: 'unmatched' };
  const m = /^\/deliveries\/([\w-]+)$/.exec(p);
  if (m) return { name: 'delivery', id: m[1]! };
  return { name: 'missing' };
}
