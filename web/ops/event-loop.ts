// The event loop's delay for /metrics (nodejs_eventloop_lag_*), sampled only while the loop has work.
// prom-client samples it every 10 ms for ever: 100 wake-ups a second, about a quarter of an idle
// app's CPU (docs/benchmarks.md, twenty-third session). Here a check once a second reads the loop's
// utilisation (libuv's own counters, no timer of its own) and samples every 10 ms only after a second
// in which the loop was busy more than `busyShare` of the time. A loop that mostly waits has no delay
// to measure: at 2 % a sale's bookings (13 % busy, paced by Shopify's bucket) kept it sampling for
// minutes, 100 wake-ups a second (docs/benchmarks.md, thirty-eighth session).
// Not covered: a single long block in an otherwise idle second is not sampled (the next second is).
//
// Node records the whole interval between two samples, so prom-client's figures carried the 10 ms
// (an idle loop read 0.010 s). These are the delay past the interval: an idle loop reads 0.
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelayOptions {
  /** Sampling interval while busy (default 10 ms, as prom-client). */
  resolutionMs?: number;
  /** How often the loop's utilisation is checked (default 1 s). */
  checkMs?: number;
  /** Sampling runs after a check interval busier than this share (default 0.5). */
  busyShare?: number;
}

export interface LoopDelay {
  min: number;
  max: number;
  mean: number;
  stddev: number;
  p50: number;
  p90: number;
  p99: number;
}

const BUSY_SHARE = 0.5;

const NONE: LoopDelay = { min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0 };

export class LoopDelayMonitor {
  readonly #histogram: IntervalHistogram;
  readonly #resolutionNs: number;
  readonly #busyShare: number;
  readonly #timer: NodeJS.Timeout;
  #last: EventLoopUtilization = performance.eventLoopUtilization();
  #sampling = false;

  constructor(opts: LoopDelayOptions = {}) {
    const resolution = opts.resolutionMs ?? 10;
    this.#resolutionNs = resolution * 1e6;
    this.#busyShare = opts.busyShare ?? BUSY_SHARE;
    this.#histogram = monitorEventLoopDelay({ resolution });
    this.#timer = setInterval(() => this.check(), opts.checkMs ?? 1000).unref();
  }

  /** Samples while the loop was busy over busyShare since the last check; stops after a quieter one. */
  check(): void {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.#last).utilization > this.#busyShare;
    this.#last = now;
    if (busy === this.#sampling) return;
    if (busy) this.#histogram.enable();
    else this.#histogram.disable();
    this.#sampling = busy;
  }

  get sampling(): boolean {
    return this.#sampling;
  }

  /** The delays sampled since the last read, in seconds past the interval (zeros if none), and starts afresh. */
  read(): LoopDelay {
    const h = this.#histogram;
    const past = (ns: number) => Math.max(0, ns - this.#resolutionNs) / 1e9;
    const r = h.count === 0 ? NONE : { min: past(h.min), max: past(h.max), mean: past(h.mean), stddev: h.stddev / 1e9, p50: past(h.percentile(50)), p90: past(h.percentile(90)), p99: past(h.percentile(99)) };
    h.reset();
    return r;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#histogram.disable();
    this.#sampling = false;
  }
}
