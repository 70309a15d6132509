// The event-loop delay sampler behind /metrics' nodejs_eventloop_lag_* (web/ops/event-loop.ts): it samples
// only after a busy check interval, and reports the delay past its sampling interval.
import { afterEach, describe, expect, it } from 'vitest';
import { LoopDelayMonitor } from '../../web/ops/event-loop.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const block = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

let monitor: LoopDelayMonitor | undefined;
afterEach(() => monitor?.stop());

describe('LoopDelayMonitor', () => {
  it('does not sample an idle loop, samples after a busy interval, and stops after a quiet one', async () => {
    // Checks only when the test calls check(). A share of 20 %, not 2 %: a loaded machine (the test
    // runner's own messages, coverage) keeps this worker's loop busy a few ms in 200 ms.
    monitor = new LoopDelayMonitor({ checkMs: 3_600_000, busyShare: 0.2 });
    await sleep(200);
    monitor.check();
    expect(monitor.sampling).toBe(false);
    block(100);
    monitor.check();
    expect(monitor.sampling).toBe(true);
    await sleep(300);
    monitor.check();
    expect(monitor.sampling).toBe(false);
  });

  it('by default does not sample a loop that mostly waits (a sale\'s bookings paced by Shopify)', async () => {
    monitor = new LoopDelayMonitor({ checkMs: 3_600_000 });
    await sleep(20);
    monitor.check();
    for (let i = 0; i < 4; i++) {
      block(15); // 15 ms in every ~50: a quarter to a third of the time
      await sleep(35);
    }
    monitor.check();
    expect(monitor.sampling).toBe(false);
    block(200);
    monitor.check();
    expect(monitor.sampling).toBe(true);
  });

  it('reads the delay past the sampling interval, zeros when nothing was sampled, and starts afresh after a read', async () => {
    monitor = new LoopDelayMonitor({ checkMs: 3_600_000, resolutionMs: 10 });
    await sleep(50);
    expect(monitor.read()).toEqual({ min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0 });
    block(50);
    monitor.check(); // busy: sampling from here
    for (let i = 0; i < 5; i++) {
      await sleep(15);
      block(60);
    }
    await sleep(30);
    const d = monitor.read();
    // A 60 ms block holds a 10 ms sample up to 60 ms late: past the interval, well over 30 ms; an on-time one reads about 0.
    expect(d.max).toBeGreaterThan(0.03);
    expect(d.max).toBeLessThan(0.2);
    expect(d.min).toBeLessThan(0.01);
    expect(monitor.read().max).toBeLessThan(0.03); // the blocks were read and forgotten
  });
});
