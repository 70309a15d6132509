// The sandbox's webhook sender: signs per the spec (HMAC-SHA256 over "<t>.<raw body>",
// lower-case hex, the five x-service-* headers), retries non-2xx and network errors with
// the configured delays (re-signing each attempt with a fresh timestamp, same event id and
// body), and honours the duplicate / out-of-order / bad-signature / disabled switches.
// One delivery's events go out one at a time, each after the previous one's last attempt,
// so they arrive in the order they were sent; only the out-of-order switch reorders them.
// The signature code is deliberately separate from web/delivery so the contract tests
// compare two implementations.
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import type { Logger } from '../../web/ops/logger.ts';
import type { SandboxSettings, WebhookLogEntry } from './types.ts';

export interface OutgoingEvent {
  eventId: string;
  type: string;
  deliveryId: string;
  status: string;
  orderId: string | null;
  /** The JSON text, fixed once: duplicates and retries send the same bytes. */
  body: string;
  target: { url: string; secret: string };
  test: boolean;
}

const MAX_LOG = 2000;

export class WebhookSender {
  readonly #settings: () => SandboxSettings;
  readonly #now: () => number;
  readonly #log: Logger | undefined;
  readonly #agent = new Agent({ keepAliveTimeout: 1_000, connect: { timeout: 5_000 } });
  /** Retry waits; cancelling resolves them so the delivery's queue moves on. */
  readonly #timers = new Map<NodeJS.Timeout, () => void>();
  /** Per delivery: the send in progress, the next one waits for it. */
  readonly #queues = new Map<string, Promise<void>>();
  #generation = 0;
  readonly #inflight = new Set<Promise<unknown>>();
  #entries: WebhookLogEntry[] = [];
  #held: OutgoingEvent[] = [];
  #seq = 0;
  #closed = false;

  constructor(settings: () => SandboxSettings, now: () => number, log?: Logger) {
    this.#settings = settings;
    this.#now = now;
    this.#log = log;
  }

  get log(): WebhookLogEntry[] {
    return this.#entries;
  }

  get heldCount(): number {
    return this.#held.length;
  }

