// POST /api/webhooks: Shopify's webhooks, app-specific subscriptions declared in
// shopify.app.toml. We validate with the library's HMAC check but route
// ourselves: shopify.processWebhooks() would also register shop-specific
// subscriptions on OAuth, and the same topic subscribed both ways is delivered
// twice. Mount before any JSON body parser: the HMAC covers the raw body.
//
// Guarantee: the receipt (unique on X-Shopify-Webhook-Id) and the topic's effect
// commit in one transaction. A repeat finds the receipt and gets 200 with no
// second effect; a failed effect rolls the receipt back and Shopify retries.
import express, { type Request, type Response } from 'express';
import type { Db, Tx } from '../db/client.ts';
import { isUniqueViolation } from '../db/client.ts';
import type { Logger } from '../ops/logger.ts';
import type { Shopify } from './app.ts';
import { parseShopifyJson } from './json.ts';
import { storableDeep } from '../security/text.ts';
import { payloadMismatch } from './webhook-guard.ts';

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
  /** True on the one rerun after a unique violation: a handler may skip existence checks until then. */
  rerun: boolean;
}

export type TopicHandler = (ctx: WebhookContext) => Promise<void>;
/** Keyed by the library's storage form of the topic, e.g. ORDERS_PAID. */
export type TopicHandlers = Record<string, TopicHandler>;

class DuplicateWebhook extends Error {}

// Shopify's mandatory-webhook rules (and its App Store check): 401 whenever the
// HMAC is missing or does not verify. A body that is missing cannot be verified either.
const STATUS_FOR_REASON: Record<string, number> = {
  invalid_hmac: 401,
  missing_hmac: 401,
  missing_body: 401,
  missing_headers: 400,
};

export function shopifyWebhookRoute(deps: { shopify: Shopify; db: Db; handlers: TopicHandlers; log: Logger }) {
  const { shopify, db, handlers } = deps;
  return [
    express.text({ type: '*/*', limit: '1mb' }),
    async (req: Request, res: Response) => {
      const log: Logger = res.locals.log ?? deps.log;
      const rawBody = typeof req.body === 'string' ? req.body : '';
      const check = await shopify.api.webhooks.validate({ rawBody, rawRequest: req, rawResponse: res });
      if (!check.valid) {
        const status = STATUS_FOR_REASON[check.reason] ?? 400;
        const missing = 'missingHeaders' in check ? check.missingHeaders : undefined;
        log.warn({ reason: check.reason, missingHeaders: missing }, 'shopify webhook rejected');
        res.status(status).json({
          error: status === 401 ? 'HMAC validation failed' : `invalid webhook request: ${check.reason}`,
          ...(missing ? { missingHeaders: missing } : {}),
        });
        return;
      }
      const { topic, domain: shop, webhookId } = check as { topic: string; domain: string; webhookId: string };
      const wlog = log.child({ shop, topic, webhookId });
      let payload: unknown;
      try {
        // Strings a database cannot store (NUL, lone surrogates) become U+FFFD; Shopify keeps the original order.
        payload = storableDeep(parseShopifyJson(rawBody));
      } catch {
        wlog.warn('shopify webhook body is not JSON');
        res.status(400).json({ error: 'body is not valid JSON' });
        return;
      }
      const mismatch = payloadMismatch(topic, shop, payload);
      const handler = handlers[topic];
      if (!handler && !mismatch) {
        // Not subscribed in shopify.app.toml; acknowledge so Shopify stops retrying, but make it visible.
        wlog.warn('shopify webhook for a topic with no handler; acknowledged and ignored');
        res.status(200).json({ ok: true, ignored: true });
        return;
      }
      let after: Array<() => unknown> = [];
      let outcome: string | null = mismatch ? `ignored: ${mismatch}` : null;
      // Two deliveries of one order under different webhook ids may race; the
      // loser hits a unique constraint, and one rerun finds the winner's rows.
      for (let run = 1; ; run++) {
        after = [];
        if (!mismatch) outcome = null;
        try {
          await db.$transaction(
            async (tx) => {
              let receipt: { id: string };
              try {
                // A body that does not match its headers is recorded and does nothing (no handler runs).
                receipt = await tx.webhookReceipt.create({ data: { webhookId, topic, shop, outcome }, select: { id: true } });
              } catch (e) {
                if (isUniqueViolation(e)) throw new DuplicateWebhook();
                throw e;
              }
              if (mismatch || !handler) return;
              const ignore = (reason: string) => {
                outcome = `ignored: ${reason}`;
              };
              await handler({ tx, shop, topic, webhookId, payload, log: wlog, afterCommit: (fn) => after.push(fn), ignore, rerun: run > 1 });
              if (outcome) await tx.webhookReceipt.update({ where: { id: receipt.id }, data: { outcome } });
            },
            { maxWait: 5_000, timeout: 10_000 },
          );
          break;
        } catch (e) {
          if (e instanceof DuplicateWebhook) {
            wlog.info('duplicate shopify webhook acknowledged');
            res.status(200).json({ ok: true, duplicate: true });
            return;
          }
          if (run === 1 && isUniqueViolation(e)) continue;
          wlog.error({ err: e }, 'shopify webhook handler failed; Shopify will retry');
          res.status(500).json({ error: 'webhook could not be processed; it will be retried' });
          return;
        }
      }
      if (outcome) {
        wlog.warn({ outcome }, 'shopify webhook acknowledged without effect');
        res.status(200).json({ ok: true, ignored: true, reason: outcome.replace(/^ignored: /, '') });
        return;
      }
      wlog.info('shopify webhook processed');
      res.status(200).json({ ok: true });
      for (const fn of after) {
        try {
          await fn();
        } catch (e) {
          wlog.error({ err: e }, 'after-commit step failed');
        }
      }
    },
  ];
}
