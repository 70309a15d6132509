// A plain query never runs inside another flow's open transaction: it neither
// sees uncommitted rows nor is rolled back with them (web/db/client.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dropDatabase, freshDatabaseUrl, openTestDatabase } from '../support/db.ts';
import type { Database } from '../../web/db/client.ts';

let url: string;
let database: Database;
beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await openTestDatabase(url);
});
afterAll(async () => {
  await database.close();
  await dropDatabase(url);
});

it('keeps plain queries out of a concurrent interactive transaction', async () => {
  const { db } = database;
  let inside!: () => void;
  const opened = new Promise<void>((r) => (inside = r));
  let finish!: () => void;
  const hold = new Promise<void>((r) => (finish = r));
  const tx = db
    .$transaction(async (t) => {
      await t.shop.create({ data: { domain: 'uncommitted.myshopify.com' } });
      inside();
      await hold;
      throw new Error('roll back');
    }, { timeout: 10_000 })
    .catch((e: Error) => e.message);

  await opened;
  const seen = db.shop.count({ where: { domain: 'uncommitted.myshopify.com' } });
  const written = db.shop.create({ data: { domain: 'plain-write.myshopify.com' } });
  setTimeout(finish, 100);
  expect(await tx).toBe('roll back');
  expect(await seen).toBe(0);
  await written;
  expect(await db.shop.count({ where: { domain: 'plain-write.myshopify.com' } })).toBe(1);
  expect(await db.shop.count({ where: { domain: 'uncommitted.myshopify.com' } })).toBe(0);
});
