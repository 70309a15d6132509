// Shopify sessions through @shopify/shopify-app-session-storage-prisma, with
// access and refresh tokens encrypted at rest. The package reads and writes
// `prisma.session`; a Prisma query extension encrypts on the way in and
// decrypts on the way out, so the package itself is used unchanged.
import type { Session } from '@shopify/shopify-api';
import { PrismaSessionStorage } from '@shopify/shopify-app-session-storage-prisma';
import type { Db } from './client.ts';
import type { SecretBox } from '../security/crypto.ts';
import { encryptFieldsAtRest } from './protected-data.ts';

export function encryptingSessionClient(db: Db, box: SecretBox): Db {
  return encryptFieldsAtRest(db, box, { session: ['accessToken', 'refreshToken'] });
}

/** How long a loaded offline session is reused: about one order's dispatch and write-back. */
export const OFFLINE_SESSION_TTL_MS = 15_000;

/** The storage, plus forgetting a shop's cached offline session (uninstall and redact delete rows directly). */
export type CachingSessionStorage = PrismaSessionStorage<any> & { forgetShop(shop: string): void };

export function createSessionStorage(db: Db, box: SecretBox, now: () => number = Date.now): CachingSessionStorage {
  const storage = new PrismaSessionStorage(encryptingSessionClient(db, box) as any, { connectionRetries: 1, connectionRetryIntervalMs: 500 });
  // The constructor starts a table poll nobody awaits; start-up checks isReady()
  // itself, so keep a failure of this one from becoming an unhandled rejection.
  (storage as unknown as { ready: Promise<boolean> }).ready.catch(() => {});
  return withOfflineSessionCache(storage, now);
}

// Background jobs read a shop's offline session several times per order; keep it for a short
// TTL. Writes through this storage (token exchange, refresh) and deletes drop the entry; other
// instances' writes are seen after the TTL. Only offline sessions (id "offline_<shop>") are kept.
function withOfflineSessionCache(storage: PrismaSessionStorage<any>, now: () => number): CachingSessionStorage {
  const cache = new Map<string, { session: Session; until: number }>();
  let writes = 0; // a load that overlapped a write or forget is not cached
  const load = storage.loadSession.bind(storage);
  const store = storage.storeSession.bind(storage);
  const del = storage.deleteSession.bind(storage);
  const delMany = storage.deleteSessions.bind(storage);
  return Object.assign(storage, {
    async loadSession(id: string) {
      const hit = cache.get(id);
      if (hit && hit.until > now()) return hit.session;
      cache.delete(id);
      const before = writes;
      const session = await load(id);
      if (session?.isOnline === false && writes === before) cache.set(id, { session, until: now() + OFFLINE_SESSION_TTL_MS });
      return session;
    },
    async storeSession(session: Session) {
      writes++;
      cache.delete(session.id);
      try {
        return await store(session);
      } finally {
        writes++;
        cache.delete(session.id);
      }
    },
    async deleteSession(id: string) {
      writes++;
      cache.delete(id);
      return del(id);
    },
    async deleteSessions(ids: string[]) {
      writes++;
      for (const id of ids) cache.delete(id);
      return delMany(ids);
    },
    forgetShop(shop: string) {
      writes++;
      for (const [id, hit] of cache) if (hit.session.shop === shop) cache.delete(id);
    },
  });
}
