// Development only: without ENCRYPTION_KEY, generate one and keep it under
// data/ so secrets stay readable across restarts. Production refuses to start
// without ENCRYPTION_KEY (web/config/env.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { decodeKey } from './crypto.ts';

export const DEV_KEY_FILE = 'data/encryption.key';

export function loadOrCreateDevKey(file = resolve(DEV_KEY_FILE)): { key: Buffer; created: boolean; file: string } {
  if (existsSync(file)) {
    const key = decodeKey(readFileSync(file, 'utf8').trim());
    if (!key) throw new Error(`${file} does not hold a 32-byte hex key; delete it to generate a new one`);
    return { key, created: false, file };
  }
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return { key, created: true, file };
}
