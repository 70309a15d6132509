import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const TMP_DIR = join(ROOT, 'test-output', 'tmp');

export function adminPgUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
}

export function pgUrlFor(database: string): string {
  const u = new URL(adminPgUrl());
  u.pathname = `/${database}`;
  return u.toString();
}
