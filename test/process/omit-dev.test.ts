// `npm ci --omit=dev` (npm sets npm_config_omit=dev for the postinstall) cannot build the admin
// frontend: the postinstall says so in one line and names the production build instead.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';

const guard = join(ROOT, 'scripts/check-dev-install.cjs');
const run = (omit: string) => spawnSync(process.execPath, [guard], { env: { PATH: process.env.PATH, npm_config_omit: omit }, encoding: 'utf8' });

describe('the postinstall under --omit=dev', () => {
  it('stops before the frontend build with one line naming scripts/build-production.sh', () => {
    const r = run('dev');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^npm ci --omit=dev cannot build the admin frontend .*`sh scripts\/build-production\.sh`.*\n$/);
    expect(r.stderr.trim()).not.toContain('\n');
  });

  it('lets a normal install (and --omit=optional) build', () => {
    expect(run('').status).toBe(0);
    expect(run('optional').status).toBe(0);
  });

  it('runs in the postinstall, before the build', () => {
    const postinstall = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.postinstall as string;
    expect(postinstall.indexOf('scripts/check-dev-install.cjs')).toBeGreaterThan(-1);
    expect(postinstall.indexOf('scripts/check-dev-install.cjs')).toBeLessThan(postinstall.indexOf('npm run build'));
  });
});
