// The inbox worker: drains verified webhooks stored by the intake routes, many
// rows per transaction (issue 24). Intake is one insert and a 200; everything
// else (parsing, the payload/header checks, eligibility, delivery rows, jobs)
// happens here.
//
//   intake ──insert──▶ WebhookInbox (pending) ──claim batch──▶ topic handlers ──▶ done
//                                              (one transaction)        │ throws
//                                                    one row per transaction, then
//                                                    backoff, then failed (operator)
//
// A batch runs in one transaction; if any row throws, the batch rolls back and
// its rows run again one per transaction, so one bad row costs only itself.
// A row that cannot be processed at all (body not JSON, undecryptable) is failed
// at once; one that keeps throwing is retried with backoff and failed after
// maxAttempts. Failed rows stay for the operator (`npm run cli -- inbox`, which
// can retry them) and show in /metrics. On PostgreSQL the claim skips rows
// another instance holds (FOR UPDATE SKIP LOCKED); SQLite runs one process.
import type { Database, Db, Tx } from '../db/client.ts';
import type { Logger } from '../ops/logger.ts';
import type { SecretBox } from '../security/crypto.ts';
import { isUniqueViolation } from '../db/client.ts';
import { errorMessage } from '../ops/errors.ts';
import { DecryptionError } from '../security/crypto.ts';
import { dbTime, rawTime } from '../db/raw-sql.ts';
import { claimOneSql, claimSql, depthSql, dueSql, markDone, markFailed, pruneSql, type InboxRow } from './sql.ts';
import { processShopifyWebhook, UnprocessableWebhook, type TopicHandlers } from './shopify.ts';
import { inboxMetrics } from '../ops/metrics.ts';
import { PollLoop } from '../jobs/poll-loop.ts';

export interface InboxOptions {
  /** Rows claimed per transaction (default 50). */
  batchSize?: number;
  /** Stop adding rows to a batch after this long, so intake's inserts wait little for SQLite's writer (default 10 ms: 25 gave a p99 of 76–115 ms at 200 req/s, 10 gives 22). */
  batchMs?: number;
  /** How often the worker looks for due rows while it finds some (default 500 ms; up to 4× that while it finds none); notify() wakes it at once. */
  pollIntervalMs?: number;
  /** Attempts before a row that keeps failing is left to the operator (default 10). */
  maxAttempts?: number;
  /** How long processed rows (keys only) are kept to dedupe redeliveries (default 7 days; Shopify retries for 48 h). */
  keepDoneMs?: number;
}

/** What the worker needs of the AppContext (not imported: the context holds the worker). */
interface Ctx {
  db: Db;
  database: Database;
  box: SecretBox;
  log: Logger;
  now: () => number;
  /** Intake-first's view of webhook arrivals (web/jobs/intake-first.ts); absent: never busy. */
  intake?: { readonly busy: boolean };
}
type RowResult = { ok: true; outcome: string | null } | { ok: false; permanent: string };

const TX = { maxWait: 15_000, timeout: 60_000 };
const PRUNE_EVERY_MS = 10 * 60_000;
/** An idle inbox polls at most this many times slower than pollIntervalMs (500 ms → 2 s); the routes wake it. */
const IDLE_POLL_LIMIT = 4;
/**
 * The pause after a batch. While webhooks arrive (intake-first's `busy`, either route), twice the
 * batch's time, at most 200 ms: intake has the process (and SQLite's one writer) two thirds of
 * the time. Otherwise none (null: the next turn of the event loop).
 */
export function pauseAfterBatchMs(tookMs: number, intakeBusy: boolean): number | null {
  return intakeBusy ? Math.min(2 * tookMs, 200) : null;
}

