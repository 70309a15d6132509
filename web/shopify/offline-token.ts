// The shop's offline access token for background work. New public apps get
// expiring offline tokens: refresh shortly before expiry (or after a 401), one
// refresh per shop at a time, and store the new session.
import type { Session } from '@shopify/shopify-api';
import type { Shopify } from './app.ts';
import { ShopifyAdminError } from './admin-api.ts';

const REFRESH_MARGIN_MS = 5 * 60_000;

export function offlineTokenProvider(shopify: Shopify, now: () => number = Date.now) {
  const refreshing = new Map<string, Promise<Session>>();
  const storage = shopify.config.sessionStorage;

  async function refresh(session: Session): Promise<Session> {
    let p = refreshing.get(session.shop);
    if (!p) {
      p = (async () => {
        const { session: fresh } = await shopify.api.auth.refreshToken({ shop: session.shop, refreshToken: session.refreshToken! });
        await storage.storeSession(fresh);
        return fresh;
      })().finally(() => refreshing.delete(session.shop));
      refreshing.set(session.shop, p);
    }
    return p;
  }

  return async function accessToken(shop: string, opts: { force?: boolean } = {}): Promise<string> {
    const session = await storage.loadSession(shopify.api.session.getOfflineId(shop));
    if (!session?.accessToken) {
      throw new ShopifyAdminError(`No offline session for ${shop}: the app must be (re)installed`, { retryable: false, status: 401 });
    }
    const expiring = session.expires && session.expires.getTime() - now() < REFRESH_MARGIN_MS;
    if ((opts.force || expiring) && session.refreshToken) return (await refresh(session)).accessToken!;
    return session.accessToken;
  };
}
