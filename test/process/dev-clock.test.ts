// The movable development clock (dev/clock.ts, installed by dev/start.ts): production refuses it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';

describe('DEV_CLOCK_FILE', () => {
  it('makes dev/start.ts refuse to start in production, before the app runs', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dev/start.ts')], {
      cwd: ROOT, encoding: 'utf8', timeout: 30_000,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', DEV_CLOCK_FILE: join(ROOT, 'test-output', 'dev-clock') },
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('a moved clock is for development only; production uses the system clock');
  });
});
