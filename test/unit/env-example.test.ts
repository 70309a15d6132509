// .env.example and the README's configuration table list exactly what the app reads, and a
// copied .env.example asks for exactly the production secrets and nothing else.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../web/config/env.ts';
import { ROOT } from '../support/paths.ts';

const example = Object.fromEntries(
  readFileSync(join(ROOT, '.env.example'), 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);

describe('.env.example', () => {
  it('lists every variable the app reads, and no other', () => {
    expect(Object.keys(example).sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('as copied, fails start-up naming exactly the production blanks to fill in', () => {
    let message = '';
    try {
      loadConfig(example);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message.split('\n').map((l) => l.split(' ')[2])).toEqual(['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET', 'SHOPIFY_APP_URL', 'ENCRYPTION_KEY']);
  });

  it('with the blanks filled in, starts in production', () => {
    const c = loadConfig({ ...example, SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_APP_URL: 'https://dispatch.example.com', ENCRYPTION_KEY: 'f'.repeat(64) });
    expect(c.isProduction).toBe(true);
    expect(c.databaseUrl).toBe('file:data/same-day-dispatch.db');
  });
});

describe('README.md', () => {
  it('documents every variable in its configuration table', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = [...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(table.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
