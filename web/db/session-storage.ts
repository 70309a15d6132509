// Shopify sessions through @shopify/shopify-app-session-storage-prisma, with
// access and refresh tokens encrypted at rest. The package reads and writes
// `prisma.session`; a Prisma query extension encrypts on the way in and
// decrypts on the way out, so the package itself is used unchanged.
import { PrismaSessionStorage } from '@shopify/shopify-app-session-storage-prisma';
import type { Db } from './client.ts';
import { isEncrypted, type SecretBox } from '../security/crypto.ts';

type Row = { accessToken?: string | null; refreshToken?: string | null } | null | undefined;

export function encryptingSessionClient(db: Db, box: SecretBox): Db {
  const seal = (data: any) => {
    if (!data) return data;
    const out = { ...data };
    if (typeof out.accessToken === 'string' && out.accessToken && !isEncrypted(out.accessToken)) out.accessToken = box.encrypt(out.accessToken);
    if (typeof out.refreshToken === 'string' && out.refreshToken && !isEncrypted(out.refreshToken)) out.refreshToken = box.encrypt(out.refreshToken);
    return out;
  };
  const open = <T extends Row>(row: T): T => {
    if (!row) return row;
    const out: any = { ...row };
    if (isEncrypted(out.accessToken)) out.accessToken = box.decrypt(out.accessToken);
    if (isEncrypted(out.refreshToken)) out.refreshToken = box.decrypt(out.refreshToken);
    return out;
  };
  return db.$extends({
    query: {
      session: {
        async upsert({ args, query }) {
          return open(await query({ ...args, create: seal(args.create), update: seal(args.update) }));
        },
        async create({ args, query }) {
          return open(await query({ ...args, data: seal(args.data) }));
        },
        async update({ args, query }) {
          return open(await query({ ...args, data: seal(args.data) }));
        },
        async findUnique({ args, query }) {
          return open(await query(args));
        },
        async findFirst({ args, query }) {
          return open(await query(args));
        },
        async findMany({ args, query }) {
          return (await query(args)).map(open);
        },
      },
    },
  }) as unknown as Db;
}

export function createSessionStorage(db: Db, box: SecretBox): PrismaSessionStorage<any> {
  const storage = new PrismaSessionStorage(encryptingSessionClient(db, box) as any, { connectionRetries: 1, connectionRetryIntervalMs: 500 });
  // The constructor starts a table poll nobody awaits; start-up checks isReady()
  // itself, so keep a failure of this one from becoming an unhandled rejection.
  (storage as unknown as { ready: Promise<boolean> }).ready.catch(() => {});
  return storage;
}
