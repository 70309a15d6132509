// The one wake-or-poll loop of the SQLite job queue, the inbox worker and the Flow relay: a pass
// runs when this process knows of work (wake, notify), otherwise after a wait that grows while
// passes find nothing (nextPollMs), for work no wake reaches (other processes, rows due by time).
//
// Guarantees:
// 1. One pass at a time. A wake during a pass runs another right after it, so work that arrived
//    while a pass ran is never left to the next poll.
// 2. notify() means work arrived: the wait goes back to its base, and a pass runs.
// 3. at(t): a pass runs at t at the latest (this process's delayed work comes due), even when t is
//    recorded during a pass: the times a pass started before are forgotten after it, the earliest of
//    the rest arms the timer.
// 4. A pass that throws counts as one that found work (the next poll comes at the base wait); its
//    error goes to onError.
// 5. stop() clears the timer and waits for the pass under way; no pass starts after it.
import { DueTimes, nextPollMs } from './policy.ts';

export interface PollLoopOptions {
  /** The wait after a pass that found work. */
  baseMs: number;
  /** While passes find nothing, the wait doubles up to limit × baseMs. */
  limit: number;
  /** One pass, started at `startedAt` (epoch ms); resolves whether it found work. */
  pass: (startedAt: number) => Promise<boolean>;
  onError: (e: unknown) => void;
  /** The timer does not hold the process open. */
  unref?: boolean;
}

export class PollLoop {
  readonly #o: PollLoopOptions;
  readonly #due = new DueTimes();
  #waitMs: number;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  /** When #timer fires. */
  #timerAt = 0;
  #pass: Promise<void> | null = null;
  #again = false;

  constructor(o: PollLoopOptions) {
    this.#o = o;
    this.#waitMs = o.baseMs;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Starts polling: the first pass runs now with `passNow`, otherwise after the base wait or at the next wake. */
  start(opts: { passNow?: boolean } = {}): void {
    this.#running = true;
    if (opts.passNow) this.wake();
    else this.#arm(Math.min(Date.now() + this.#waitMs, this.#due.next(-Infinity)));
  }

  /** Runs a pass now, or right after the one under way. */
  wake(): void {
    if (!this.#running) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    this.#clear();
    const startedAt = Date.now();
    let found = true;
    this.#pass = this.#o
      .pass(startedAt)
      .then((f) => {
        found = f;
      }, this.#o.onError)
      .finally(() => {
        this.#pass = null;
        this.#waitMs = nextPollMs(this.#waitMs, this.#o.baseMs, this.#o.baseMs * this.#o.limit, found);
        if (!this.#running) return;
        if (this.#again) {
          this.#again = false;
          this.wake();
        } else {
          this.#arm(Math.min(Date.now() + this.#waitMs, this.#due.next(startedAt)));
        }
      });
  }

  /** Work arrived: the wait goes back to its base, and a pass runs. */
  notify(): void {
    this.#waitMs = this.#o.baseMs;
    this.wake();
  }

  /** A pass runs at `time` (epoch ms) at the latest; a pass under way arms its successor by it. */
  at(time: number): void {
    this.#due.add(time); // also before start(): start() arms by it
    if (this.#running && !this.#pass) this.#arm(time);
  }

  /** Resolves once no pass is running. */
  async idle(): Promise<void> {
    while (this.#pass) await this.#pass;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#clear();
    await this.idle();
  }

  #arm(time: number): void {
    if (this.#timer && this.#timerAt <= time) return;
    this.#clear();
    this.#timerAt = time;
    this.#timer = setTimeout(() => this.wake(), Math.max(0, time - Date.now()));
    if (this.#o.unref) this.#timer.unref();
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
