// `npm start` is what the README tells a developer to run: SIGTERM to npm must stop the
// app too (npm forwards it; the start script execs node so no shell sits in between).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';
import { waitFor } from '../support/process.ts';

const dirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are none
  }
  const children = out.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

describe('npm start', () => {
  it('stops the app, and leaves no process behind, on SIGTERM to npm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdd-npm-start-'));
    dirs.push(dir);
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: process.env.HOME,
      PORT: '0',
      DATABASE_URL: `file:${join(dir, 'app.db')}`,
      ENCRYPTION_KEY: 'c'.repeat(64),
    };
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout.on('data', (d) => (out += d));
    npm.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const port = await waitFor(async () => out.match(/"port":(\d+),[^\n]*"msg":"listening"/)?.[1], 'listening', 60_000);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, '/readyz 200', 60_000);
    const tree = descendants(npm.pid!);
    pids.push(...tree);
    expect(tree.length).toBeGreaterThan(0);

    npm.kill('SIGTERM');
    await exited;
    await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process npm started to exit');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(out).toContain('shut down cleanly');
  });
});
