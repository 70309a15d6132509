// POST /api/webhooks: Shopify's webhooks, app-specific subscriptions declared in
// shopify.app.toml. Intake only (issue 24): check the HMAC on the raw bytes and
// the required headers, store the raw body (encrypted: an order names its
// customer) in ONE insert into the inbox, answer 200. The inbox worker
// (web/inbox/worker.ts) does the rest. Mount before any JSON body parser.
//
// Guarantees: a 200 means the row is committed (kill -9 after it loses
// nothing); a repeat of a webhook id inserts nothing (ON CONFLICT DO NOTHING)
// and gets 200 { duplicate: true }; a bad or missing HMAC gets 401 and stores
// nothing; a body that cannot be processed is failed in the inbox, where the
// operator sees it (`npm run cli -- inbox`, /metrics), never dropped silently.
import express, { type Request, type Response } from 'express';
import type { Database } from '../db/client.ts';
import type { Logger } from '../ops/logger.ts';
import { startIntakeTimer } from '../ops/metrics.ts';
import type { SecretBox } from '../security/crypto.ts';
import { dbTime, type Provider } from '../db/raw-sql.ts';
import { insertSql } from '../inbox/sql.ts';
import { verifyShopifyHmac } from '../shopify/hmac.ts';
import { answerOnExpress, type BareAnswer, type BareHandler } from '../ops/bare-http.ts';

export type { TopicHandler, TopicHandlers, WebhookContext } from '../inbox/shopify.ts';

/** The headers Shopify sends with every webhook, as @shopify/shopify-api names them in missingHeaders. */
const REQUIRED = [
  ['x-shopify-topic', 'X-Shopify-Topic'],
  ['x-shopify-shop-domain', 'X-Shopify-Shop-Domain'],
  ['x-shopify-api-version', 'X-Shopify-API-Version'],
  ['x-shopify-webhook-id', 'X-Shopify-Webhook-Id'],
] as const;

/** orders/paid → ORDERS_PAID, as the library stores topics. */
export const topicForStorage = (topic: string) => topic.toUpperCase().replace(/\/|\./g, '_');

export interface WebhookIntakeDeps {
  apiSecret: string;
  /** Its execute(): the insert is one statement outside Prisma (web/db/client.ts). */
  database: Pick<Database, 'execute'>;
  provider: Provider;
  box: SecretBox;
  /** Topics the inbox worker handles (storage form); others are acknowledged and not stored. */
  topics: ReadonlySet<string>;
  /** Tells the inbox worker after an insert. */
  received(): void;
  now(): number;
  log: Logger;
}

/** Shopify's webhook bodies are at most this large here (body-parser's '1mb'). */
export const SHOPIFY_WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * The intake itself, for either server of POST /api/webhooks: Express (shopifyWebhookRoute) or the
 * bare route answered before Express (web/ops/bare-http.ts, mounted by web/app.ts buildHandler).
 */
export function shopifyWebhookIntake(deps: WebhookIntakeDeps): BareHandler {
  const insert = insertSql(deps.provider);
  return async (raw, header, log) => {
    const done = startIntakeTimer('shopify');
    const answer = (status: number, body: object): BareAnswer => {
      done(status);
      return { status, body };
    };
    // Shopify's mandatory-webhook rules (and its App Store check): 401 whenever the HMAC is missing
    // or does not verify. A body that is missing cannot be verified either.
    if (!verifyShopifyHmac(raw, header('x-shopify-hmac-sha256'), deps.apiSecret)) {
      const reason = raw.length === 0 ? 'missing_body' : header('x-shopify-hmac-sha256') ? 'invalid_hmac' : 'missing_hmac';
      log().warn({ reason }, 'shopify webhook rejected');
      return answer(401, { error: 'HMAC validation failed' });
    }
    const missing = REQUIRED.filter(([h]) => !header(h)).map(([, name]) => name);
    if (missing.length) {
      log().warn({ reason: 'missing_headers', missingHeaders: missing }, 'shopify webhook rejected');
      return answer(400, { error: 'invalid webhook request: missing_headers', missingHeaders: missing });
    }
    const topic = topicForStorage(header('x-shopify-topic')!);
    const shop = header('x-shopify-shop-domain')!;
    const webhookId = header('x-shopify-webhook-id')!;
    if (!deps.topics.has(topic)) {
      // Not subscribed in shopify.app.toml; acknowledge so Shopify stops retrying, but make it visible.
      log().warn({ shop, topic, webhookId }, 'shopify webhook for a topic with no handler; acknowledged and ignored');
      return answer(200, { ok: true, ignored: true });
    }
    const now = deps.now();
    let inserted: number;
    try {
      inserted = await deps.database.execute(insert, ['shopify', webhookId, topic, shop, deps.box.encrypt(raw.toString('utf8')), dbTime(deps.provider, now), dbTime(deps.provider, now)]);
    } catch (e) {
      log().error({ err: (e as Error).message, shop, topic, webhookId }, 'shopify webhook could not be stored; Shopify will retry');
      return answer(503, { error: 'webhook could not be stored; it will be retried' });
    }
    if (inserted === 0) {
      log().info({ shop, topic, webhookId }, 'duplicate shopify webhook acknowledged');
      return answer(200, { ok: true, duplicate: true });
    }
    deps.received();
    return answer(200, { ok: true });
  };
}

/** POST /api/webhooks on Express: what the bare route declines (chunked or compressed bodies). */
export function shopifyWebhookRoute(intake: BareHandler, log: Logger) {
  return [
    express.raw({ type: () => true, limit: SHOPIFY_WEBHOOK_BODY_LIMIT }),
    async (req: Request, res: Response) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      answerOnExpress(res, await intake(raw, (h) => req.get(h), () => res.locals.log ?? log, req.path));
    },
  ];
}
