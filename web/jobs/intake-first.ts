// Intake first (issue 24). A webhook's answer waits behind whatever else this
// process's event loop is running, and Shopify gives up after 5 s (then retries,
// and in the end removes a subscription that keeps failing). So while webhooks
// arrive and the loop is running late, a background job waits before it starts:
// a flash sale is acknowledged at once and worked off at the pace left over.
//
// Guarantees:
// - A job is delayed, never dropped: it waits inside its attempt, holding its
//   claim (and its ordering key), and then runs as usual.
// - It waits only while BOTH hold: a webhook arrived within `busyMs`, and the
//   loop's last measured delay is over `lagMs`. An idle or lightly loaded
//   process starts jobs at once.
// - No job waits more than `maxWaitMs` in one attempt, so background work
//   never stops under an endless stream of webhooks (runtime.ts keeps it under
//   a quarter of a pg-boss job's expiry, which the wait counts against).
// The loop delay is measured by a 10 ms timer that runs only while webhooks arrive into a loop
// busy over half its time (event-loop utilisation, libuv's own counters): a loop that mostly
// waits cannot be late. Started by every webhook, it ran for a whole sale's bookings, woken by
// the courier's events, and its 100 wake-ups a second cost more CPU than the events (docs/benchmarks.md,
// thirty-eighth session).

export interface IntakeFirstOptions {
  /** Intake counts as busy this long after its last webhook (default 100 ms). */
  busyMs?: number;
  /** Jobs wait while the event loop is later than this (default 10 ms). */
  lagMs?: number;
  /** The longest one attempt waits (default 1000 ms). */
  maxWaitMs?: number;
  /** The clock for busyMs and maxWaitMs (tests); the loop's delay is always measured in real time. */
  now?: () => number;
}

import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { recordIntakeYield } from '../ops/metrics.ts';

const PROBE_MS = 10;
const STEP_MS = 10;
/** The probe runs while the loop is busier than this share of the time: at a webhook since the last look, and in each LOOK_MS while it runs. */
const BUSY_SHARE = 0.5;
const LOOK_MS = 100;

export class IntakeFirst {
  readonly #busyMs: number;
  readonly #lagMs: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  #lastIntake = -Infinity;
  #lag = 0;
  #probe: NodeJS.Timeout | null = null;
  #expected = 0;
  #elu: EventLoopUtilization = performance.eventLoopUtilization();
  #lookAt = 0;

  constructor(opts: IntakeFirstOptions = {}) {
    this.#busyMs = opts.busyMs ?? 100;
    this.#lagMs = opts.lagMs ?? 10;
    this.#maxWaitMs = opts.maxWaitMs ?? 1000;
    this.#now = opts.now ?? (() => performance.now());
  }

  /** A webhook was received (called by the intake routes). */
  received(): void {
    this.#lastIntake = this.#now();
    if (this.#probe || !this.#loopBusy()) return;
    this.#expected = performance.now() + PROBE_MS;
    this.#lookAt = this.#expected + LOOK_MS;
    this.#probe = setInterval(() => this.#measure(), PROBE_MS).unref();
  }

  /** The loop was busy over BUSY_SHARE of the time since the last look. */
  #loopBusy(): boolean {
    const elu = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(elu, this.#elu).utilization;
    this.#elu = elu;
    return share > BUSY_SHARE;
  }

  /** Webhooks arrived within busyMs. */
  get busy(): boolean {
    return this.#now() - this.#lastIntake < this.#busyMs;
  }

  /** The event loop's last measured delay, in ms (0 while no webhooks arrive). */
  get lagMs(): number {
    return this.#lag;
  }

  /** True while background work should wait: intake is busy and the loop is late. */
  get yielding(): boolean {
    return this.busy && this.#lag > this.#lagMs;
  }

  /** Resolves when a background job may start (at once unless `yielding`); `signal` ends the wait early. */
  async turn(signal?: AbortSignal): Promise<void> {
    if (!this.yielding) return;
    const start = this.#now();
    const started = performance.now();
    while (this.yielding && !signal?.aborted && this.#now() - start < this.#maxWaitMs) {
      await new Promise((r) => setTimeout(r, STEP_MS));
    }
    recordIntakeYield((performance.now() - started) / 1000);
  }

  stop(): void {
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
    this.#lag = 0;
  }

  #measure(): void {
    const t = performance.now();
    this.#lag = Math.max(0, t - this.#expected);
    this.#expected = t + PROBE_MS;
    // No webhooks for a while, or a loop that mostly waits again: stop measuring (no timer in an idle process).
    if (!this.busy) this.stop();
    else if (t >= this.#lookAt) {
      this.#lookAt = t + LOOK_MS;
      if (!this.#loopBusy()) this.stop();
    }
  }
}
