// The real entry point as a child process: configuration errors, embedded
// defaults, an unreachable database, and graceful shutdown.
import { describe, expect, it } from 'vitest';
import { childProcessScope } from '../support/child-scope.ts';
import { spawnApp, waitFor } from '../support/process.ts';

const { running, tempDir } = childProcessScope('sdd-start-');

describe('start-up', () => {
  it('exits non-zero with one line naming SHOPIFY_API_SECRET when it is unset in production', async () => {
    const p = spawnApp({ NODE_ENV: 'production', SHOPIFY_API_KEY: 'k', SHOPIFY_APP_URL: 'https://x.example', ENCRYPTION_KEY: 'a'.repeat(64) });
    expect(await p.exited).not.toBe(0);
    const out = p.output().trim();
    expect(out).toBe('Configuration error: SHOPIFY_API_SECRET is required when NODE_ENV=production');
  });

  it('names every missing or invalid variable in one start, one line each', async () => {
    const p = spawnApp({ NODE_ENV: 'production', PORT: 'eighty', ENCRYPTION_KEY: 'short' });
    expect(await p.exited).not.toBe(0);
    expect(p.output().trim().split('\n')).toEqual([
      'Configuration error: PORT is invalid: expected a TCP port number',
      'Configuration error: ENCRYPTION_KEY is invalid: expected 32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)',
      'Configuration error: SHOPIFY_API_KEY is required when NODE_ENV=production',
      'Configuration error: SHOPIFY_API_SECRET is required when NODE_ENV=production',
      'Configuration error: SHOPIFY_APP_URL is required when NODE_ENV=production',
    ]);
  });

  it('refuses the shop simulator switch in production with one line', async () => {
    const p = spawnApp({ NODE_ENV: 'production', SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_APP_URL: 'https://x.example', ENCRYPTION_KEY: 'a'.repeat(64), SHOP_SIMULATOR_URL: 'http://127.0.0.1:4020' });
    expect(await p.exited).not.toBe(0);
    expect(p.output().trim()).toBe('Configuration error: SHOP_SIMULATOR_URL is not allowed when NODE_ENV=production (it sends Shopify traffic to a local simulator)');
  });

  it('says SHOP_SIMULATOR_URL is ignored by npm start, and routes it under npm run dev (dev/start.ts)', async () => {
    const start = spawnApp({ PORT: '0', SHOP_SIMULATOR_URL: 'http://127.0.0.1:4020' }, { cwd: tempDir() });
    running.push(start);
    await start.url();
    // Log lines are written asynchronously: wait for the line rather than expect it with the URL.
    await waitFor(async () => start.output().includes('SHOP_SIMULATOR_URL is set but ignored'), 'the ignored warning');
    const dev = spawnApp({ PORT: '0', SHOP_SIMULATOR_URL: 'http://127.0.0.1:4020' }, { cwd: tempDir(), entry: 'dev/start.ts' });
    running.push(dev);
    await dev.url();
    // dev/start.ts logs it through a logger of its own, so it may reach the output after the app's listen line.
    await waitFor(async () => dev.output().includes('goes to the local shop simulator'), 'the shop simulator line');
    expect(dev.output()).not.toContain('SHOP_SIMULATOR_URL is set but ignored');
  });

  it('starts with no environment on SQLite, answers /healthz and /readyz, and stops cleanly on SIGTERM', async () => {
    const cwd = tempDir();
    const p = spawnApp({ PORT: '0' }, { cwd });
    running.push(p);
    const url = await p.url();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, '/readyz 200');
    expect(p.output()).toContain('generated a development key');
    expect(p.output()).toContain('same-day-dispatch.db');
    // Start-up's garbage is collected before ready (web/ops/memory.ts): the heap it left shrinks.
    const released = p.output().split('\n').find((l) => l.includes('start-up memory released'));
    const memory = JSON.parse(released!).memory as { heapUsedMb: { before: number; after: number } };
    expect(memory.heapUsedMb.after).toBeLessThan(memory.heapUsedMb.before);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain('shut down cleanly');
  });

  it('finishes an in-flight request before exiting on SIGTERM', async () => {
    const p = spawnApp({ PORT: '0' }, { cwd: tempDir() });
    running.push(p);
    const url = await p.url();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'ready');
    // A slow upload: headers now, body after the signal.
    const body = new ReadableStream({
      async start(c) {
        c.enqueue(new TextEncoder().encode('{"a":'));
        await new Promise((r) => setTimeout(r, 300));
        c.enqueue(new TextEncoder().encode('1}'));
        c.close();
      },
    });
    const inflight = fetch(`${url}/api/webhooks`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit);
    await new Promise((r) => setTimeout(r, 100));
    p.child.kill('SIGTERM');
    const res = await inflight;
    expect(res.status).toBe(401); // answered (no HMAC: Shopify requires 401), not dropped
    const code = await p.exited;
    expect(code, p.output()).toBe(0);
  });

  it('answers /readyz 503 (and keeps running) when PostgreSQL is unreachable', async () => {
    const p = spawnApp({ PORT: '0', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere' }, { cwd: tempDir() });
    running.push(p);
    const url = await p.url();
    const ready = await waitFor(async () => {
      const r = await fetch(`${url}/readyz`);
      const b = (await r.json()) as any;
      return r.status === 503 && /database/.test(b.reason) ? b : null;
    }, '/readyz 503');
    expect(ready.ready).toBe(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/api/webhooks`, { method: 'POST' })).status).toBe(503);
    expect(p.child.exitCode).toBeNull();
  });
});
