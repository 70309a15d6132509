// Runs the app's real entry point (`node web/index.ts`) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { TEST_API_KEY, TEST_API_SECRET } from './app.ts';
import { ROOT } from './paths.ts';

export interface AppProcess {
  child: ChildProcess;
  output: () => string;
  url: () => Promise<string>;
  exited: Promise<number | null>;
}

/** The environment a test app child process runs with, over databaseUrl; extra adds or overrides. */
export function childAppEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SHOPIFY_API_KEY: TEST_API_KEY,
    SHOPIFY_API_SECRET: TEST_API_SECRET,
    RECONCILE_INTERVAL_SECONDS: '0',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

export function spawnApp(env: Record<string, string | undefined>, opts: { cwd?: string; entry?: string } = {}): AppProcess {
  const clean: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  const child = spawn(process.execPath, [join(ROOT, opts.entry ?? 'web/index.ts')], { cwd: opts.cwd ?? ROOT, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = async () => {
    for (let i = 0; i < 200; i++) {
      const m = out.match(/"port":(\d+),[^\n]*"msg":"listening"/);
      if (m) return `http://127.0.0.1:${m[1]}`;
      if (child.exitCode !== null) throw new Error(`app exited (${child.exitCode}):\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`app did not start listening:\n${out}`);
  };
  return { child, output: () => out, url, exited };
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
}