/** Backoff before attempt n+1 of a row that threw: 1 s, 2 s, 4 s … capped at 10 min. */
export function inboxRetryDelayMs(attempts: number): number {
  return Math.min(600_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

export class InboxWorker {
  readonly #ctx: Ctx;
  readonly #handlers: TopicHandlers;
  readonly #batchSize: number;
  readonly #batchMs: number;
  /** Passes: woken by the routes (notify), polling up to IDLE_POLL_LIMIT× slower while they find no rows. */
  readonly #loop: PollLoop;
  readonly #maxAttempts: number;
  readonly #keepDoneMs: number;
  #lastPrune = 0;

  constructor(ctx: Ctx, handlers: TopicHandlers, opts: InboxOptions = {}) {
    this.#ctx = ctx;
    this.#handlers = handlers;
    this.#batchSize = opts.batchSize ?? 50;
    this.#batchMs = opts.batchMs ?? 10;
    this.#loop = new PollLoop({
      baseMs: opts.pollIntervalMs ?? 500,
      limit: IDLE_POLL_LIMIT,
      pass: () => this.#drain(),
      onError: (e) => this.#ctx.log.warn({ err: errorMessage(e) }, 'inbox pass failed; retrying at the next poll'),
    });
    this.#maxAttempts = opts.maxAttempts ?? 10;
    this.#keepDoneMs = opts.keepDoneMs ?? 7 * 24 * 3_600_000;
  }

  get #provider() {
    return this.#ctx.database.provider;
  }

  start(): void {
    this.#loop.start({ passNow: true });
  }

  /** Wakes the worker (the Shopify route, after each insert commits). */
  notify(): void {
    this.#loop.notify();
  }

  /** Resolves once no pass is running (tests: everything due has been processed, after-commit steps included). */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: batches until the inbox has no due row; whether it claimed any. */
  async #drain(): Promise<boolean> {
    let found = false;
    // Until the inbox is empty. better-sqlite3 answers synchronously, so a batch is one long
    // run of microtasks: the worker yields to I/O between rows and between batches, and while
    // webhooks are arriving it leaves the process (and SQLite's one writer) to intake two thirds
    // of the time. A burst is acknowledged at once and drained at the pace left over.
    for (;;) {
      const started = performance.now();
      const claimed = await this.drainOnce();
      if (!this.#loop.running || claimed === 0) break;
      found = true;
      const pause = pauseAfterBatchMs(performance.now() - started, this.#ctx.intake?.busy ?? false);
      await new Promise((r) => (pause === null ? setImmediate(r) : setTimeout(r, pause)));
    }
    if (this.#ctx.now() - this.#lastPrune >= PRUNE_EVERY_MS) await this.#prune();
    return found;
  }

  /** One batch: claims due rows, processes them, returns how many were claimed. */
  async drainOnce(): Promise<number> {
    const now = this.#ctx.now();
    // Most polls find nothing: BEGIN and COMMIT (Prisma's transaction) cost more than the read.
    if ((await this.#ctx.db.$queryRawUnsafe<unknown[]>(dueSql(this.#provider), dbTime(this.#provider, now))).length === 0) return 0;
    const after: Array<() => unknown> = [];
    let claimed: InboxRow[] = [];
    try {
      await this.#ctx.db.$transaction(async (tx) => {
        claimed = await tx.$queryRawUnsafe<InboxRow[]>(claimSql(this.#provider), dbTime(this.#provider, now), this.#batchSize);
        const started = performance.now();
        const done: number[] = [];
        for (const row of claimed) {
          // The rest of a slow batch stays pending for the next one (it was only read, not changed).
          if (done.length && performance.now() - started > this.#batchMs) break;
          if (done.length) await new Promise((r) => setImmediate(r)); // let waiting requests in
          const r = await this.#process(tx, row, false, after);
          const id = Number(row.id);
          if (!r.ok) await markFailed(tx, this.#provider, id, 'failed', r.permanent, now, now);
          else if (r.outcome) await markDone(tx, this.#provider, [id], r.outcome, now);
          else done.push(id);
          inboxMetrics.processed(row.source, r.ok ? (r.outcome ? 'ignored' : 'done') : 'failed');
        }
        await markDone(tx, this.#provider, done, null, now);
      }, TX);
    } catch (e) {
      after.length = 0;
      if (!claimed.length) throw e;
      this.#ctx.log.info({ err: errorMessage(e), rows: claimed.length }, 'inbox batch rolled back; processing its rows one by one');
      for (const row of claimed) await this.#one(Number(row.id), now);
    }
    for (const fn of after) {
      try {
        await fn();
      } catch (e) {
        this.#ctx.log.error({ err: errorMessage(e) }, 'after-commit step failed');
      }
    }
    return claimed.length;
  }

  /** One row in its own transaction; a unique violation gets one rerun; other errors back off. */
  async #one(id: number, now: number): Promise<void> {
    for (let run = 1; run <= 2; run++) {
      const after: Array<() => unknown> = [];
      let row: InboxRow | undefined;
      try {
        await this.#ctx.db.$transaction(async (tx) => {
          [row] = await tx.$queryRawUnsafe<InboxRow[]>(claimOneSql(this.#provider), id);
          if (!row) return;
          const r = await this.#process(tx, row, run > 1, after);
          if (!r.ok) await markFailed(tx, this.#provider, id, 'failed', r.permanent, now, now);
          else await markDone(tx, this.#provider, [id], r.outcome, now);
          inboxMetrics.processed(row.source, r.ok ? (r.outcome ? 'ignored' : 'done') : 'failed');
        }, TX);
      } catch (e) {
        if (run === 1 && isUniqueViolation(e)) continue;
        await this.#failed(id, row, e, now);
        return;
      }
      for (const fn of after) {
        try {
          await fn();
        } catch (e) {
          this.#ctx.log.error({ err: errorMessage(e) }, 'after-commit step failed');
        }
      }
      return;
    }
  }

  async #failed(id: number, row: InboxRow | undefined, e: unknown, now: number): Promise<void> {
    const attempts = Number(row?.attempts ?? 0) + 1;
    const final = attempts >= this.#maxAttempts;
    const log = this.#ctx.log.child({ inboxId: id, source: row?.source, topic: row?.topic, shop: row?.shop, attempts });
    if (final) log.error({ err: errorMessage(e) }, 'webhook could not be processed; left failed in the inbox for the operator');
    else log.warn({ err: errorMessage(e) }, 'webhook processing failed; will retry');
    if (final) inboxMetrics.processed(row?.source ?? 'shopify', 'failed');
    try {
      await this.#ctx.db.$transaction((tx) => markFailed(tx, this.#provider, id, final ? 'failed' : 'pending', errorMessage(e), now + inboxRetryDelayMs(attempts), now));
    } catch (err) {
      log.error({ err: errorMessage(err) }, 'could not record a webhook failure; it runs again at the next pass');
    }
  }

  async #process(tx: Tx, row: InboxRow, rerun: boolean, after: Array<() => unknown>): Promise<RowResult> {
    let body: string;
    try {
      body = this.#ctx.box.decrypt(row.body);
    } catch (e) {
      if (e instanceof DecryptionError) return { ok: false, permanent: `the stored body cannot be decrypted: ${e.message}` };
      throw e;
    }
    try {
      const outcome = await processShopifyWebhook(tx, { webhookId: row.key, topic: row.topic, shop: row.shop, body }, this.#handlers, {
        log: this.#ctx.log,
        rerun,
        afterCommit: (fn) => after.push(fn),
        provider: this.#provider,
        now: this.#ctx.now(),
      });
      if (outcome) this.#ctx.log.warn({ shop: row.shop, topic: row.topic, webhookId: row.key, outcome }, 'shopify webhook acknowledged without effect');
      return { ok: true, outcome };
    } catch (e) {
      if (e instanceof UnprocessableWebhook) {
        this.#ctx.log.error({ shop: row.shop, topic: row.topic, webhookId: row.key, reason: e.message }, 'shopify webhook cannot be processed; left failed in the inbox for the operator');
        return { ok: false, permanent: e.message };
      }
      throw e;
    }
  }

  async #prune(): Promise<void> {
    this.#lastPrune = this.#ctx.now();
    try {
      await this.#ctx.db.$executeRawUnsafe(pruneSql(this.#provider), dbTime(this.#provider, this.#ctx.now() - this.#keepDoneMs));
    } catch (e) {
      this.#ctx.log.warn({ err: errorMessage(e) }, 'could not prune the inbox');
    }
  }

  /** Pending rows and the age of the oldest, for /metrics. */
  async depth(): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const [r] = await this.#ctx.db.$queryRawUnsafe<Array<{ n: number | bigint; oldest: string | Date | null }>>(depthSql(this.#provider));
    const oldest = r?.oldest ? rawTime(r.oldest)!.getTime() : null;
    return { pending: Number(r?.n ?? 0), oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (this.#ctx.now() - oldest) / 1000) };
  }
}
