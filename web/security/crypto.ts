// Secrets at rest: AES-256-GCM under ENCRYPTION_KEY.
// Format: enc:v1:<keyId>:<iv>:<tag>:<ciphertext> (base64url parts). The key id
// lets earlier keys (ENCRYPTION_KEY_PREVIOUS) decrypt during a rotation, and
// lets `cli rotate-key` find values still under an old key.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

export class DecryptionError extends Error {}

export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly currentKeyId: string;

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.#keys = new Map(keys.map((k) => [keyId(k), k]));
    this.currentKeyId = keyId(keys[0]!);
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.currentKeyId)!, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.currentKeyId}:${b64(iv)}:${b64(cipher.getAuthTag())}:${b64(ct)}`;
  }

  decrypt(text: string): string {
    const parts = text.startsWith(PREFIX) ? text.slice(PREFIX.length).split(':') : [];
    if (parts.length !== 4) throw new DecryptionError('value is not an encrypted secret');
    const [kid, iv, tag, ct] = parts as [string, string, string, string];
    const key = this.#keys.get(kid);
    if (!key) throw new DecryptionError(`secret was encrypted with an unknown key (${kid}); set it in ENCRYPTION_KEY_PREVIOUS`);
    try {
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
    } catch {
      throw new DecryptionError('secret failed authentication (wrong key or corrupted value)');
    }
  }

  /** Ids of every key this box can decrypt with, current first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /** True when the value is encrypted under a key other than the current one. */
  isStale(text: string): boolean {
    return isEncrypted(text) && keyIdOf(text) !== this.currentKeyId;
  }
}

/** The key id an encrypted value names, or null for anything else. */
export function keyIdOf(text: string): string | null {
  return isEncrypted(text) ? (text.slice(PREFIX.length).split(':')[0] ?? null) : null;
}

export function isEncrypted(text: string | null | undefined): text is string {
  return typeof text === 'string' && text.startsWith(PREFIX);
}

/** Last 4 characters for display: "••••abcd". Never more. */
export function maskSecret(plain: string | null | undefined): string | null {
  if (!plain) return null;
  return `••••${plain.length > 8 ? plain.slice(-4) : ''}`;
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('same-day-dispatch:key-id:').update(key).digest('hex').slice(0, 8);
}

function b64(b: Buffer): string {
  return b.toString('base64url');
}

/** An ENCRYPTION_KEY as 32 bytes (64 hex digits or base64/base64url); null when it is not one. */
export function decodeKey(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const b = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return b.length === 32 ? b : null;
  }
  return null;
}
