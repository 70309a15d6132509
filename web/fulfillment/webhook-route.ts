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
import { verifyDeliveryWebhook } from '../delivery/index.ts';
import { JOBS, type CourierEventJobData } from '../jobs/names.ts';
import type { Logger } from '../ops/logger.ts';
import { DecryptionError } from '../security/crypto.ts';
import { storableDate, storableOrNull, storableText } from '../security/text.ts';
import { webhookSecretsOf } from '../settings/store.ts';
import { courierEventOrderingKey } from './jobs.ts';
import { findEndpoint, insertCourierEvent } from './event-sql.ts';
import { startIntakeTimer } from '../ops/metrics.ts';

export const WEBHOOK_BODY_LIMIT = '64kb';
/** How stale the endpoint's lastWebhookAt may get before a webhook refreshes it. */
export const LAST_WEBHOOK_REFRESH_MS = 60_000;
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

/** How often buffered rejection reasons are written. */
export const REJECTION_FLUSH_MS = 1_000;
/** Endpoints written per flush at most (unsigned requests may name any well-formed endpoint id). */
const REJECTION_FLUSH_LIMIT = 100;

/**
 * The last rejection per endpoint, for the merchant's settings page. Kept in
 * memory and written once per interval, so a flood of bad requests costs no
 * database write per request and cannot hold SQLite's single writer against
 * Shopify intake. Also logs only the first rejection per endpoint per interval.
 */
export class RejectionLog {
  readonly #pending = new Map<string, { at: Date; reason: string; count: number }>();
  readonly #ctx: Pick<AppContext, 'db' | 'log' | 'now'>;
  readonly #flushMs: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(ctx: Pick<AppContext, 'db' | 'log' | 'now'>, opts: { flushMs?: number } = {}) {
    this.#ctx = ctx;
    this.#flushMs = opts.flushMs ?? REJECTION_FLUSH_MS;
  }

  /** True for the first rejection of this endpoint in the interval (the caller logs that one). */
  record(endpointId: string, reason: string): boolean {
    const prev = this.#pending.get(endpointId);
    if (!prev && this.#pending.size >= REJECTION_FLUSH_LIMIT) return false;
    this.#pending.set(endpointId, { at: new Date(this.#ctx.now()), reason, count: (prev?.count ?? 0) + 1 });
    this.#timer ??= setTimeout(() => void this.flush(), this.#flushMs).unref();
    return !prev;
  }

  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = [...this.#pending];
    this.#pending.clear();
    for (const [endpointId, p] of batch) {
      try {
        await this.#ctx.db.courierEnvironment.updateMany({ where: { endpointId }, data: { lastRejectionAt: p.at, lastRejectionReason: p.reason } });
      } catch (e) {
        this.#ctx.log.warn({ endpointId: endpointId.slice(0, 12), err: (e as Error).message }, 'could not record a courier webhook rejection');
      }
      if (p.count > 1) this.#ctx.log.warn({ endpointId: endpointId.slice(0, 12), count: p.count, last: p.reason }, 'courier webhooks rejected in the last interval');
    }
  }
}

export function courierWebhookRoute(ctx: AppContext, rejections = new RejectionLog(ctx)) {
  return [
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req: Request, res: Response) => {
      const timed = startIntakeTimer('courier');
      ctx.intake?.received(); // background jobs yield while webhooks arrive (web/jobs/intake-first.ts)
      res.on('finish', () => timed(res.statusCode));
      const log: Logger = res.locals.log ?? ctx.log;
      const endpointId = String(req.params.endpointId ?? '');
      if (!ENDPOINT_ID.test(endpointId)) return unknownEndpoint(log, endpointId, res);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const reject = (status: number, reason: string, detail: string, elog: Logger = log.child({ endpointId: endpointId.slice(0, 12) })) => {
        if (rejections.record(endpointId, `${reason}: ${detail}`)) elog.warn({ reason, detail }, 'courier webhook rejected');
        else res.locals.accessLogLevel = 'debug'; // counted in the next summary line instead
        res.status(status).json({ error: `webhook rejected: ${detail}`, reason });
      };
      // Everything that needs no secret (headers, their format) is checked before any
      // database access: an unsigned flood never reaches the database.
      const pre = verifyDeliveryWebhook({ headers: req.headers, rawBody: raw, secrets: [], nowMs: ctx.now() });
      if (!pre.ok && pre.reason !== 'signature_mismatch') return reject(pre.reason === 'malformed_body' ? 400 : 401, pre.reason, REASON_TEXT[pre.reason] ?? pre.detail);

      const env = await findEndpoint(ctx.db, ctx.database.provider, endpointId);
      if (!env || env.shop.uninstalledAt) return unknownEndpoint(log, endpointId, res);
      const elog = log.child({ shop: env.shop.domain, environment: env.environment });

      let secrets: string[];
      try {
        secrets = webhookSecretsOf(env, ctx.box, ctx.now());
      } catch (e) {
        if (!(e instanceof DecryptionError)) throw e;
        return reject(401, 'secret_unreadable', 'the stored webhook secret cannot be read; enter it again', elog);
      }
      if (!secrets.length) return reject(401, 'no_secret', `no webhook secret is set for the ${env.environment} environment`, elog);

      const v = verifyDeliveryWebhook({ headers: req.headers, rawBody: raw, secrets, nowMs: ctx.now() });
      if (!v.ok) return reject(v.reason === 'malformed_body' ? 400 : 401, v.reason, REASON_TEXT[v.reason] ?? v.detail, elog);

      const { event } = v;
      const data = event.data ?? ({} as Record<string, unknown>);
      // A verified event is never refused for its content: what a database cannot store
      // (NUL, lone surrogates, years outside 0001-9999) is replaced in the columns. `payload` keeps
      // the exact body: it is valid UTF-8 JSON (checked), where such characters can only be escapes.
      const payload = storableText(raw.toString('utf8'));
      const eventId = storableText(v.eventId);
      const now = ctx.now();
      // The endpoint's "last webhook" is refreshed at most once a minute: not a write per event.
      const touch = !env.lastWebhookAt || now - env.lastWebhookAt.getTime() >= LAST_WEBHOOK_REFRESH_MS;
      const deliveryRef = storableOrNull(data.delivery_id);
      // One transaction: the event (ON CONFLICT: a repeat inserts nothing) and, for a new one, its job.
      const rowId = await ctx.db.$transaction(async (tx) => {
        const id = await insertCourierEvent(tx, ctx.database.provider, {
          environmentId: env.id,
          eventId,
          type: storableText(String(event.type)),
          deliveryRef,
          status: storableOrNull(data.status),
          occurredAt: storableDate(Date.parse(event.created_at)),
          payload,
          receivedAt: now,
        });
        // Ordered per delivery: that delivery's events apply in arrival order, other deliveries' in parallel.
        if (id) await ctx.queue.enqueue<CourierEventJobData>(tx, JOBS.courierEvents, { eventId: id }, { orderingKey: courierEventOrderingKey(env.id, deliveryRef, id) });
        if (touch) await tx.courierEnvironment.update({ where: { id: env.id }, data: { lastWebhookAt: new Date(now) }, select: { id: true } });
        return id;
      });
      if (!rowId) {
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

function unknownEndpoint(log: Logger, endpointId: string, res: Response): void {
  log.warn({ endpointId: endpointId.slice(0, 12) }, 'courier webhook for an unknown endpoint');
  res.status(404).json({ error: 'unknown webhook endpoint' });
}
