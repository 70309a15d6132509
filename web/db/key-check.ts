// Start-up check that ENCRYPTION_KEY (and ENCRYPTION_KEY_PREVIOUS) can read
// what is stored. Without it a process started with the wrong key reports
// ready while every secret is unreadable: admin API errors, courier webhooks
// 401, new orders NEEDS_ATTENTION.
//
// A canary (a known text encrypted under the key in use) is read first; when
// there are few stored secrets (CHECK_ALL_LIMIT rows), every one is tried too,
// so a database whose canary is fine but whose secrets are under a key the
// process lacks is caught as well. `cli rotate-key` re-encrypts the canary with
// the secrets, so its key id stays the oldest key still needed.
import type { Db } from './client.ts';
import { DecryptionError, isEncrypted, keyIdOf, type SecretBox } from '../security/crypto.ts';

const CANARY_ID = 'encryption-key';
const CANARY_TEXT = 'same-day-dispatch key canary';
/** Rows (courier environments + sessions) up to which every stored secret is tried at start-up. */
export const CHECK_ALL_LIMIT = 200;

export type KeyCheck =
  | { ok: true; checked: number }
  | { ok: false; reason: string; missingKeyIds: string[]; unreadable: number; checked: number };

export async function checkEncryptionKeys(db: Db, box: SecretBox, opts: { checkAllLimit?: number } = {}): Promise<KeyCheck> {
  const values: string[] = [];
  const canary = await db.keyCanary.findUnique({ where: { id: CANARY_ID } });
  if (canary) values.push(canary.value);
  const limit = opts.checkAllLimit ?? CHECK_ALL_LIMIT;
  const [envCount, sessionCount] = await Promise.all([db.courierEnvironment.count(), db.session.count()]);
  if (envCount + sessionCount <= limit) {
    for (const r of await db.courierEnvironment.findMany({ select: { clientSecretEnc: true, webhookSecretEnc: true, webhookSecretPrevEnc: true } })) {
      values.push(...[r.clientSecretEnc, r.webhookSecretEnc, r.webhookSecretPrevEnc].filter((v): v is string => !!v));
    }
    for (const r of await db.session.findMany({ select: { accessToken: true, refreshToken: true } })) {
      values.push(...[r.accessToken, r.refreshToken].filter((v): v is string => !!v));
    }
  }
  const missing = new Set<string>();
  let unreadable = 0;
  // Only values in our encrypted format: anything else is not this check's business.
  const checked = values.filter(isEncrypted);
  for (const v of checked) {
    try {
      box.decrypt(v);
    } catch (e) {
      if (!(e instanceof DecryptionError)) throw e;
      unreadable++;
      missing.add(keyIdOf(v)!);
    }
  }
  if (unreadable) {
    const ids = [...missing];
    return {
      ok: false,
      missingKeyIds: ids,
      unreadable,
      checked: checked.length,
      reason:
        `ENCRYPTION_KEY cannot read stored secrets (${unreadable} of ${checked.length} checked): they are encrypted under key id ${ids.join(', ')}, ` +
        `but ENCRYPTION_KEY has key id ${box.currentKeyId}${box.keyIds.length > 1 ? ` and ENCRYPTION_KEY_PREVIOUS ${box.keyIds.slice(1).join(', ')}` : ' and ENCRYPTION_KEY_PREVIOUS is not set'}. ` +
        'Start with the key that encrypted them (or add it to ENCRYPTION_KEY_PREVIOUS).',
    };
  }
  // First start with this database (or with secrets only): remember the key in use.
  if (!canary) await db.keyCanary.upsert({ where: { id: CANARY_ID }, create: { id: CANARY_ID, value: box.encrypt(CANARY_TEXT) }, update: {} });
  return { ok: true, checked: checked.length };
}

/** After `cli rotate-key`: the canary follows the secrets to the current key. */
export async function reencryptCanary(db: Db, box: SecretBox): Promise<void> {
  const canary = await db.keyCanary.findUnique({ where: { id: CANARY_ID } });
  if (canary && box.isStale(canary.value)) await db.keyCanary.update({ where: { id: CANARY_ID }, data: { value: box.encrypt(box.decrypt(canary.value)) } });
}
