// Raw SQL through the app's Prisma client, for both providers, on the hottest paths only (issue 24:
// each compiled Prisma query cost 0.3 ms and more of CPU). Statements are written once, with
// PostgreSQL's $1…$n placeholders (each used once, in order), and turned into SQLite's `?`.
import type { DatabaseTarget } from './url.ts';

export type Provider = DatabaseTarget['provider'];

/** A time as each provider stores Prisma's DateTime: SQLite text with +00:00; PostgreSQL TIMESTAMP(3) in UTC. */
export function dbTime(provider: Provider, ms: number): string {
  const iso = new Date(ms).toISOString();
  return provider === 'sqlite' ? iso.replace('Z', '+00:00') : iso.slice(0, -1);
}

/** `text` for `provider`: $n (and $n::timestamp(3)) become `?` on SQLite. */
export function forProvider(provider: Provider, text: string): string {
  return provider === 'sqlite' ? text.replace(/\$\d+(::timestamp\(3\))?/g, '?') : text;
}

/** The cast a DateTime placeholder takes (PostgreSQL needs it for text binds; dropped on SQLite). */
export const TS = '::timestamp(3)';

/** `$from, $from+1, …` for an IN list of `n` values. */
export function placeholders(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}

/**
 * A DateTime column read by raw SQL, as a Date. Drivers differ: a Date, SQLite's stored text (with
 * its offset), or PostgreSQL's TIMESTAMP(3) text without a zone, which is UTC here.
 */
export function rawTime(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  if (typeof v === 'number') return new Date(v);
  const s = String(v);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
}
