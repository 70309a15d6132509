// A worker's base: runs its pass (drain until empty) on notify() or every pollMs, never two at once:
// a notify() during a pass runs another right after it. Shared by the webhook inbox worker and
// the courier event worker.
export abstract class PassRunner {
  readonly #pollMs: number;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #current: Promise<void> | null = null;
  #again = false;

  constructor(pollMs: number) {
    this.#pollMs = pollMs;
  }

  /** One pass: drains until there is nothing left (or it should wait for the next poll). */
  protected abstract pass(): Promise<void>;

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    this.#running = true;
    this.notify();
  }

  /** Runs a pass now, or right after the one in progress. */
  notify(): void {
    if (!this.#running) return;
    if (this.#current) {
      this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#current = this.pass().finally(() => {
      this.#current = null;
      if (!this.#running) return;
      if (this.#again) {
        this.#again = false;
        this.notify();
      } else this.#timer = setTimeout(() => this.notify(), this.#pollMs);
    });
  }

  /** Resolves once no pass is running. */
  async idle(): Promise<void> {
    while (this.#current) await this.#current;
  }

  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.idle();
  }
}
