// Started with a different ENCRYPTION_KEY, the app must not report ready:
// /readyz answers 503 with the reason and the log names the missing key id.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../web/security/crypto.ts';
import { checkEncryptionKeys } from '../../web/db/key-check.ts';
import { updateEnvironment } from '../../web/settings/store.ts';
import { ensureShop } from '../../web/settings/store.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { dropDatabase, freshDatabaseUrl } from '../support/db.ts';

const keyA = randomBytes(32).toString('hex');
const keyB = randomBytes(32).toString('hex');
const idOf = (hex: string) => new SecretBox([Buffer.from(hex, 'hex')]).currentKeyId;

async function readyz(app: TestApp) {
  const r = await fetch(`${app.url}/readyz`);
  return { status: r.status, body: (await r.json()) as { ready: boolean; reason?: string } };
}

let url: string;
beforeAll(async () => {
  url = await freshDatabaseUrl();
});
afterAll(async () => {
  await dropDatabase(url);
});

describe('encryption key canary', () => {
  it('is written on first start; another key fails /readyz naming the missing key id; the old key as previous is fine', async () => {
    const first = await startTestApp({ ENCRYPTION_KEY: keyA }, { databaseUrl: url, keepDatabase: true });
    try {
      expect((await readyz(first)).status).toBe(200);
      expect(await first.db.keyCanary.count()).toBe(1);
    } finally {
      await first.close();
    }

    const wrong = await startTestApp({ ENCRYPTION_KEY: keyB }, { databaseUrl: url, keepDatabase: true });
    try {
      const r = await readyz(wrong);
      expect(r.status).toBe(503);
      expect(r.body.ready).toBe(false);
      expect(r.body.reason).toContain(`key id ${idOf(keyA)}`);
      expect(r.body.reason).toContain('ENCRYPTION_KEY');
      const line = wrong.logs.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('not ready'));
      expect(line?.missingKeyIds).toEqual([idOf(keyA)]);
      expect(line?.level).toBe('error');
    } finally {
      await wrong.close();
    }

    const rotated = await startTestApp({ ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA }, { databaseUrl: url, keepDatabase: true });
    try {
      expect((await readyz(rotated)).status).toBe(200);
    } finally {
      await rotated.close();
    }
  });

  it("checks every shop's secrets when there are few, not only the canary", async () => {
    const db2 = await freshDatabaseUrl();
    const app = await startTestApp({ ENCRYPTION_KEY: keyA }, { databaseUrl: db2, keepDatabase: true });
    try {
      await ensureShop(app.db, 'canary-secrets.myshopify.com');
      await updateEnvironment(app.db, app.server.services()!.box, 'canary-secrets.myshopify.com', 'test', { clientSecret: 'client-secret-0001' });
      // The canary says key B, the courier secret is under key A.
      const boxB = new SecretBox([Buffer.from(keyB, 'hex')]);
      await app.db.keyCanary.updateMany({ data: { value: boxB.encrypt('x') } });
      const all = await checkEncryptionKeys(app.db, boxB);
      expect(all.ok).toBe(false);
      expect(!all.ok && all.missingKeyIds).toEqual([idOf(keyA)]);
      // Beyond the limit only the canary is read (it is fine here).
      expect((await checkEncryptionKeys(app.db, boxB, { checkAllLimit: 0 })).ok).toBe(true);
    } finally {
      await app.close();
      await dropDatabase(db2);
    }
  });
});