  /** A status event: sent now, held for out-of-order, or suppressed. */
  emit(ev: OutgoingEvent): void {
    const s = this.#settings();
    // Switched off, or the app has no webhook endpoint configured: logged, not sent.
    if (!s.webhooksEnabled || !ev.target.url) {
      this.#record(ev, { attempt: 0, result: 'suppressed', duplicate: false, timestamp: 0, badSignature: false, error: ev.target.url ? null : 'no webhook endpoint configured' });
      return;
    }
    if (s.outOfOrder) {
      this.#held.push(ev);
      this.#record(ev, { attempt: 0, result: 'held', duplicate: false, timestamp: 0, badSignature: false });
      if (this.#held.length >= Math.max(1, s.outOfOrderBatchSize)) this.flush();
      return;
    }
    this.#dispatch(ev);
  }

  /** Sends the held events, newest first. Returns how many. */
  flush(): number {
    const batch = this.#held.splice(0).reverse();
    for (const ev of batch) this.#dispatch(ev);
    return batch.length;
  }

  /** One attempt, no retry, awaited (the /v1/webhooks/test endpoint). */
  sendOnce(ev: OutgoingEvent): Promise<WebhookLogEntry> {
    return this.#track(this.#deliver(ev, 1, false));
  }

  #dispatch(ev: OutgoingEvent): void {
    const generation = this.#generation;
    const duplicate = this.#settings().duplicateSends;
    const send = async () => {
      if (generation !== this.#generation) return; // reset() since it was queued
      await Promise.all([this.#attempt(ev, 1, false), duplicate ? this.#attempt(ev, 1, true) : null]);
    };
    const queued = (this.#queues.get(ev.deliveryId) ?? Promise.resolve()).then(send, send);
    this.#queues.set(ev.deliveryId, queued);
    void this.#track(queued.finally(() => {
      if (this.#queues.get(ev.deliveryId) === queued) this.#queues.delete(ev.deliveryId);
    }));
  }

  /** This attempt and its retries; resolves after the last one. */
  async #attempt(ev: OutgoingEvent, attempt: number, duplicate: boolean): Promise<void> {
    if (this.#closed) return;
    const entry = await this.#deliver(ev, attempt, duplicate);
    const delays = this.#settings().webhookRetryDelaysMs;
    if (entry.result === 'failed' && attempt <= delays.length && !this.#closed) {
      if (await this.#wait(delays[attempt - 1]!)) await this.#attempt(ev, attempt + 1, duplicate);
    }
  }

  /** true after `ms`; false at once when reset() or close() cancels the wait. */
  #wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        resolve(true);
      }, ms);
      t.unref();
      this.#timers.set(t, () => resolve(false));
    });
  }

  #cancelWaits(): void {
    for (const [t, cancel] of this.#timers) {
      clearTimeout(t);
      cancel();
    }
    this.#timers.clear();
  }

  async #deliver(ev: OutgoingEvent, attempt: number, duplicate: boolean): Promise<WebhookLogEntry> {
    const s = this.#settings();
    const timestamp = Math.floor(this.#now() / 1000);
    // Bad-signature switch: a well-formed v1 computed with a secret the receiver does not know.
    const secret = s.badSignatures ? `${ev.target.secret}:not-the-configured-secret:${randomBytes(4).toString('hex')}` : ev.target.secret;
    const signature = createHmac('sha256', secret).update(`${timestamp}.`).update(Buffer.from(ev.body, 'utf8')).digest('hex');
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'same-day-dispatch-sandbox-courier',
      'x-service-event': ev.type,
      'x-service-event-id': ev.eventId,
      'x-service-timestamp': String(timestamp),
      'x-service-signature-version': 'v1',
      'x-service-signature': `t=${timestamp},v1=${signature}`,
    };
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const res = await request(ev.target.url, {
        method: 'POST', headers, body: ev.body, dispatcher: this.#agent,
        signal: AbortSignal.timeout(s.webhookTimeoutMs), headersTimeout: s.webhookTimeoutMs, bodyTimeout: s.webhookTimeoutMs,
      });
      httpStatus = res.statusCode;
      await res.body.dump();
    } catch (e) {
      const err = e as { code?: string; name?: string; message?: string };
      error = err.name === 'TimeoutError' ? 'timeout' : (err.code ?? err.name ?? 'network error');
    }
    const ok = httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
    const entry = this.#record(ev, { attempt, result: ok ? 'delivered' : 'failed', duplicate, timestamp, badSignature: s.badSignatures, httpStatus, error });
    this.#log?.info({ eventId: ev.eventId, status: ev.status, attempt, httpStatus, error, duplicate }, ok ? 'sandbox webhook delivered' : 'sandbox webhook failed');
    return entry;
  }

  #record(
    ev: OutgoingEvent,
    r: { attempt: number; result: WebhookLogEntry['result']; duplicate: boolean; timestamp: number; badSignature: boolean; httpStatus?: number | null; error?: string | null },
  ): WebhookLogEntry {
    const entry: WebhookLogEntry = {
      seq: ++this.#seq,
      eventId: ev.eventId,
      type: ev.type,
      deliveryId: ev.deliveryId,
      status: ev.status,
      orderId: ev.orderId,
      url: ev.target.url,
      attempt: r.attempt,
      at: new Date(this.#now()).toISOString(),
      timestamp: r.timestamp,
      result: r.result,
      httpStatus: r.httpStatus ?? null,
      error: r.error ?? null,
      badSignature: r.badSignature,
      duplicate: r.duplicate,
      test: ev.test,
    };
    this.#entries.push(entry);
    if (this.#entries.length > MAX_LOG) this.#entries = this.#entries.slice(-MAX_LOG);
    return entry;
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p)).catch(() => {});
    return p;
  }

  /** Forget pending retries, held events and the log. */
  reset(): void {
    this.#generation++;
    this.#cancelWaits();
    this.#held = [];
    this.#entries = [];
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelWaits();
    await this.#agent.destroy(); // aborts sends still waiting on a slow receiver
    await Promise.allSettled([...this.#inflight]);
  }
}
