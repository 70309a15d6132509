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

describe('secure by default (issue 32)', () => {
  it.each([
    ['SHOPIFY_API_SECRET', { SHOPIFY_API_SECRET: 'dev-api-secret-not-for-production' }, /^Configuration error: SHOPIFY_API_SECRET is the published development placeholder/],
    ['SHOPIFY_API_KEY', { SHOPIFY_API_KEY: 'dev-api-key' }, /^Configuration error: SHOPIFY_API_KEY is the published development placeholder/],
    ['SHOPIFY_APP_URL', { SHOPIFY_APP_URL: 'http://dispatch.example.com' }, /^Configuration error: SHOPIFY_APP_URL must use https when NODE_ENV=production$/],
    ['PUBLIC_WEBHOOK_BASE_URL', { PUBLIC_WEBHOOK_BASE_URL: 'http://hooks.example.com' }, /^Configuration error: PUBLIC_WEBHOOK_BASE_URL must use https/],
    ['COURIER_TEST_BASE_URL', { COURIER_TEST_BASE_URL: 'http://127.0.0.1:4010' }, /^Configuration error: COURIER_TEST_BASE_URL must use https/],
    ['COURIER_TEST_BASE_URL', { COURIER_TEST_BASE_URL: 'https://127.0.0.1:4010' }, /^Configuration error: COURIER_TEST_BASE_URL must not point to a loopback address/],
    ['COURIER_TEST_BASE_URL', { COURIER_TEST_BASE_URL: 'https://localhost:4010' }, /COURIER_TEST_BASE_URL must not point to a loopback address \(localhost\)/],
    ['COURIER_LIVE_BASE_URL', { COURIER_LIVE_BASE_URL: 'https://10.0.0.5' }, /^Configuration error: COURIER_LIVE_BASE_URL must not point to a private address/],
    ['COURIER_LIVE_BASE_URL', { COURIER_LIVE_BASE_URL: 'https://[::127.0.0.1]' }, /COURIER_LIVE_BASE_URL must not point to a loopback address/],
    ['GEOCODER_URL', { GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: 'https://169.254.169.254' }, /^Configuration error: GEOCODER_URL must not point to a link-local or cloud metadata address/],
    ['GEOCODER_URL', { GEOCODER_URL: 'http://geocoder.example.com' }, /^Configuration error: GEOCODER_URL must use https/],
  ])('production refuses an unsafe %s, naming it in one line', (name, env, pattern) => {
    const message = error({ ...prod, ...env });
    expect(message).toMatch(pattern);
    expect(message.split(' ')[2]).toBe(name);
    expect(message).not.toContain('\n');
  });

  it('reports every unsafe variable at once', () => {
    const lines = error({ ...prod, SHOPIFY_API_SECRET: 'dev-api-secret-not-for-production', SHOPIFY_APP_URL: 'http://x.example.com', COURIER_TEST_BASE_URL: 'https://[fd00::1]' }).split('\n');
    expect(lines.map((l) => l.split(' ')[2])).toEqual(['SHOPIFY_API_SECRET', 'SHOPIFY_APP_URL', 'COURIER_TEST_BASE_URL']);
  });

  it('accepts public https courier and geocoder URLs in production', () => {
    const c = loadConfig({ ...prod, COURIER_TEST_BASE_URL: 'https://sandbox.courier.example/', COURIER_LIVE_BASE_URL: 'https://api.courier.example', GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: 'https://geo.example.com' });
    expect(c.courierBaseUrls).toEqual({ test: 'https://sandbox.courier.example', live: 'https://api.courier.example' });
  });

  it('has no test courier default in production; development keeps the local sandbox', () => {
    expect(loadConfig(prod).courierBaseUrls).toEqual({ test: null, live: null });
    expect(loadConfig({}).courierBaseUrls).toEqual({ test: 'http://127.0.0.1:4010', live: null });
  });

  it('lets development use local URLs', () => {
    expect(loadConfig({ COURIER_TEST_BASE_URL: 'http://127.0.0.1:9999', SHOPIFY_APP_URL: 'http://localhost:3000' }).courierBaseUrls.test).toBe('http://127.0.0.1:9999');
  });

  it('listens on 127.0.0.1 outside production and on all interfaces in production, unless HOST says otherwise', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig(prod).host).toBeNull();
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...prod, HOST: '10.1.2.3' }).host).toBe('10.1.2.3');
    expect(error({ HOST: 'not a host' })).toMatch(/^Configuration error: HOST is invalid/);
  });

  it('makes includeSubDomains an operator choice', () => {
    expect(loadConfig(prod).hstsIncludeSubDomains).toBe(false);
    expect(loadConfig({ ...prod, HSTS_INCLUDE_SUBDOMAINS: 'true' }).hstsIncludeSubDomains).toBe(true);
    expect(error({ HSTS_INCLUDE_SUBDOMAINS: 'maybe' })).toMatch(/^Configuration error: HSTS_INCLUDE_SUBDOMAINS is invalid: expected one of true, .*false/);
  });
});
