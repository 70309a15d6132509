// What the logs say: request paths with their mount prefix, /readyz 503 not at error
// level, and the shop simulator's webhooks and install hint aimed at the app's own default host.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../web/config/env.ts';
import { ROOT } from '../support/paths.ts';
import { spawnApp, waitFor, type AppProcess } from '../support/process.ts';

const running: AppProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const requestLines = (out: string) =>
  out.split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as { level: string; path: string; status: number });

describe('access log', () => {
  it('logs /api paths with their prefix, and a /readyz 503 as a warning, not an error', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sdd-logs-'));
    dirs.push(cwd);
    const p = spawnApp({ PORT: '0', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere' }, { cwd });
    running.push(p);
    const url = await p.url();
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    await fetch(`${url}/api/settings?shop=a.myshopify.com`);
    const lines = await waitFor(async () => {
      const l = requestLines(p.output());
      return l.length >= 2 ? l : null;
    }, 'two access-log lines');
    expect(lines.find((l) => l.path === '/readyz')).toMatchObject({ status: 503, level: 'warn' });
    expect(lines.map((l) => l.path)).toContain('/api/settings');
    expect(lines.map((l) => l.path)).not.toContain('/settings');
  });
});

describe('shop simulator', () => {
  it('sends webhooks to the host the app defaults to, and its install hint is the managed install', async () => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    const child = spawn(process.execPath, [join(ROOT, 'dev/shop-sim/main.ts'), '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      const webhooks = await waitFor(async () => out.match(/webhooks go to:\s+(\S+)/)?.[1], 'the webhook line');
      expect(webhooks).toBe(`${loadConfig({}).shopify.appUrl}/api/webhooks`);
      expect(out).toMatch(/install the app:\s+POST http:\/\/127\.0\.0\.1:\d+\/_sim\/shops\/demo\/install \(Shopify-managed installation\)/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
