// POST /webhooks/delivery/:endpointId: the courier's signed status webhooks.
// One URL per (shop, environment); the endpoint id is random and unguessable.
//
// Verified on the raw bytes with that endpoint's secret(s) before any parsing.
// A verified event is stored (unique per endpoint on x-service-event-id) and its
// processing job enqueued in one transaction, then acknowledged with 200: all
// further work is asynchronous (spec rules 6 and 7). A repeat gets 200 and has
// no second effect. Rejections store no event; the endpoint remembers the last
// rejection reason so a merchant can see that their portal set-up is wrong.
import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import { isUniqueViolation } from '../db/client.ts';
import { verifyDeliveryWebhook } from '../delivery/index.ts';
import { JOBS, type CourierEventJobData } from '../jobs/names.ts';
import type { Logger } from '../ops/logger.ts';
import { DecryptionError } from '../security/crypto.ts';
import { storableDate, storableOrNull, storableText } from '../security/text.ts';
import { webhookSecretsOf } from '../settings/store.ts';

export const WEBHOOK_BODY_LIMIT = '64kb';
const ENDPOINT_ID = /^ep_[A-Za-z0-9_-]{16,64}$/;

const REASON_TEXT: Record<string, string> = {
  missing_header: 'a signature header is missing',
  unsupported_version: 'the signature version is not v1',
  malformed_signature_header: 'the x-service-signature header is malformed',
  timestamp_mismatch: 'the signature timestamp does not match x-service-timestamp',
  timestamp_outside_window: 'the timestamp is outside the replay window (stale, or the clocks disagree)',
  signature_mismatch: 'the signature does not match this endpoint\'s webhook secret',
  event_id_mismatch: 'x-service-event-id does not match the payload id',
  event_type_mismatch: 'x-service-event does not match the payload type',
  malformed_body: 'the body is not a JSON event',
};

export function courierWebhookRoute(ctx: AppContext) {
  return [
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req: Request, res: Response) => {
      const log: Logger = res.locals.log ?? ctx.log;
      const endpointId = String(req.params.endpointId ?? '');
      const env = ENDPOINT_ID.test(endpointId)
        ? await ctx.db.courierEnvironment.findUnique({ where: { endpointId }, include: { shop: true } })
        : null;
      if (!env || env.shop.uninstalledAt) {
        log.warn({ endpointId: endpointId.slice(0, 12) }, 'courier webhook for an unknown endpoint');
        res.status(404).json({ error: 'unknown webhook endpoint' });
        return;
      }
      const elog = log.child({ shop: env.shop.domain, environment: env.environment });
      const reject = async (status: number, reason: string, detail: string) => {
        await ctx.db.courierEnvironment.update({ where: { id: env.id }, data: { lastRejectionAt: new Date(ctx.now()), lastRejectionReason: `${reason}: ${detail}` } });
        elog.warn({ reason, detail }, 'courier webhook rejected');
        res.status(status).json({ error: `webhook rejected: ${detail}`, reason });
      };

      let secrets: string[];
      try {
        secrets = webhookSecretsOf(env, ctx.box, ctx.now());
      } catch (e) {
        if (!(e instanceof DecryptionError)) throw e;
        return reject(401, 'secret_unreadable', 'the stored webhook secret cannot be read; enter it again');
      }
      if (!secrets.length) return reject(401, 'no_secret', `no webhook secret is set for the ${env.environment} environment`);

      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const v = verifyDeliveryWebhook({ headers: req.headers, rawBody: raw, secrets, nowMs: ctx.now() });
      if (!v.ok) return reject(v.reason === 'malformed_body' ? 400 : 401, v.reason, REASON_TEXT[v.reason] ?? v.detail);

      const { event } = v;
      const data = event.data ?? ({} as Record<string, unknown>);
      // A verified event is never refused for its content: what a database cannot store
      // (NUL, lone surrogates, years outside 0-9999) is replaced in the columns. `payload` keeps
      // the exact body: it is valid UTF-8 JSON (checked), where such characters can only be escapes.
      const payload = storableText(raw.toString('utf8'));
      const eventId = storableText(v.eventId);
      try {
        await ctx.db.$transaction(async (tx) => {
          const row = await tx.courierEvent.create({
            data: {
              environmentId: env.id,
              eventId,
              type: storableText(String(event.type)),
              deliveryRef: storableOrNull(data.delivery_id),
              status: storableOrNull(data.status),
              occurredAt: storableDate(Date.parse(event.created_at)),
              payload,
              state: 'RECEIVED',
            },
          });
          await ctx.queue.enqueue<CourierEventJobData>(tx, JOBS.courierEvent, { eventId: row.id }, { singletonKey: `event:${row.id}` });
          await tx.courierEnvironment.update({ where: { id: env.id }, data: { lastWebhookAt: new Date(ctx.now()) } });
        });
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        await ctx.db.courierEnvironment.update({ where: { id: env.id }, data: { lastWebhookAt: new Date(ctx.now()) } });
        elog.info({ eventId }, 'duplicate courier webhook acknowledged');
        res.status(200).json({ received: true, duplicate: true });
        return;
      }
      ctx.queue.notify();
      elog.info({ eventId, type: event.type, status: data.status }, 'courier webhook stored');
      res.status(200).json({ received: true });
    },
  ];
}
