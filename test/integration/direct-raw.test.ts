// Raw statements run without Prisma's pipeline (web/db/direct-raw.ts) give what Prisma gives: the
// same rows and values, the same counts, the same errors, inside and outside transactions, on each
// provider. Prisma's own client on the same database is the reference.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { PrismaClient } from '@prisma/client';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation, type Database } from '../../web/db/client.ts';
import { protectPersonalData } from '../../web/db/protected-data.ts';
import { forProvider } from '../../web/db/raw-sql.ts';
import { parseDatabaseUrl } from '../../web/db/url.ts';
import { SecretBox } from '../../web/security/crypto.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';

const provider = testProvider();
const sql = (text: string) => forProvider(provider, text);
let url: string;
let database: Database;
let reference: PrismaClient;
// Prisma's query compiler, counted: the direct path never reaches it.
let compiles = 0;

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
  const target = parseDatabaseUrl(url);
  if (target.provider === 'sqlite') {
    reference = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: target.file }) });
  } else {
    const { PrismaClient: Pg } = createRequire(resolve('package.json'))('.prisma/client-postgres') as { PrismaClient: new (o: object) => PrismaClient };
    reference = new Pg({ adapter: new PrismaPg({ ...target.config, max: 2 }) });
  }
  await database.db.$executeRawUnsafe(
    provider === 'sqlite'
      ? 'CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "at" DATETIME, "flag" BOOLEAN, "n" INTEGER, "big" BIGINT, "text" TEXT, "real" REAL, "bytes" BLOB, "dec" DECIMAL, "odd" VARCHAR(20), "num" NUMERIC)'
      : 'CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "at" TIMESTAMP(3), "flag" BOOLEAN, "n" INTEGER, "big" BIGINT, "text" TEXT, "real" DOUBLE PRECISION, "bytes" BYTEA, "dec" DECIMAL(10, 2), "odd" VARCHAR(20), "num" NUMERIC)',
  );
  if (provider === 'postgres') await database.db.$executeRawUnsafe(`CREATE TYPE "Mood" AS ENUM ('ok', 'sad')`);
  // Each generated client has its own compiler.
  const generated = provider === 'sqlite' ? '.prisma/client' : '.prisma/client-postgres';
  const { QueryCompiler } = createRequire(resolve('package.json'))(`${generated}/query_compiler_bg.js`) as { QueryCompiler: { prototype: { compile(q: string): unknown } } };
  const compile = QueryCompiler.prototype.compile;
  QueryCompiler.prototype.compile = function (this: unknown, q: string) {
    compiles++;
    if (process.env.DEBUG_COMPILES) console.log(q);
    return compile.call(this, q);
  };
});
afterAll(async () => {
  await reference?.$disconnect();
  await database?.close();
  await dropDatabase(url);
});

const QUERIES: Array<[string, unknown[]]> = [
  ['SELECT "id", "at", "flag", "n", "big", "text", "real", "bytes", "odd" FROM "T" ORDER BY "id"', []],
  ['SELECT "id", "at", "flag", "n", "big" FROM "T" WHERE "id" = $1', ['a']],
  ['SELECT COUNT(*) AS "n", MIN("at") AS "first", MAX("n") AS "most", SUM("real") AS "sum" FROM "T"', []],
  [
    provider === 'sqlite' ? 'SELECT $1 AS "s", $2 AS "i", $3 AS "f", $4 AS "z", $5 AS "b", $6 AS "d", $7 AS "g"' : 'SELECT $1::text AS "s", $2::int AS "i", $3::float8 AS "f", $4::text AS "z", $5::boolean AS "b", $6::timestamp(3) AS "d", $7::bigint AS "g"',
    ['x', 7, 1.25, null, true, new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), 2n ** 60n],
  ],
  ['SELECT "id" FROM "T" WHERE "at" > $1 AND "flag" = $2 ORDER BY "id"', [new Date(Date.UTC(2025, 0, 1)), true]],
  ['SELECT "text", "odd" FROM "T" WHERE "id" IN ($1, $2, $3) ORDER BY "id"', ['a', 'b', 'c']],
  ['SELECT 1 AS "one" WHERE 1 = 0', []],
  ['SELECT CASE WHEN "id" = $1 THEN NULL ELSE "id" END AS "maybe" FROM "T" ORDER BY "id"', ['a']],
  // pg-boss's statements read JSON, uuids and its own enum.
  ...(provider === 'postgres'
    ? ([[`SELECT '{"a":1,"b":[1,null]}'::jsonb AS "j", '[1]'::json AS "j2", 'null'::jsonb AS "jn", '00000000-0000-0000-0000-000000000001'::uuid AS "u", 'sad'::"Mood" AS "m"`, []]] as Array<[string, unknown[]]>)
    : []),
];

