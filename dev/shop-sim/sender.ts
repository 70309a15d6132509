// The shop simulator's webhook sender: POSTs a delivery to the app signed as Shopify signs
// webhooks (base64 HMAC-SHA256 of the raw body under the app's API secret) with Shopify's
// X-Shopify-* headers, and retries non-2xx answers and network errors with the same webhook
// id and body, as Shopify does (on a shorter schedule). It records each attempt on the delivery.
import { Agent, request } from 'undici';
import type { Logger } from '../../web/ops/logger.ts';
import { signWebhookBody } from './auth.ts';
import type { SimSettings, WebhookDeliveryView } from './types.ts';

export const WEBHOOK_API_VERSION = '2026-10';

/** A webhook delivery as the simulator keeps it: the view plus the exact bytes sent. */
export interface Delivery extends Omit<WebhookDeliveryView, 'payload'> {
  body: string;
}

export class ShopWebhookSender {
  readonly #apiSecret: string;
  readonly #settings: () => SimSettings;
  readonly #log: Logger | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #agent = new Agent({ keepAliveTimeout: 1_000, connect: { timeout: 5_000 } });
  #closed = false;

  constructor(o: { apiSecret: string; settings: () => SimSettings; log?: Logger | undefined }) {
    this.#apiSecret = o.apiSecret;
    this.#settings = o.settings;
    this.#log = o.log;
  }

  /** The first attempt; retries follow on their own. */
  send(d: Delivery): Promise<void> {
    return this.#track(this.#attempt(d));
  }

  /** Scheduled retries are dropped (the control API's reset). */
  cancelRetries(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  /** No more attempts start (closing). */
  halt(): void {
    this.#closed = true;
    this.cancelRetries();
  }

  async close(): Promise<void> {
    this.halt();
    await this.#agent.destroy(); // aborts sends still waiting on a slow receiver
    await Promise.allSettled([...this.#inflight]);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p)).catch(() => {});
    return p;
  }

  async #attempt(d: Delivery): Promise<void> {
    if (this.#closed) return;
    const settings = this.#settings();
    const n = d.attempts.length + 1;
    const started = Date.now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Shopify-Captain-Hook',
      'x-shopify-topic': d.topic,
      'x-shopify-shop-domain': d.shop,
      'x-shopify-webhook-id': d.webhookId,
      'x-shopify-event-id': d.eventId,
      'x-shopify-triggered-at': d.triggeredAt,
      'x-shopify-api-version': WEBHOOK_API_VERSION,
      'x-shopify-hmac-sha256': signWebhookBody(d.body, this.#apiSecret),
    };
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await request(d.url, {
        method: 'POST', headers, body: d.body, dispatcher: this.#agent,
        signal: AbortSignal.timeout(settings.webhookTimeoutMs), headersTimeout: settings.webhookTimeoutMs, bodyTimeout: settings.webhookTimeoutMs,
      });
      status = res.statusCode;
      await res.body.dump();
    } catch (e) {
      const err = e as { code?: string; name?: string; message?: string };
      error = err.name === 'TimeoutError' ? `no answer within ${settings.webhookTimeoutMs} ms` : (err.code ?? err.message ?? 'network error');
    }
    const ok = status !== null && status >= 200 && status < 300;
    d.attempts.push({ attempt: n, at: new Date(started).toISOString(), status, error, ms: Date.now() - started });
    const delays = this.#settings().webhookRetryDelaysMs;
    if (ok) d.state = 'delivered';
    else if (n <= delays.length && !this.#closed) {
      d.state = 'retrying';
      const t = setTimeout(() => {
        this.#timers.delete(t);
        void this.#track(this.#attempt(d));
      }, delays[n - 1]);
      t.unref();
      this.#timers.add(t);
    } else d.state = 'failed';
    this.#log?.[ok ? 'info' : 'warn']({ topic: d.topic, shop: d.shop, webhookId: d.webhookId, attempt: n, status, error, state: d.state }, ok ? 'webhook delivered' : 'webhook delivery failed');
  }
}
