// Shopify sessions through @shopify/shopify-app-session-storage-prisma, with
// access and refresh tokens encrypted at rest. The package reads and writes
// `prisma.session`; a Prisma query extension encrypts on the way in and
// decrypts on the way out, so the package itself is used unchanged.
import { PrismaSessionStorage } from '@shopify/shopify-app-session-storage-prisma';
import type { Db } from './client.ts';
import type { SecretBox } from '../security/crypto.ts';
import { encryptFieldsAtRest } from './protected-data.ts';

export function encryptingSessionClient(db: Db, box: SecretBox): Db {
  return encryptFieldsAtRest(db, box, { session: ['accessToken', 'refreshToken'] });
}

export function createSessionStorage(db: Db, box: SecretBox): PrismaSessionStorage<any> {
  const storage = new PrismaSessionStorage(encryptingSessionClient(db, box) as any, { connectionRetries: 1, connectionRetryIntervalMs: 500 });
  // The constructor starts a table poll nobody awaits; start-up checks isReady()
  // itself, so keep a failure of this one from becoming an unhandled rejection.
  (storage as unknown as { ready: Promise<boolean> }).ready.catch(() => {});
  return storage;
}