async function seed(db: Database['db'] | PrismaClient) {
  await db.$executeRawUnsafe('DELETE FROM "T"');
  const rows: unknown[][] = [
    ['a', new Date(Date.UTC(2026, 10, 28, 12, 0, 0, 123)), true, 5, 9007199254740993n, 'plain', 1.5, new Uint8Array([1, 2, 255]), null, 'v', 3],
    ['b', new Date(0), false, -2, -1n, '', 0, null, null, null, 2.5],
    ['c', null, null, null, null, null, null, null, null, null, null],
  ];
  let n = 0;
  for (const r of rows) n += await db.$executeRawUnsafe(sql('INSERT INTO "T" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)'), ...r);
  return n;
}

describe(`raw statements without Prisma (${provider})`, () => {
  it('write and read what Prisma writes and reads', async () => {
    const before = compiles;
    expect(await seed(database.db)).toBe(3);
    const viaDirect = await Promise.all(QUERIES.map(([q, a]) => database.db.$queryRawUnsafe(sql(q), ...a)));
    await database.db.$transaction((tx) => tx.$queryRawUnsafe('SELECT "id" FROM "T"'));
    expect(compiles - before).toBe(0);
    expect(await seed(reference)).toBe(3);
    expect(compiles - before).toBeGreaterThan(0);
    const viaPrisma = await Promise.all(QUERIES.map(([q, a]) => reference.$queryRawUnsafe(sql(q), ...a)));
    for (let i = 0; i < QUERIES.length; i++) expect(viaDirect[i], QUERIES[i]![0]).toStrictEqual(viaPrisma[i]);
    // A DECIMAL column is Prisma's Decimal, and (SQLite) an integer in a NUMERIC one comes back as text: those reads are left to Prisma's path.
    for (const left of ['SELECT "dec" FROM "T" ORDER BY "id"', 'SELECT "num" FROM "T" ORDER BY "id"']) {
      const counted = compiles;
      expect(await database.db.$queryRawUnsafe(left)).toStrictEqual(await reference.$queryRawUnsafe(left));
      expect(compiles - counted, left).toBe(2);
    }
    // The tagged form too, and through the app's extended client.
    const extended = protectPersonalData(database.db, new SecretBox([Buffer.alloc(32, 7)]));
    const expected = await reference.$queryRaw`SELECT "id", "at" FROM "T" WHERE "n" = ${5}`;
    const direct = compiles;
    expect(await extended.$transaction((tx) => tx.$queryRaw`SELECT "id", "at" FROM "T" WHERE "n" = ${5}`)).toStrictEqual(expected);
    expect(await database.db.$executeRaw`UPDATE "T" SET "n" = "n" + 1 WHERE "id" = ${'b'}`).toBe(1);
    expect(compiles - direct).toBe(0);
  });

  it('keeps a failed statement an error its callers know (a unique violation stays one), which changed nothing', async () => {
    await seed(database.db);
    const err = await database.db.$executeRawUnsafe(sql('INSERT INTO "T" ("id") VALUES ($1)'), 'a').catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    const inTx = await database.db
      .$transaction(async (tx) => {
        await tx.$executeRawUnsafe(sql('UPDATE "T" SET "text" = $1 WHERE "id" = $2'), 'in tx', 'b');
        return tx.$executeRawUnsafe(sql('INSERT INTO "T" ("id") VALUES ($1)'), 'a');
      })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(inTx)).toBe(true);
    // The transaction was rolled back as a whole.
    expect(await reference.$queryRawUnsafe(sql('SELECT "text" FROM "T" WHERE "id" = $1'), 'b')).toStrictEqual([{ text: '' }]);
    // Other errors are errors too, outside and inside a transaction.
    await expect(database.db.$queryRawUnsafe('SELECT "nope" FROM "T"')).rejects.toThrow(/nope/);
    await expect(database.db.$transaction((tx) => tx.$queryRawUnsafe('SELECT "nope" FROM "T"'))).rejects.toThrow(/nope/);
  });

  it('runs a transaction\'s statements inside it: invisible to others until commit, gone on rollback', async () => {
    await seed(database.db);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let seenInside: unknown;
    let outside!: Promise<unknown>;
    let answered = false;
    const tx = database.db.$transaction(async (t) => {
      await t.$executeRawUnsafe(sql('UPDATE "T" SET "n" = $1 WHERE "id" = $2'), 100, 'a');
      seenInside = await t.$queryRawUnsafe(sql('SELECT "n" FROM "T" WHERE "id" = $1'), 'a');
      // SQLite: a plain statement waits for the open transaction (one connection). PostgreSQL: it does not see it.
      outside = database.db.$queryRawUnsafe(sql('SELECT "n" FROM "T" WHERE "id" = $1'), 'a').finally(() => (answered = true));
      if (provider === 'postgres') expect(await outside).toStrictEqual([{ n: 5 }]);
      await gate;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(provider === 'postgres');
    release();
    await tx;
    expect(seenInside).toStrictEqual([{ n: 100 }]);
    if (provider === 'sqlite') expect(await outside).toStrictEqual([{ n: 100 }]);
    await database.db
      .$transaction(async (t) => {
        await t.$executeRawUnsafe(sql('UPDATE "T" SET "n" = $1 WHERE "id" = $2'), 200, 'a');
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await reference.$queryRawUnsafe(sql('SELECT "n" FROM "T" WHERE "id" = $1'), 'a')).toStrictEqual([{ n: 100 }]);
  });

  it.runIf(provider === 'postgres')('keeps a transaction its own when a query on the app\'s client inside it starts one of Prisma\'s', async () => {
    await seed(database.db);
    let after = -1;
    await database.db
      .$transaction(async (t) => {
        await t.$executeRawUnsafe(sql('UPDATE "T" SET "n" = $1 WHERE "id" = $2'), 41, 'a');
        // A nested create runs in a transaction Prisma starts for it, in this flow.
        await database.db.shop.create({ data: { domain: 'nested.myshopify.com', environments: { create: [{ environment: 'test', endpointId: 'nested-endpoint' }] } } });
        const before = compiles;
        await t.$executeRawUnsafe(sql('UPDATE "T" SET "n" = "n" + 1 WHERE "id" = $1'), 'a');
        after = compiles - before;
        throw new Error('roll back');
      })
      .catch(() => {});
    // Still run directly, on this transaction's connection: rolled back with it.
    expect(after).toBe(0);
    expect(await reference.$queryRawUnsafe(sql('SELECT "n" FROM "T" WHERE "id" = $1'), 'a')).toStrictEqual([{ n: 5 }]);
    expect(await reference.shop.count({ where: { domain: 'nested.myshopify.com' } })).toBe(1);
  });

  it.runIf(provider === 'postgres')('prepares a repeated statement by name on its connection: parsed and planned once there, the same rows each run', async () => {
    await seed(database.db);
    const text = sql('SELECT "id", "n" FROM "T" WHERE "id" = $1 AND "n" >= $2');
    const prepared = await database.db.$transaction(async (t) => {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await t.$queryRawUnsafe(text, 'a', i));
      expect(runs).toStrictEqual([[{ id: 'a', n: 5 }], [{ id: 'a', n: 5 }], [{ id: 'a', n: 5 }]]);
      return t.$queryRawUnsafe<Array<{ name: string; statement: string }>>('SELECT "name", "statement" FROM pg_prepared_statements');
    });
    expect(prepared.filter((p) => p.statement === text)).toEqual([{ name: expect.stringMatching(/^sdd_[\w-]{27}$/), statement: text }]);
  });

  it.runIf(provider === 'postgres')('prepares the intake pool\'s repeated statement by name too (execute, the Shopify webhook insert)', async () => {
    const text = 'INSERT INTO "T" ("id", "n") VALUES ($1, $2) ON CONFLICT DO NOTHING';
    // One at a time: the intake pool opens one connection and runs each on it.
    const counts = [];
    for (const [id, n] of [['x1', 1], ['x1', 1], ['x2', 2]] as const) counts.push(await database.execute(text, [id, n]));
    expect(counts).toEqual([1, 0, 1]);
    // A SELECT's count is its rows: the session's prepared statements with that text.
    expect(await database.execute('SELECT 1 FROM pg_prepared_statements WHERE "statement" = $1 AND "name" LIKE \'sdd_%\'', [text])).toBe(1);
  });

  it('never runs a closed transaction\'s statement inside another one', async () => {
    await seed(database.db);
    let late!: Promise<unknown>;
    // Times out at 100 ms (Prisma rolls it back); its callback tries one more statement at 300 ms...
    const first = database.db
      .$transaction(
        async (t) => {
          await new Promise((r) => setTimeout(r, 300));
          late = t.$executeRawUnsafe(sql('UPDATE "T" SET "n" = $1 WHERE "id" = $2'), 999, 'a').catch((e: unknown) => e);
          await late;
        },
        { timeout: 100 },
      )
      .catch(() => {});
    // ...while another transaction holds the connection (SQLite's one; PostgreSQL's pool hands the freed one on).
    await new Promise((r) => setTimeout(r, 150));
    await database.db.$transaction(async (t) => {
      await t.$executeRawUnsafe(sql('UPDATE "T" SET "n" = $1 WHERE "id" = $2'), 7, 'b');
      await new Promise((r) => setTimeout(r, 300));
    });
    await first;
    expect(await late).toBeInstanceOf(Error);
    expect(await reference.$queryRawUnsafe(sql('SELECT "id", "n" FROM "T" WHERE "id" IN ($1, $2) ORDER BY "id"'), 'a', 'b')).toStrictEqual([{ id: 'a', n: 5 }, { id: 'b', n: 7 }]);
  });
});
