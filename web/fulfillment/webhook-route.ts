// POST /webhooks/delivery/:endpointId: the courier's signed status webhooks.
// One URL per (shop, environment); the endpoint id is random and unguessable.
//
// Verified on the raw bytes with that endpoint's secret(s) before any parsing.
// A verified event is stored (unique per endpoint on x-service-event-id) and its
// processing job enqueued, both or neither (JobQueue.insertWithJob: one statement on
// PostgreSQL), then acknowledged with 200: all
// further work is asynchronous (spec rules 6 and 7). A repeat gets 200 and has
// no second effect. Rejections store no event; the endpoint remembers the last
// rejection reason so a merchant can see that their portal set-up is wrong.
import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import { SIGNATURE_HEADERS, verifyDeliveryWebhook } from '../delivery/index.ts';
import { JOBS, type CourierEventJobData } from '../jobs/names.ts';
import type { Logger } from '../ops/logger.ts';
import { answerOnExpress, type BareAnswer } from '../ops/bare-http.ts';
import { DecryptionError } from '../security/crypto.ts';
import { storableDate, storableOrNull, storableText } from '../security/text.ts';
import { webhookSecretsOf } from '../settings/store.ts';
import { courierEventOrderingKey } from './jobs.ts';
import { courierEventInsert, findEndpoint, type Endpoint } from './event-sql.ts';
import { startIntakeTimer } from '../ops/metrics.ts';

export const WEBHOOK_BODY_LIMIT = 64 * 1024;
/** How stale the endpoint's lastWebhookAt may get before a webhook refreshes it. */
export const LAST_WEBHOOK_REFRESH_MS = 60_000;
const ENDPOINT_ID_SOURCE = 'ep_[A-Za-z0-9_-]{16,64}';
const ENDPOINT_ID = new RegExp(`^${ENDPOINT_ID_SOURCE}$`);

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

/** How long a read endpoint serves further webhooks (a burst shares one read; issue 24). */
export const ENDPOINT_CACHE_MS = 1_000;
const ENDPOINT_CACHE_SIZE = 1_000;

/**
 * Endpoints read within ENDPOINT_CACHE_MS, by id. A signature that fails against a cached row is
 * checked again against a fresh read, so a new secret works at once; a secret removed, or an
 * uninstall, is seen within ENDPOINT_CACHE_MS. Only endpoints that exist are kept: an unknown id is
 * read each time (a new endpoint works at once). Real time, not the app's clock: this is not a rule.
 */
export class EndpointCache {
  readonly #rows = new Map<string, { until: number; env: Endpoint }>();
  readonly #ttlMs: number;

  constructor(ttlMs = ENDPOINT_CACHE_MS) {
    this.#ttlMs = ttlMs;
  }

  get(endpointId: string): Endpoint | null {
    const hit = this.#rows.get(endpointId);
    if (hit && hit.until > performance.now()) return hit.env;
    if (hit) this.#rows.delete(endpointId);
    return null;
  }

  set(endpointId: string, env: Endpoint | null): void {
    if (!env || this.#ttlMs <= 0) return void this.#rows.delete(endpointId);
    if (this.#rows.size >= ENDPOINT_CACHE_SIZE) this.#rows.clear();
    this.#rows.set(endpointId, { until: performance.now() + this.#ttlMs, env });
  }
}

/** Paths the intake answered before Express takes: a well-formed endpoint id, nothing else (web/app.ts). */
export const COURIER_WEBHOOK_PATH = new RegExp(`^/webhooks/delivery/(${ENDPOINT_ID_SOURCE})$`);

/** POST /webhooks/delivery/:endpointId through Express (requests the bare route declines). */
export function courierWebhookRoute(ctx: AppContext, intake = courierWebhookIntake(ctx)) {
  return [
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req: Request, res: Response) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      answerOnExpress(res, await intake(String(req.params.endpointId ?? ''), raw, (h) => req.get(h), () => res.locals.log ?? ctx.log));
    },
  ];
}

export type CourierWebhookIntake = (endpointId: string, raw: Buffer, header: (name: string) => string | undefined, log: () => Logger) => Promise<BareAnswer>;

/**
 * The intake itself, for either server: Express (courierWebhookRoute) or the bare route answered
 * before Express (web/ops/bare-http.ts, mounted by web/app.ts buildHandler). `log` makes the
 * request's child logger when a line needs it: a stored webhook says so on its access line.
 */
