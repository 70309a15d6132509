import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DecryptionError, SecretBox, isEncrypted, maskSecret } from '../../web/security/crypto.ts';

describe('SecretBox', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('round-trips and never stores the plaintext', () => {
    const box = new SecretBox([k1]);
    const c = box.encrypt('client-secret-value');
    expect(c).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(c).not.toContain('client-secret-value');
    expect(box.decrypt(c)).toBe('client-secret-value');
    expect(box.encrypt('same')).not.toBe(box.encrypt('same')); // random IV
  });

  it('decrypts values under an earlier key during a rotation, and flags them as stale', () => {
    const old = new SecretBox([k1]).encrypt('s3cret');
    const rotated = new SecretBox([k2, k1]);
    expect(rotated.decrypt(old)).toBe('s3cret');
    expect(rotated.isStale(old)).toBe(true);
    expect(rotated.isStale(rotated.encrypt('s3cret'))).toBe(false);
  });

  it('refuses an unknown key, a tampered value, and plaintext', () => {
    const c = new SecretBox([k1]).encrypt('s3cret');
    expect(() => new SecretBox([k2]).decrypt(c)).toThrow(/unknown key/);
    const parts = c.split(':');
    parts[5] = Buffer.from('tampered').toString('base64url');
    expect(() => new SecretBox([k1]).decrypt(parts.join(':'))).toThrow(DecryptionError);
    expect(() => new SecretBox([k1]).decrypt('s3cret')).toThrow(/not an encrypted secret/);
    expect(isEncrypted('s3cret')).toBe(false);
  });

  it('masks to the last four characters at most', () => {
    expect(maskSecret('sk_test_abcdef123456')).toBe('••••3456');
    expect(maskSecret('short')).toBe('••••');
    expect(maskSecret(null)).toBeNull();
  });
});
