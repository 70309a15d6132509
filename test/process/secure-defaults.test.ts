// Secure by default (issue 32), through the real entry points as child processes:
// production refuses unsafe configuration naming each variable, and development
// (npm start without NODE_ENV, npm run dev) listens on loopback only.
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { childProcessScope } from '../support/child-scope.ts';
import { spawnApp } from '../support/process.ts';

const { running, tempDir } = childProcessScope('sdd-secure-');

const production = { NODE_ENV: 'production', SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_APP_URL: 'https://dispatch.example.com', ENCRYPTION_KEY: 'a'.repeat(64) };

describe('production refuses to start', () => {
  it.each([
    ['SHOPIFY_API_SECRET', { SHOPIFY_API_SECRET: 'dev-api-secret-not-for-production' }, "Configuration error: SHOPIFY_API_SECRET is the published development placeholder; set the app's own value from the Partner Dashboard"],
    ['SHOPIFY_APP_URL', { SHOPIFY_APP_URL: 'http://dispatch.example.com' }, 'Configuration error: SHOPIFY_APP_URL must use https when NODE_ENV=production'],
    ['PUBLIC_WEBHOOK_BASE_URL', { PUBLIC_WEBHOOK_BASE_URL: 'http://hooks.example.com' }, 'Configuration error: PUBLIC_WEBHOOK_BASE_URL must use https when NODE_ENV=production'],
    ['COURIER_TEST_BASE_URL', { COURIER_TEST_BASE_URL: 'https://127.0.0.1:4010' }, 'Configuration error: COURIER_TEST_BASE_URL must not point to a loopback address (127.0.0.1) when NODE_ENV=production'],
    ['GEOCODER_URL', { GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: 'https://[::169.254.169.254]' }, 'Configuration error: GEOCODER_URL must not point to a link-local or cloud metadata address (::a9fe:a9fe) when NODE_ENV=production'],
  ])('with an unsafe %s, in one line naming it', async (_name, env, line) => {
    const p = spawnApp({ ...production, ...env });
    expect(await p.exited).toBe(1);
    expect(p.output().trim()).toBe(line);
  });
});

/** The machine's first non-loopback IPv4 address. */
function externalAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return null;
}

function tryConnect(host: string, port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

const external = externalAddress();

describe.skipIf(!external)(`development listens on 127.0.0.1 only (this machine's other address: ${external})`, () => {
  it.each([
    ['npm start without NODE_ENV', 'web/index.ts'],
    ['npm run dev (and the demo, which starts it)', 'dev/start.ts'],
  ])('%s: a connection to the non-loopback address is refused', async (_what, entry) => {
    // Reproduction 1 of the issue: an https app URL, the development placeholders.
    const p = spawnApp({ PORT: '0', SHOPIFY_APP_URL: 'https://app.example.com' }, { cwd: tempDir(), entry });
    running.push(p);
    const port = Number(new URL(await p.url()).port);
    expect(await tryConnect('127.0.0.1', port)).toBe('connected');
    expect(await tryConnect(external!, port)).toBe('ECONNREFUSED');
  });

  it('HOST=0.0.0.0 opens it to the network on purpose', async () => {
    const p = spawnApp({ PORT: '0', HOST: '0.0.0.0' }, { cwd: tempDir() });
    running.push(p);
    const port = Number(new URL(await p.url()).port);
    expect(await tryConnect(external!, port)).toBe('connected');
  });
});
