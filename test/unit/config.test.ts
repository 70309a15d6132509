import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SCOPES, loadConfig } from '../../web/config/env.ts';

const prod = {
  NODE_ENV: 'production',
  SHOPIFY_API_KEY: 'key',
  SHOPIFY_API_SECRET: 'secret',
  SHOPIFY_APP_URL: 'https://dispatch.example.com',
  ENCRYPTION_KEY: 'a'.repeat(64),
};

function error(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a configuration error');
}

describe('loadConfig', () => {
  it('starts with no environment at all on development defaults', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toBe('file:data/same-day-dispatch.db');
    expect(c.port).toBe(3000);
    expect(c.shopify.scopes).toEqual(DEFAULT_SCOPES.split(','));
    expect(c.shopify.placeholders).toBe(true);
    expect(c.encryptionKeys).toBeNull();
    expect(c.logLevel).toBe('info');
  });

  it('accepts a complete production environment', () => {
    const c = loadConfig({ ...prod, ENCRYPTION_KEY_PREVIOUS: 'b'.repeat(64) });
    expect(c.isProduction).toBe(true);
    expect(c.encryptionKeys?.map((k) => k.length)).toEqual([32, 32]);
    expect(c.shopify.appUrl).toBe('https://dispatch.example.com');
  });

  it.each([
    ['SHOPIFY_API_SECRET', { ...prod, SHOPIFY_API_SECRET: '' }, /^Configuration error: SHOPIFY_API_SECRET is required when NODE_ENV=production$/],
    ['SHOPIFY_API_KEY', { ...prod, SHOPIFY_API_KEY: '' }, /SHOPIFY_API_KEY is required/],
    ['SHOPIFY_APP_URL', { ...prod, SHOPIFY_APP_URL: '' }, /SHOPIFY_APP_URL is required/],
    ['ENCRYPTION_KEY', { ...prod, ENCRYPTION_KEY: '' }, /ENCRYPTION_KEY is required/],
    ['ENCRYPTION_KEY', { ENCRYPTION_KEY: 'short' }, /ENCRYPTION_KEY is invalid: expected 32 random bytes/],
    ['ENCRYPTION_KEY_PREVIOUS', { ENCRYPTION_KEY_PREVIOUS: 'nope' }, /ENCRYPTION_KEY_PREVIOUS is invalid/],
    ['PORT', { PORT: 'eighty' }, /PORT is invalid: expected a TCP port number/],
    ['PORT', { PORT: '70000' }, /PORT is invalid/],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL is invalid: expected a file: URL \(SQLite\) or a postgres/],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, /LOG_LEVEL is invalid: expected one of fatal, error/],
    ['SHOPIFY_APP_URL', { SHOPIFY_APP_URL: 'not a url' }, /SHOPIFY_APP_URL is invalid: expected the public http\(s\) URL/],
    ['SCOPES', { SCOPES: 'read orders' }, /SCOPES is invalid: expected comma-separated access scopes/],
    ['NODE_ENV', { NODE_ENV: 'staging' }, /NODE_ENV is invalid: expected one of development, production, test/],
  ])('names %s in one line when it is wrong', (name, env, pattern) => {
    const message = error(env as Record<string, string>);
    expect(message).toMatch(pattern);
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });

  it('reports every problem at once, one line each', () => {
    const lines = error({ NODE_ENV: 'production', PORT: 'eighty', LOG_LEVEL: 'loud', SHOP_SIMULATOR_URL: 'http://127.0.0.1:4020' }).split('\n');
    expect(lines).toEqual([
      'Configuration error: PORT is invalid: expected a TCP port number',
      'Configuration error: LOG_LEVEL is invalid: expected one of fatal, error, warn, info, debug, trace, silent',
      'Configuration error: SHOPIFY_API_KEY is required when NODE_ENV=production',
      'Configuration error: SHOPIFY_API_SECRET is required when NODE_ENV=production',
      'Configuration error: SHOPIFY_APP_URL is required when NODE_ENV=production',
      'Configuration error: ENCRYPTION_KEY is required when NODE_ENV=production',
      'Configuration error: SHOP_SIMULATOR_URL is not allowed when NODE_ENV=production (it sends Shopify traffic to a local simulator)',
    ]);
  });

  it('accepts PostgreSQL URLs and base64 keys', () => {
    const c = loadConfig({ DATABASE_URL: 'postgresql://u:p@db:5432/app', ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(c.databaseUrl).toBe('postgresql://u:p@db:5432/app');
    expect(c.encryptionKeys?.[0]).toEqual(Buffer.alloc(32, 7));
  });
});

describe('the shop simulator switch', () => {
  it('is off by default and refused in production with one line', () => {
    expect(loadConfig({}).shopSimulatorUrl).toBeNull();
    expect(loadConfig({ SHOP_SIMULATOR_URL: 'http://127.0.0.1:4020/' }).shopSimulatorUrl).toBe('http://127.0.0.1:4020');
    expect(error({ ...prod, SHOP_SIMULATOR_URL: 'http://127.0.0.1:4020' })).toBe(
      'Configuration error: SHOP_SIMULATOR_URL is not allowed when NODE_ENV=production (it sends Shopify traffic to a local simulator)',
    );
  });
});
