// The wake-or-poll loop of the SQLite job queue, the inbox worker and the Flow relay (web/jobs/poll-loop.ts),
// on fake timers: its back-off, wakes, due times, errors and stop, as its guarantees state them.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PollLoop, type PollLoopOptions } from '../../web/jobs/poll-loop.ts';

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

/** A loop whose passes record their start and answer `found` (or what `answer` gives). */
function loopOf(o: Partial<PollLoopOptions> & { answer?: (n: number) => boolean | Promise<boolean> } = {}) {
  const passes: number[] = [];
  const errors: unknown[] = [];
  const loop = new PollLoop({
    baseMs: 100,
    limit: 4,
    pass: async (startedAt) => {
      passes.push(startedAt);
      return (await o.answer?.(passes.length)) ?? false;
    },
    onError: (e) => errors.push(e),
    ...o,
  });
  return { loop, passes, errors };
}

describe('PollLoop', () => {
  it('waits twice as long after each pass that found nothing, up to limit × base, and the base again after one that found work', async () => {
    const { loop, passes } = loopOf({ answer: (n) => n === 4 });
    loop.start();
    await vi.advanceTimersByTimeAsync(2_000);
    // 100 (nothing) → +200 (nothing) → +400 (nothing) → +400 (found) → +100 → +200 …
    expect(passes.slice(0, 7)).toEqual([100, 300, 700, 1_100, 1_200, 1_400, 1_800]);
    await loop.stop();
  });

  it('notify() runs a pass at once and brings the wait back to its base', async () => {
    const { loop, passes } = loopOf();
    loop.start();
    await vi.advanceTimersByTimeAsync(1_000); // passes at 100, 300, 700; the next wait is 400
    loop.notify();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toEqual([100, 300, 700, 1_000]);
    await vi.advanceTimersByTimeAsync(200); // from the base: 100 → 200 after a pass that found nothing (not 400)
    expect(passes).toEqual([100, 300, 700, 1_000, 1_200]);
    await loop.stop();
  });

  it('a wake during a pass runs one more pass right after it, not a pass each', async () => {
    let release!: () => void;
    const { loop, passes } = loopOf({ answer: (n) => (n === 1 ? new Promise<boolean>((r) => (release = () => r(false))) : false) });
    loop.start();
    loop.wake();
    loop.wake();
    loop.wake();
    expect(passes).toEqual([0]);
    await vi.advanceTimersByTimeAsync(50);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toEqual([0, 50]);
    await loop.stop();
  });

  it('at(t) runs a pass by t however far the wait has grown, also when t was recorded during a pass or before start()', async () => {
    let loop!: PollLoop;
    const r = loopOf({ answer: (n) => { if (n === 1) loop.at(750); return false; } }); // recorded during the first pass
    loop = r.loop;
    const { passes } = r;
    loop.at(50); // before start(): start() arms by it
    loop.start();
    await vi.advanceTimersByTimeAsync(760); // 50 (due), 250, 650, then 750 (due) before the wait of 400 is up
    expect(passes).toEqual([50, 250, 650, 750]);
    loop.at(800);
    await vi.advanceTimersByTimeAsync(100);
    expect(passes).toEqual([50, 250, 650, 750, 800]);
    loop.at(5_000); // later than the poll: the poll comes first
    await vi.advanceTimersByTimeAsync(400);
    expect(passes).toEqual([50, 250, 650, 750, 800, 1_200]);
    await loop.stop();
  });

  it('start({ passNow }) runs the first pass at once', async () => {
    const { loop, passes } = loopOf();
    loop.start({ passNow: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toEqual([0]);
    await vi.advanceTimersByTimeAsync(200); // it found nothing: the next wait is 200
    expect(passes).toEqual([0, 200]);
    await loop.stop();
  });

  it('a pass that throws goes to onError and the next poll comes at the base wait', async () => {
    const boom = new Error('database is locked');
    const { loop, passes, errors } = loopOf({ answer: (n) => { if (n === 3) throw boom; return false; } });
    loop.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toEqual([boom]);
    expect(passes.slice(0, 5)).toEqual([100, 300, 700, 800, 1_000]);
    await loop.stop();
  });

  it('stop() waits for the pass under way, and no pass runs after it', async () => {
    let release!: () => void;
    const { loop, passes } = loopOf({ answer: (n) => (n === 1 ? new Promise<boolean>((r) => (release = () => r(true))) : false) });
    loop.start();
    loop.wake();
    loop.wake(); // would run again after the pass
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(vi.getTimerCount()).toBe(0); // nothing left to hold the process open
    loop.wake();
    loop.notify();
    loop.at(2_000);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passes).toEqual([0]);
    expect(loop.running).toBe(false);

    let end!: () => void; // stopped during a pass nothing woke again: the pass sets no poll after it
    const quiet = loopOf({ answer: () => new Promise<boolean>((r) => (end = () => r(false))) }).loop;
    quiet.start();
    quiet.wake();
    const quietStop = quiet.stop();
    end();
    await quietStop;
    expect(vi.getTimerCount()).toBe(0);

    const waiting = loopOf().loop; // stopped while its poll timer is armed
    waiting.start();
    expect(vi.getTimerCount()).toBe(1);
    await waiting.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does nothing before start()', async () => {
    const { loop, passes } = loopOf();
    loop.wake();
    loop.notify();
    loop.at(50);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([[true, false], [false, true]])('unref %s: the poll timer holds the process open: %s', (unref, held) => {
    const { loop } = loopOf({ unref });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    loop.start();
    const timer = timers.mock.results.at(-1)?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(held);
    timers.mockRestore();
  });
});
