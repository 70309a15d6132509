// Watches one shop's orders across the three systems and prints one line per
// step per order as it happens: paid → dispatched (price, job id) → each courier
// status (the webhook the app accepted) → the Shopify fulfillment and its events.
//
// Sources, all public: the simulator's order introspection (fulfillments, events,
// tags, metafields), the sandbox's orders and webhook log, and the operator CLI's
// `deliveries --json` for what only the app knows (needs attention, skipped and
// why). The CLI is a process start per call, so it is asked only while some order
// has no courier order yet, at most every `cliEveryMs`, and off the polling path.
import type { SandboxOrderSnapshot, WebhookLogEntry } from '../sandbox/types.ts';
import type { SimOrderView } from '../shop-sim/control.ts';
import { appDeliveries, shopDomain, type AppDelivery } from './merchant.ts';
import type { Stack } from './stack.ts';

interface Seen {
  paid: boolean;
  dispatched: boolean;
  courierEvents: Set<string>;
  fulfillment: boolean;
  shopifyEvents: Set<string>;
  tagged: boolean;
  appStatus: string | null;
}

export interface Snapshot {
  orders: SimOrderView[];
  courierOrders: SandboxOrderSnapshot[];
  deliveries: AppDelivery[];
}

const COLUMNS = { time: 8, order: 7, label: 24, step: 16 };

export function formatMoney(amount: string | null | undefined, currency: string | null | undefined): string {
  return amount ? `${amount} ${currency ?? ''}`.trim() : '-';
}

export class ProgressTracker {
  readonly #stack: Stack;
  readonly #shop: string;
  readonly #print: (line: string) => void;
  readonly #labels = new Map<string, string>();
  readonly #seen = new Map<string, Seen>();
  readonly #t0: number;
  readonly #cliEveryMs: number;
  #deliveries: AppDelivery[] = [];
  #cliAt = 0;
  #cliRunning: Promise<void> | null = null;
  #cliError: string | null = null;
  #silent = false;

  constructor(stack: Stack, shop: string, print: (line: string) => void, opts: { t0?: number; cliEveryMs?: number } = {}) {
    this.#stack = stack;
    this.#shop = shopDomain(shop);
    this.#print = print;
    this.#t0 = opts.t0 ?? Date.now();
    this.#cliEveryMs = opts.cliEveryMs ?? 1_500;
  }

  label(orderId: string, text: string): void {
    this.#labels.set(orderId, text);
  }

  /** One progress line, aligned: time, order, label, step, detail. */
  line(order: { id: string; name: string } | null, step: string, detail = ''): void {
    if (this.#silent) return;
    const t = `+${((Date.now() - this.#t0) / 1000).toFixed(1)}s`.padStart(COLUMNS.time - 1);
    const name = (order?.name ?? '').padEnd(COLUMNS.order);
    const label = (order ? this.#labels.get(order.id) ?? '' : '').slice(0, COLUMNS.label - 1).padEnd(COLUMNS.label);
    this.#print(`${t}  ${name}${label}${step.padEnd(COLUMNS.step)}${detail}`.trimEnd());
  }

  static header(): string {
    return `${'TIME'.padStart(COLUMNS.time - 1)}  ${'ORDER'.padEnd(COLUMNS.order)}${'WHERE'.padEnd(COLUMNS.label)}${'STEP'.padEnd(COLUMNS.step)}DETAIL`;
  }

  #state(id: string): Seen {
    let s = this.#seen.get(id);
    if (!s) {
      s = { paid: false, dispatched: false, courierEvents: new Set(), fulfillment: false, shopifyEvents: new Set(), tagged: false, appStatus: null };
      this.#seen.set(id, s);
    }
    return s;
  }

  /** Prints the "paid" step (the caller placed the order and saw the webhook's answer). */
  paid(order: { id: string; name: string }, detail: string): void {
    this.#state(order.id).paid = true;
    this.line(order, 'paid', detail);
  }

  /** An order placed by someone else (e.g. curl in --serve mode): its paid line, labelled from the payload. */
  async #paidFromSimulator(o: SimOrderView, seen: Seen): Promise<void> {
    const w = o.webhooks.find((x) => x.topic === 'orders/paid' && x.state === 'delivered');
    if (!w) return;
    seen.paid = true;
    const full = await this.#stack.sim.webhook(w.seq).catch(() => null);
    if (!this.#labels.has(o.id)) {
      const p = (full?.payload ?? {}) as { shipping_address?: { city?: string } | null; test?: boolean };
      this.#labels.set(o.id, `${p.shipping_address?.city ?? o.shippingLines[0]?.title ?? ''}${p.test ? ' (test order)' : ''}`);
    }
    const status = full?.attempts.at(-1)?.status;
    this.line(o, 'paid', `orders/paid → app: ${status ? `HTTP ${status}` : 'delivered'}`);
  }

