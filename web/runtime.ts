// Builds the shared services (AppContext) on an open, migrated database. The
// server runs the job workers; the CLI builds the same context without them,
// so both go through the same code paths.
import type { AppConfig } from './config/env.ts';
import { CourierClients, type AppContext, type CourierClientTuning } from './context.ts';
import type { Database } from './db/client.ts';
import { courierUrlPolicy } from './delivery/address-policy.ts';
import { createSessionStorage } from './db/session-storage.ts';
import { protectPersonalData } from './db/protected-data.ts';
import { registerDispatchJobs, DISPATCH_RETRY } from './dispatch/dispatcher.ts';
import { registerRoutingJobs } from './dispatch/routing.ts';
import { registerFulfillmentJobs, type FulfillmentJobOptions } from './fulfillment/jobs.ts';
import { createJobQueue } from './jobs/index.ts';
import { IntakeFirst } from './jobs/intake-first.ts';
import type { Logger } from './ops/logger.ts';
import { SecretBox } from './security/crypto.ts';
import { loadOrCreateDevKey } from './security/dev-key.ts';
import { createAdminApi, onShopifyThrottleWait, shopifyPacer } from './shopify/admin-api.ts';
import { DEFER_AFTER_MS } from './shopify/paced-jobs.ts';
import { API_VERSION, createShopify, type Shopify } from './shopify/app.ts';
import { recordInstall } from './webhooks/lifecycle.ts';
import { JOBS } from './jobs/names.ts';
import { retentionSweep } from './privacy/erase.ts';

/** How often the retention sweep looks for personal data past its retention period. */
const RETENTION_SWEEP_MS = 6 * 3_600_000;
import { offlineTokenProvider } from './shopify/offline-token.ts';
import { SHOPIFY_ATTEMPTS_IN_JOBS } from './retry/budget.ts';
import { appClock, type Clock } from './ops/clock.ts';
import { dispatchDue, SCHEDULED_OVERDUE_MS } from './dispatch/windows.ts';
import { startFlowWorkers } from './flow/index.ts';
import { InboxWorker, type InboxOptions } from './inbox/worker.ts';
import { shopifyTopicHandlers } from './webhooks/topics.ts';
import type { CachingSessionStorage } from './db/session-storage.ts';
import { recordShopifyThrottleWait, setMetricsSources } from './ops/metrics.ts';

export interface RuntimeOptions {
  /** Run job workers in this process (the server); the CLI only enqueues. */
  workers: boolean;
  courier?: CourierClientTuning;
  dispatchRetry?: Partial<typeof DISPATCH_RETRY>;
  /** How long a create with no answer may still be in flight (web/dispatch/booking.ts). Default: twice the courier request timeout. */
  inFlightMs?: number;
  fulfillment?: FulfillmentJobOptions;
  queue?: { pollIntervalMs?: number; leaseMs?: number };
  /** The app's clock (tests; dev/start.ts installs one through web/ops/clock.ts). Default: the system clock. */
  clock?: Clock;
  /** Shopify Flow: how often the trigger relay looks for new triggers (web/flow/triggers.ts). */
  flow?: { relayIntervalMs?: number };
  /** The webhook inbox's worker (web/inbox/worker.ts). */
  inbox?: InboxOptions;
  /** How often overdue SCHEDULED deliveries are looked for (default a minute). */
  scheduledSweepMs?: number;
  /** Shopify calls that wait for the shop's budget end their wait on this grid (web/shopify/pacer.ts, default PACE_TICK_MS). */
  paceTickMs?: number;
}

export interface Runtime {
  ctx: AppContext;
  shopify: Shopify;
  close(): Promise<void>;
}

export function encryptionBox(config: AppConfig, log: Logger): SecretBox {
  if (config.encryptionKeys) return new SecretBox(config.encryptionKeys);
  const dev = loadOrCreateDevKey();
  log.warn(
    { file: dev.file },
    dev.created
      ? 'ENCRYPTION_KEY is not set: generated a development key and saved it (development only)'
      : 'ENCRYPTION_KEY is not set: using the saved development key (development only)',
  );
  return new SecretBox([dev.key]);
}