export function courierWebhookIntake(ctx: AppContext, rejections = new RejectionLog(ctx), endpoints = new EndpointCache()): CourierWebhookIntake {
  return async (endpointId, raw, header, log) => {
    const timed = startIntakeTimer('courier');
    ctx.intake?.received(); // background jobs yield while webhooks arrive (web/jobs/intake-first.ts)
    const answer = (a: BareAnswer): BareAnswer => {
      timed(a.status);
      return a;
    };
    const unknownEndpoint = () => {
      log().warn({ endpointId: endpointId.slice(0, 12) }, 'courier webhook for an unknown endpoint');
      return answer({ status: 404, body: { error: 'unknown webhook endpoint' } });
    };
    if (!ENDPOINT_ID.test(endpointId)) return unknownEndpoint();
    const reject = (status: number, reason: string, detail: string, elog: Logger = log().child({ endpointId: endpointId.slice(0, 12) })) => {
      // Past the first, counted in the next summary line instead.
      const first = rejections.record(endpointId, `${reason}: ${detail}`);
      if (first) elog.warn({ reason, detail }, 'courier webhook rejected');
      return answer({ status, body: { error: `webhook rejected: ${detail}`, reason }, ...(first ? {} : { level: 'debug' as const }) });
    };
    const headers = Object.fromEntries(Object.values(SIGNATURE_HEADERS).map((h) => [h, header(h)]));
    // Everything that needs no secret (headers, their format) is checked before any
    // database access: an unsigned flood never reaches the database.
    const pre = verifyDeliveryWebhook({ headers, rawBody: raw, secrets: [], nowMs: ctx.now() });
    if (!pre.ok && pre.reason !== 'signature_mismatch') return reject(pre.reason === 'malformed_body' ? 400 : 401, pre.reason, REASON_TEXT[pre.reason] ?? pre.detail);

    const read = async () => {
      const found = await findEndpoint(ctx.db, ctx.database.provider, endpointId);
      endpoints.set(endpointId, found);
      return found;
    };
    const cached = endpoints.get(endpointId);
    let env = cached ?? (await read());
    if (!env || env.shop.uninstalledAt) return unknownEndpoint();

    const verify = (row: Endpoint) => {
      let secrets: string[];
      try {
        secrets = webhookSecretsOf(row, ctx.box, ctx.now());
      } catch (e) {
        if (!(e instanceof DecryptionError)) throw e;
        return { rejected: [401, 'secret_unreadable', 'the stored webhook secret cannot be read; enter it again'] as const };
      }
      if (!secrets.length) return { rejected: [401, 'no_secret', `no webhook secret is set for the ${row.environment} environment`] as const };
      const v = verifyDeliveryWebhook({ headers, rawBody: raw, secrets, nowMs: ctx.now() });
      return v.ok ? { v } : { rejected: [v.reason === 'malformed_body' ? 400 : 401, v.reason, REASON_TEXT[v.reason] ?? v.detail] as const };
    };
    let checked = verify(env);
    // A cached row may hold a secret replaced since: a failure is only believed on a fresh read.
    if (checked.rejected && cached) {
      env = await read();
      if (!env || env.shop.uninstalledAt) return unknownEndpoint();
      checked = verify(env);
    }
    const about = { shop: env.shop.domain, environment: env.environment };
    if (checked.rejected) return reject(checked.rejected[0], checked.rejected[1], checked.rejected[2], log().child(about));
    const v = checked.v;

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
    // The event (ON CONFLICT: a repeat inserts nothing) and, for a new one, its job: both or neither.
    const { id, row } = courierEventInsert(ctx.database.provider, {
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
    const rowId = (await ctx.queue.insertWithJob<CourierEventJobData>(ctx.db, row, JOBS.courierEvents, { eventId: id }, { orderingKey: courierEventOrderingKey(env.id, deliveryRef, id) })) ? id : null;
    // Shown to the merchant, not part of the event: after it, on its own.
    if (touch) {
      await ctx.db.courierEnvironment.update({ where: { id: env.id }, data: { lastWebhookAt: new Date(now) }, select: { id: true } });
      env.lastWebhookAt = new Date(now); // the cached row too: one refresh per interval
    }
    // Said on the request's access line (web/ops/http.ts): one log line per webhook.
    if (!rowId) return answer({ status: 200, body: { received: true, duplicate: true }, fields: { ...about, eventId, duplicate: true } });
    ctx.queue.notify();
    return answer({ status: 200, body: { received: true }, fields: { ...about, eventId, type: event.type, courierStatus: data.status, stored: true } });
  };
}