  get deliveries(): AppDelivery[] {
    return this.#deliveries;
  }

  get cliError(): string | null {
    return this.#cliError;
  }

  /** Asks the app (CLI) now and waits for the answer. */
  async refreshDeliveries(): Promise<AppDelivery[]> {
    if (this.#cliRunning) await this.#cliRunning;
    this.#cliAt = Date.now();
    this.#deliveries = await appDeliveries(this.#stack, this.#shop);
    this.#cliError = null;
    return this.#deliveries;
  }

  #maybeAskApp(orders: SimOrderView[], courierOrders: SandboxOrderSnapshot[]): void {
    if (this.#cliRunning || Date.now() - this.#cliAt < this.#cliEveryMs) return;
    const undecided = orders.some((o) => {
      if (courierOrders.some((c) => c.reference === o.id)) return false;
      const d = this.#deliveries.find((x) => x.shopifyOrderId === o.id);
      return !d || d.status === 'PENDING';
    });
    if (!undecided) return;
    this.#cliAt = Date.now();
    this.#cliRunning = appDeliveries(this.#stack, this.#shop)
      .then((d) => {
        this.#deliveries = d;
        this.#cliError = null;
      })
      .catch((e) => {
        this.#cliError = (e as Error).message;
      })
      .finally(() => {
        this.#cliRunning = null;
      });
  }

  /** Reads everything once and prints what is new (`silent`: only remembers it as seen). */
  async poll(opts: { silent?: boolean } = {}): Promise<Snapshot> {
    this.#silent = !!opts.silent;
    try {
      return await this.#poll();
    } finally {
      this.#silent = false;
    }
  }

  async #poll(): Promise<Snapshot> {
    const [orders, courierOrders, webhooks] = await Promise.all([
      this.#stack.sim.orders(this.#shop),
      this.#stack.courier.orders(),
      this.#stack.courier.webhookLog(),
    ]);
    this.#maybeAskApp(orders, courierOrders);
    const accepted = new Map<string, WebhookLogEntry>();
    for (const w of webhooks) if (w.result === 'delivered' && !w.test && !accepted.has(w.eventId)) accepted.set(w.eventId, w);

    for (const o of orders) {
      const seen = this.#state(o.id);
      if (!seen.paid) await this.#paidFromSimulator(o, seen);
      const mine = courierOrders.filter((c) => c.reference === o.id);
      for (const c of mine) {
        if (!seen.dispatched) {
          seen.dispatched = true;
          this.line(o, 'dispatched', `${formatMoney(c.deliveryPrice, c.currency).padEnd(12)}job id ${c.dispatchId}`);
        }
        for (const h of c.history) {
          const w = accepted.get(h.eventId);
          if (!w || seen.courierEvents.has(h.eventId)) continue;
          seen.courierEvents.add(h.eventId);
          this.line(o, 'courier status', `${h.status.padEnd(18)}webhook → app: HTTP ${w.httpStatus}`);
        }
      }
      const d = this.#deliveries.find((x) => x.shopifyOrderId === o.id);
      if (d && d.status !== seen.appStatus) {
        seen.appStatus = d.status;
        if (d.status === 'NEEDS_ATTENTION') this.line(o, 'needs attention', d.reason ?? '');
        else if (d.status === 'SKIPPED') this.line(o, 'skipped', d.reason ?? '');
        else if (d.status === 'FAILED') this.line(o, 'failed', d.reason ?? '');
      }
      const f = o.fulfillments[0];
      if (f && !seen.fulfillment) {
        seen.fulfillment = true;
        this.line(o, 'fulfillment', `created in Shopify, tracking ${f.trackingInfo.number} (${f.trackingInfo.company ?? 'no company'})`);
      }
      for (const ff of o.fulfillments) {
        for (const e of ff.events) {
          if (seen.shopifyEvents.has(e.id)) continue;
          seen.shopifyEvents.add(e.id);
          this.line(o, 'shopify event', e.status);
        }
      }
      if (!seen.tagged && o.tags.includes('same-day-dispatched')) {
        seen.tagged = true;
        this.line(o, 'shopify order', 'tagged same-day-dispatched; delivery metafields set (job id, price, status)');
      }
    }
    return { orders, courierOrders, deliveries: this.#deliveries };
  }
}
