// One Shopify webhook from the inbox → its topic's effect, inside the inbox
// worker's transaction (moved here from the route, which now only stores it).
// The signed body decides: a body that does not match its headers is recorded
// and does nothing; a topic handler may acknowledge without effect (ignore()).
import type { Tx } from '../db/client.ts';
import type { Logger } from '../ops/logger.ts';
import { parseShopifyJson } from '../shopify/json.ts';
import { payloadMismatch } from '../shopify/webhook-guard.ts';
import { storableDeep } from '../security/text.ts';
import type { Provider } from '../db/raw-sql.ts';
import { insertReceipt } from './sql.ts';

export interface WebhookContext {
  tx: Tx;
  shop: string;
  topic: string;
  webhookId: string;
  payload: any;
  log: Logger;
  /** Runs after the transaction commits (e.g. wake a worker). Failures are logged, not returned. */
  afterCommit(fn: () => unknown): void;
  /** Acknowledge without effect: the reason is kept on the receipt (e.g. the shop is not installed). */
  ignore(reason: string): void;
  /** True on the rerun after a unique violation: a handler may skip existence checks until then. */
  rerun: boolean;
}

export type TopicHandler = (ctx: WebhookContext) => Promise<void>;
/** Keyed by the library's storage form of the topic, e.g. ORDERS_PAID. */
export type TopicHandlers = Record<string, TopicHandler>;

/** A webhook that can never be processed (its body is not JSON): failed at once, for the operator. */
export class UnprocessableWebhook extends Error {}

export interface ShopifyInput {
  webhookId: string;
  topic: string;
  shop: string;
  /** The raw body, decrypted. */
  body: string;
}

/** Returns the outcome to record when the webhook was acknowledged without effect, else null. Throws to roll back. */
export async function processShopifyWebhook(
  tx: Tx,
  w: ShopifyInput,
  handlers: TopicHandlers,
  opts: { log: Logger; rerun: boolean; afterCommit: (fn: () => unknown) => void; provider: Provider; now: number },
): Promise<string | null> {
  let payload: unknown;
  try {
    // Strings a database cannot store (NUL, lone surrogates) become U+FFFD; Shopify keeps the original order.
    payload = storableDeep(parseShopifyJson(w.body));
  } catch {
    throw new UnprocessableWebhook('the body is not valid JSON');
  }
  const mismatch = payloadMismatch(w.topic, w.shop, payload);
  const handler = handlers[w.topic];
  let outcome: string | null = mismatch ? `ignored: ${mismatch}` : !handler ? 'ignored: no handler for this topic' : null;
  // The receipt: a webhook id seen before the inbox existed (or after its row was pruned) does nothing.
  if (!(await insertReceipt(tx, opts.provider, { webhookId: w.webhookId, topic: w.topic, shop: w.shop, outcome }, opts.now))) return 'ignored: duplicate webhook';
  if (outcome || !handler) return outcome;
  const log = opts.log.child({ shop: w.shop, topic: w.topic, webhookId: w.webhookId });
  const ignore = (reason: string) => {
    outcome = `ignored: ${reason}`;
  };
  await handler({ tx, shop: w.shop, topic: w.topic, webhookId: w.webhookId, payload, log, afterCommit: opts.afterCommit, ignore, rerun: opts.rerun });
  if (outcome) await tx.webhookReceipt.update({ where: { webhookId: w.webhookId }, data: { outcome }, select: { id: true } });
  return outcome;
}
