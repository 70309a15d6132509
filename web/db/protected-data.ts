// Protected customer data at rest. Order snapshots, the merchant's corrections and the stored courier
// request and response bodies hold names, addresses and phones, and a data
// request's report names the customer: they are encrypted the way secrets are
// (AES-256-GCM under ENCRYPTION_KEY, web/security/crypto.ts). A Prisma query
// extension seals these fields on every write and opens them on every read of
// their model, so the rest of the app reads and writes plain JSON text.
// Rows written before encryption (plain text) are still read as they are.
import type { Db } from './client.ts';
import { isEncrypted, type SecretBox } from '../security/crypto.ts';

/** Model → its fields that hold personal data. */
export const PROTECTED_FIELDS = {
  // overridesJson: the merchant's corrections (phone, address, coordinates).
  delivery: ['orderJson', 'requestBody', 'responseBody', 'overridesJson'],
  dataRequest: ['report'],
  // A geocoded place is an address (web/geocoding/cache.ts).
  geocodeCache: ['result'],
} as const;

type Row = Record<string, unknown> | null | undefined;

export function protectPersonalData(db: Db, box: SecretBox): Db {
  return encryptFieldsAtRest(db, box, PROTECTED_FIELDS);
}

/** A protected field's value as it is stored: text sealed (once), anything else (null, '') as it is. */
export function sealValue<T>(box: SecretBox, v: T): T | string {
  return typeof v === 'string' && v && !isEncrypted(v) ? box.encrypt(v) : v;
}

/** The row with its sealed fields opened (a copy when one was sealed; rows stored before encryption read as they are). */
export function openFields<T extends Row>(box: SecretBox, fields: readonly string[], row: T): T {
  if (!row || typeof row !== 'object') return row;
  let out: any = row;
  for (const f of fields) {
    const v = (row as any)[f];
    if (isEncrypted(v)) {
      if (out === row) out = { ...row };
      out[f] = box.decrypt(v);
    }
  }
  return out;
}

/** Encrypts the named text fields of each model on write and decrypts them on read (top-level operations of that model). */
export function encryptFieldsAtRest(db: Db, box: SecretBox, spec: Record<string, readonly string[]>): Db {
  const sealer = (fields: readonly string[]) => (data: any) => {
    if (!data || typeof data !== 'object') return data;
    const out = { ...data };
    for (const f of fields) {
      const v = out[f];
      // { set: '...' } is Prisma's explicit form of the same write.
      if (v && typeof v === 'object' && typeof v.set === 'string') out[f] = { set: sealValue(box, v.set) };
      else if (v !== undefined) out[f] = sealValue(box, v);
    }
    return out;
  };
  const opener = (fields: readonly string[]) => <T extends Row>(row: T): T => openFields(box, fields, row);
  const extension = (fields: readonly string[]) => {
    const seal = sealer(fields);
    const open = opener(fields);
    const one = async ({ args, query }: any) => open(await query(args));
    return {
      findUnique: one,
      findUniqueOrThrow: one,
      findFirst: one,
      findFirstOrThrow: one,
      async findMany({ args, query }: any) {
        return (await query(args)).map(open);
      },
      async create({ args, query }: any) {
        return open(await query({ ...args, data: seal(args.data) }));
      },
      async createMany({ args, query }: any) {
        return query({ ...args, data: Array.isArray(args.data) ? args.data.map(seal) : seal(args.data) });
      },
      async update({ args, query }: any) {
        return open(await query({ ...args, data: seal(args.data) }));
      },
      async updateMany({ args, query }: any) {
        return query({ ...args, data: seal(args.data) });
      },
      async upsert({ args, query }: any) {
        return open(await query({ ...args, create: seal(args.create), update: seal(args.update) }));
      },
      async delete({ args, query }: any) {
        return open(await query(args));
      },
    };
  };
  const query = Object.fromEntries(Object.entries(spec).map(([model, fields]) => [model, extension(fields)]));
  return db.$extends({ query } as any) as unknown as Db;
}

/**
 * Brings stored personal data under the current key: values encrypted under an
 * earlier key (ENCRYPTION_KEY_PREVIOUS), and rows written before encryption
 * (plain text). Takes the database client without the extension. Returns how
 * many rows changed.
 */
export async function reencryptPersonalData(rawDb: Db, box: SecretBox): Promise<number> {
  let changed = 0;
  for (const [model, fields] of Object.entries(PROTECTED_FIELDS)) {
    const delegate = (rawDb as any)[model];
    let cursor: string | undefined;
    for (;;) {
      const rows: Array<Record<string, string | null>> = await delegate.findMany({
        select: { id: true, ...Object.fromEntries(fields.map((f) => [f, true])) },
        orderBy: { id: 'asc' },
        take: 200,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      });
      if (!rows.length) break;
      for (const row of rows) {
        const data: Record<string, string> = {};
        for (const f of fields) {
          const v = row[f];
          if (typeof v !== 'string' || !v) continue;
          if (!isEncrypted(v)) data[f] = box.encrypt(v);
          else if (box.isStale(v)) data[f] = box.encrypt(box.decrypt(v));
        }
        if (Object.keys(data).length) {
          await delegate.update({ where: { id: row.id }, data, select: { id: true } });
          changed++;
        }
      }
      cursor = rows.at(-1)!.id!;
    }
  }
  return changed;
}
