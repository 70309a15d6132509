// The app's clock (web/ops/clock.ts): a moved clock is for development; production refuses it.
import { afterEach, describe, expect, it } from 'vitest';
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
});
