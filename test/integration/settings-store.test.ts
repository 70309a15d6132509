// Secrets at rest: encrypted on the way in, masked in views, rotated under a
// new ENCRYPTION_KEY, and a webhook secret rotation keeps the previous one.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../web/db/client.ts';
import { SecretBox } from '../../web/security/crypto.ts';
import { cachedCourierAccess, COURIER_ACCESS_TTL_MS, courierAccess, ensureShop, environmentViews, reencryptSecrets, shopGeocoder, updateEnvironment, updateShopGeocoder } from '../../web/settings/store.ts';
import { SettingsValidationError } from '../../web/settings/schema.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase } from '../support/db.ts';

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

const urls = { test: 'http://127.0.0.1:4010', live: null };

describe('courier credentials at rest', () => {
  it('stores ciphertext, shows only set/last 4, and re-encrypts everything under a rotated key', async () => {
    const { db } = database;
    const [k1, k2] = [randomBytes(32), randomBytes(32)];
    const old = new SecretBox([k1]);
    const shop = await ensureShop(db, 'rotate.myshopify.com');
    await updateEnvironment(db, old, shop.domain, 'test', { clientId: 'client-1', clientSecret: 'cs_live_abcdef123456', webhookSecret: 'whsec_first_0001' });
    await db.session.create({ data: { id: 'offline_rotate.myshopify.com', shop: shop.domain, state: 's', accessToken: old.encrypt('shpat_token_1234') } });
    await updateShopGeocoder(db, old, shop.domain, { provider: 'nominatim', url: 'https://nominatim.example.com', apiKey: 'geo-key-5678' });

    const row = await db.courierEnvironment.findFirstOrThrow({ where: { shopId: shop.id, environment: 'test' } });
    expect(row.clientSecretEnc).toMatch(/^enc:v1:/);
    expect(JSON.stringify(row)).not.toContain('cs_live_abcdef123456');
    const views = await environmentViews(db, old, shop.id);
    expect(views.test.clientSecret).toEqual({ set: true, last4: '3456' });
    expect(JSON.stringify(views)).not.toContain('cs_live_abcdef123456');

    // New key first, old key still accepted for reading: re-encrypt, then the old key can go.
    expect(await reencryptSecrets(db, new SecretBox([k2, k1]))).toEqual({ environments: 1, sessions: 1, geocoderKeys: 1 });
    const onlyNew = new SecretBox([k2]);
    const access = await courierAccess(db, onlyNew, shop.id, 'test', urls);
    expect(access.clientSecret).toBe('cs_live_abcdef123456');
    expect(access.webhookSecrets).toEqual(['whsec_first_0001']);
    const session = await db.session.findUniqueOrThrow({ where: { id: 'offline_rotate.myshopify.com' } });
    expect(onlyNew.decrypt(session.accessToken)).toBe('shpat_token_1234');
    expect(shopGeocoder(await db.shop.findUniqueOrThrow({ where: { id: shop.id } }), onlyNew, 0.8)?.apiKey).toBe('geo-key-5678');
    await expect(courierAccess(db, old, shop.id, 'test', urls)).rejects.toThrow(/unknown key/);
    expect(await reencryptSecrets(db, new SecretBox([k2, k1]))).toEqual({ environments: 0, sessions: 0, geocoderKeys: 0 });
  });

  it('a new webhook secret keeps the previous one verifying during the portal switch', async () => {
    const { db } = database;
    const box = new SecretBox([randomBytes(32)]);
    const shop = await ensureShop(db, 'webhook-rotation.myshopify.com');
    await updateEnvironment(db, box, shop.domain, 'live', { webhookSecret: 'whsec_before_0001' });
    await updateEnvironment(db, box, shop.domain, 'live', { webhookSecret: 'whsec_after_00002' });
    expect((await courierAccess(db, box, shop.id, 'live', urls)).webhookSecrets).toEqual(['whsec_after_00002', 'whsec_before_0001']);
  });

  it('names the field that is wrong and stores nothing', async () => {
    const { db } = database;
    const box = new SecretBox([randomBytes(32)]);
    const shop = await ensureShop(db, 'invalid-env.myshopify.com');
    const err = await updateEnvironment(db, box, shop.domain, 'test', { baseUrl: 'not a url', clientSecret: 'short' }).catch((e) => e);
    expect(err).toBeInstanceOf(SettingsValidationError);
    expect(Object.keys(err.fields).sort()).toEqual(['test.baseUrl', 'test.clientSecret']);
    expect(await db.courierEnvironment.count({ where: { shopId: shop.id } })).toBe(0);
  });
});

describe('courier access on the dispatch path', () => {
  it('reuses the stored row for a short TTL, secrets still encrypted in it; a save in this process is seen at once', async () => {
    const { db } = database;
    const box = new SecretBox([randomBytes(32)]);
    const shop = await ensureShop(db, 'cached-access.myshopify.com');
    await updateEnvironment(db, box, shop.domain, 'test', { clientId: 'client-1', clientSecret: 'cs_first_0001' });
    const t0 = Date.now();
    expect((await cachedCourierAccess(db, box, shop.id, 'test', urls, t0)).clientSecret).toBe('cs_first_0001');
    // Another instance saves: seen once the TTL ends.
    await db.courierEnvironment.updateMany({ where: { shopId: shop.id, environment: 'test' }, data: { clientId: 'client-2' } });
    expect((await cachedCourierAccess(db, box, shop.id, 'test', urls, t0 + 1)).clientId).toBe('client-1');
    expect((await cachedCourierAccess(db, box, shop.id, 'test', urls, t0 + COURIER_ACCESS_TTL_MS)).clientId).toBe('client-2');
    // This process saves: seen at once.
    await updateEnvironment(db, box, shop.domain, 'test', { clientSecret: 'cs_second_0002' });
    expect((await cachedCourierAccess(db, box, shop.id, 'test', urls, t0 + COURIER_ACCESS_TTL_MS + 1)).clientSecret).toBe('cs_second_0002');
  });
});
