// Databases for child-process tests and benchmarks (no vitest imports here:
// benchmarks are plain Node scripts). The app migrates them itself.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { adminPgUrl, pgUrlFor } from './paths.ts';

/**
 * An empty database outside vitest's per-file templates (for child-process
 * tests and benchmarks, where the app migrates it itself). Null when
 * PostgreSQL is not reachable and `optional` is set.
 */
export async function scratchDatabase(provider: 'sqlite' | 'postgres', opts: { optional?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> } | null> {
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sdd-scratch-'));
    return { url: `file:${join(dir, 'app.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `sdd_scratch_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminPgUrl() });
  try {
    await admin.connect();
  } catch (e) {
    if (opts.optional) return null;
    throw e;
  }
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = pgUrlFor(name);
  return {
    url,
    async drop() {
      const a = new pg.Client({ connectionString: adminPgUrl() });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}
