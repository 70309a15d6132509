// The shop's offline access token for background work. New public apps get
// expiring offline tokens: refresh shortly before expiry (or after a 401), one
// refresh per shop at a time, and store the new session.
import type { Session } from '@shopify/shopify-api';
import type { Shopify } from './app.ts';
import { ShopifyAdminError } from './admin-api.ts';
import type { CachingSessionStorage } from '../db/session-storage.ts';

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

  async function load(shop: string): Promise<Session & { accessToken: string }> {
    const session = await storage.loadSession(shopify.api.session.getOfflineId(shop));
    if (!session?.accessToken) {
      throw new ShopifyAdminError(`No offline session for ${shop}: the app must be (re)installed`, { retryable: false, status: 401 });
    }
    return session as Session & { accessToken: string };
  }

  return async function accessToken(shop: string, opts: { force?: boolean } = {}): Promise<string> {
    let session = await load(shop);
    const expiring = (s: Session) => !!s.expires && s.expires.getTime() - now() < REFRESH_MARGIN_MS;
    if (!opts.force && !expiring(session)) return session.accessToken;
    // Refresh from the stored row, never a cached copy: another instance may have rotated the pair.
    (storage as Partial<CachingSessionStorage>).forgetShop?.(shop);
    session = await load(shop);
    if ((opts.force || expiring(session)) && session.refreshToken) return (await refresh(session)).accessToken!;
    return session.accessToken;
  };
}