export async function createRuntime(config: AppConfig, log: Logger, database: Database, box: SecretBox, opts: RuntimeOptions): Promise<Runtime> {
  const clock = opts.clock ?? appClock(config.nodeEnv);
  // Personal data (order snapshots, courier bodies, data request reports) is encrypted at rest.
  const db = protectPersonalData(database.db, box);
  const sessionStorage = createSessionStorage(database.db, box);
  // The storage polls for its table on construction; settle that before use.
  if (!(await sessionStorage.isReady())) throw new Error('the Session table is missing; run npm run db:migrate');
  const shopify = createShopify(config, sessionStorage, log, (session) => recordInstall(db, session));
  // One Shopify budget per shop for the whole runtime (both clients below); on PostgreSQL shared by every instance.
  const pacer = shopifyPacer(database, () => clock.now(), opts.paceTickMs);
  const admin = createAdminApi({ apiVersion: API_VERSION, accessToken: offlineTokenProvider(shopify), log: log.child({ component: 'shopify-admin' }), pacer, now: () => clock.now() });
  // The server's jobs yield to webhook intake while it needs the event loop (web/jobs/intake-first.ts).
  // A wait counts against a pg-boss job's expiry: at most a quarter of it.
  const intake = opts.workers ? new IntakeFirst({ maxWaitMs: Math.min(1_000, config.jobTimeoutSeconds * 250) }) : undefined;
  const queue = await createJobQueue(database, {
    log,
    ...(intake ? { intakeFirst: intake } : {}),
    pgboss: { expireInSeconds: config.jobTimeoutSeconds, superviseIntervalSeconds: Math.min(30, Math.max(1, Math.floor(config.jobTimeoutSeconds / 2))) },
    ...opts.queue,
  });
  const ctx: AppContext = {
    config,
    log,
    database,
    db,
    box,
    queue,
    admin,
    courier: new CourierClients(log.child({ component: 'courier' }), opts.courier, {
      policy: courierUrlPolicy(config.nodeEnv),
    }),
    now: () => clock.now(),
    ...(intake ? { intake } : {}),
  };
  let flow: { stop(): Promise<void> } | null = null;
  let unjump = () => {};
  if (opts.workers) {
    // Jobs retry their Shopify calls themselves, so their Admin client makes one attempt per call (web/retry/budget.ts).
    const jobCtx: AppContext = {
      ...ctx,
      admin: createAdminApi({
        apiVersion: API_VERSION, accessToken: offlineTokenProvider(shopify), log: log.child({ component: 'shopify-admin' }), maxAttempts: SHOPIFY_ATTEMPTS_IN_JOBS,
        pacer, now: () => clock.now(), deferAfterMs: DEFER_AFTER_MS,
      }),
    };
    await registerDispatchJobs(jobCtx, opts.dispatchRetry, { inFlightMs: opts.inFlightMs ?? 2 * (opts.courier?.requestTimeoutMs ?? 15_000) });
    await registerRoutingJobs(jobCtx, opts.dispatchRetry);
    await registerFulfillmentJobs(jobCtx, { reconcileIntervalMs: config.reconcileIntervalMs, ...opts.fulfillment });
    flow = await startFlowWorkers(jobCtx, opts.flow);
    await ctx.queue.every(JOBS.retention, RETENTION_SWEEP_MS, async () =>
      void (await retentionSweep(ctx.db, { now: ctx.now(), retentionDays: config.personalDataRetentionDays, log })));
    // A SCHEDULED delivery long past its time has lost its job: queue another.
    await ctx.queue.every(JOBS.scheduledDue, opts.scheduledSweepMs ?? 60_000, async () => {
      const n = await dispatchDue(ctx, SCHEDULED_OVERDUE_MS);
      if (n) log.warn({ count: n, overdueMs: SCHEDULED_OVERDUE_MS }, 'scheduled deliveries long past their time without a job: dispatching them');
    });
    // A moved clock (development): scheduled deliveries now due go out without waiting for their timers.
    unjump = clock.onJump?.(() => void dispatchDue(ctx).catch((e) => log.error({ err: String(e) }, 'scheduled deliveries could not be looked at'))) ?? unjump;
  }
  // Started in the CLI too: pg-boss refuses to enqueue before start().
  await queue.start();
  if (opts.workers) {
    const sessions = sessionStorage as Partial<CachingSessionStorage>;
    const inbox = new InboxWorker(ctx, shopifyTopicHandlers(ctx, (shop) => sessions.forgetShop?.(shop)), opts.inbox);
    ctx.inbox = inbox;
    setMetricsSources({ inbox: () => inbox.depth(), queues: () => queue.stats() });
    inbox.start();
  }
  const unobserve = onShopifyThrottleWait((w) => recordShopifyThrottleWait(w.waitMs / 1000, w.shop));
  return {
    ctx,
    shopify,
    async close() {
      unobserve();
      unjump();
      intake?.stop();
      await ctx.inbox?.stop();
      await flow?.stop();
      await queue.stop({ graceMs: 10_000 });
    },
  };
}
