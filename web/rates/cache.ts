// Courier quotes for checkout, cached per process by quoteCacheKey (pricing.ts):
// one courier call per (pickup store, destination, weight band) every few minutes,
// and concurrent checkouts for the same key share the one call in flight.
import type { QuoteOutcome } from './pricing.ts';

type Price = Extract<QuoteOutcome, { kind: 'price' }>;

export class QuoteCache {
  readonly #entries = new Map<string, { value: Price; expiresAt: number }>();
  readonly #inFlight = new Map<string, Promise<Price>>();
  readonly #now: () => number;
  readonly #max: number;
  hits = 0;
  misses = 0;

  constructor(opts: { now?: () => number; maxEntries?: number } = {}) {
    this.#now = opts.now ?? Date.now;
    this.#max = opts.maxEntries ?? 10_000;
  }

  /** The cached price, or `load()`'s (shared while in flight). Only prices are kept: failures are asked again next time. */
  async get(key: string, ttlMs: number, load: () => Promise<Price>): Promise<Price> {
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > this.#now()) {
      this.hits++;
      return hit.value;
    }
    const pending = this.#inFlight.get(key);
    if (pending) return pending;
    this.misses++;
    const p = load().then((value) => {
      if (ttlMs > 0) this.#set(key, value, ttlMs);
      return value;
    }).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, p);
    return p;
  }

  #set(key: string, value: Price, ttlMs: number): void {
    if (this.#entries.size >= this.#max) {
      const now = this.#now();
      for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}
