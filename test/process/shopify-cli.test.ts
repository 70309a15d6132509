// shopify.web.toml: `shopify app dev` runs its dev command with the tunnel in APP_URL (and PORT,
// SHOPIFY_API_KEY/SECRET, SCOPES); the app must then use the tunnel as its public URL.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';
import { waitFor } from '../support/process.ts';

const toml = readFileSync(join(ROOT, 'shopify.web.toml'), 'utf8');
const value = (key: string) => toml.match(new RegExp(`^${key}\\s*=\\s*(.+)$`, 'm'))?.[1]?.trim();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('shopify.web.toml', () => {
  it('serves frontend and backend, webhooks at /api/webhooks, dev through an npm script that exists', () => {
    expect(value('roles')).toBe('["frontend", "backend"]');
    expect(value('webhooks_path')).toBe('"/api/webhooks"');
    const dev = /^"npm run (\S+)"$/.exec(value('dev') ?? '')?.[1];
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(dev && scripts[dev]).toBeTruthy();
    expect(scripts[/^"npm run (\S+)"$/.exec(value('build') ?? '')![1]!]).toBeTruthy();
  });

  it('its dev command, given the environment the Shopify CLI sets, uses the tunnel URL as the app URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdd-cli-'));
    dirs.push(dir);
    const dev = /^"(.+)"$/.exec(value('dev')!)![1]!.split(' ');
    // What the CLI passes (Shopify/cli launchWebProcess), minus the values we do not read.
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      SHOPIFY_API_KEY: 'cli-client-id',
      SHOPIFY_API_SECRET: 'cli-client-secret',
      HOST: 'https://tunnel-1234.trycloudflare.com',
      APP_URL: 'https://tunnel-1234.trycloudflare.com',
      PORT: '0',
      DATABASE_URL: `file:${join(dir, 'app.db')}`,
      ENCRYPTION_KEY: 'e'.repeat(64),
    };
    // Its own process group: npm runs the app as a grandchild, which a SIGTERM to npm alone left running after the suite.
    const child = spawn(dev[0]!, dev.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // the group has exited
      }
    };
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const line = await waitFor(async () => out.split('\n').find((l) => l.includes('"msg":"listening"')), 'listening', 60_000);
      const listening = JSON.parse(line) as { port: number; host: string; appUrl: string };
      expect(listening.appUrl, out).toBe('https://tunnel-1234.trycloudflare.com');
      // HOST is the CLI's tunnel URL, not a listening address: development stays on loopback.
      expect(listening.host, out).toBe('127.0.0.1');
      await waitFor(async () => (await fetch(`http://127.0.0.1:${listening.port}/readyz`)).status === 200, 'ready', 60_000);
    } finally {
      signalGroup('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
      if (!stopped) signalGroup('SIGKILL');
      // npm may exit before the app it ran: the group's stragglers go too.
      signalGroup('SIGKILL');
    }
  });
});
