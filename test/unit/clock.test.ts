// The app's clock (web/ops/clock.ts): a moved clock is for development; production refuses it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFileClock, moveFileClock } from '../../dev/clock.ts';
import { appClock, ClockRefusedError, installClock, systemClock } from '../../web/ops/clock.ts';

const moved = { now: () => 0 };

describe('clock', () => {
  afterEach(() => installClock(systemClock, 'test'));

  it('is the system clock unless one is installed', () => {
    expect(appClock('production')).toBe(systemClock);
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(1_000);
  });

  it('development may install a moved clock', () => {
    installClock(moved, 'development');
    expect(appClock('development')).toBe(moved);
  });

  it('production refuses to install one', () => {
    expect(() => installClock(moved, 'production')).toThrow(ClockRefusedError);
    expect(appClock('production')).toBe(systemClock);
  });

  it('production refuses to start on one installed earlier', () => {
    installClock(moved, 'development');
    expect(() => appClock('production')).toThrow(ClockRefusedError);
  });

  it('the development file clock (dev/clock.ts) moves when its file is written, and wakes its listeners', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-clock-'));
    try {
      const file = join(dir, 'dev-clock'); // not there yet: the directory is watched
      installFileClock(file);
      const clock = appClock('development');
      let jumps = 0;
      clock.onJump?.(() => jumps++);
      const to = Date.now() + 3_600_000;
      moveFileClock(file, to);
      await vi.waitFor(() => expect(jumps).toBe(1), { timeout: 3_000, interval: 10 });
      expect(Math.abs(clock.now() - to)).toBeLessThan(1_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
