// Prometheus metrics (prom-client), served at GET /metrics behind a bearer token
// (METRICS_TOKEN; docs/operations.md). One registry per process; the recording
// functions are cheap and safe to call before anything is wired. No label holds
// a shop domain or any customer data: label values are routes, queue names and
// fixed outcomes, so the series count stays small however many shops there are.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LoopDelayMonitor } from './event-loop.ts';

export const registry = new Registry();
// process_cpu_seconds_total, process_resident_memory_bytes, heap and event-loop lag. prom-client's own lag
// sampler runs every 10 ms for ever (about a quarter of an idle app's CPU); it is given an interval it never
// reaches and its gauges are replaced by the same names over ./event-loop.ts, which samples only while the
// loop has work (docs/benchmarks.md, twenty-third session).
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 2 ** 31 - 1 });
const LAG = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
for (const n of ['', ...LAG.map((k) => `_${k}`)]) registry.removeSingleMetric(`nodejs_eventloop_lag${n}_seconds`);
const loopDelay = new LoopDelayMonitor();
new Gauge({
  name: 'nodejs_eventloop_lag_seconds',
  help: 'Lag of event loop in seconds (a setImmediate at the scrape).',
  registers: [registry],
  // This one gauge's collect sets them all (read after it), as prom-client's did.
  async collect() {
    const d = loopDelay.read();
    for (const k of LAG) lagGauges[k].set(d[k]);
    const start = performance.now();
    await new Promise((r) => setImmediate(r));
    this.set((performance.now() - start) / 1000);
  },
});
// Registered after the gauge whose collect sets them: a scrape reads metrics in registration order.
const lagGauges = Object.fromEntries(
  LAG.map((k) => [k, new Gauge({ name: `nodejs_eventloop_lag_${k}_seconds`, help: `Event loop delay since the last scrape, ${k}, in seconds past the 10 ms sampling interval (sampled while the loop has work).`, registers: [registry] })]),
) as Record<(typeof LAG)[number], Gauge>;

const intakeSeconds = new Histogram({
  name: 'sdd_intake_request_duration_seconds',
  help: 'Webhook intake latency (receipt to answer), by route and status.',
  labelNames: ['route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const inboxProcessed = new Counter({
  name: 'sdd_inbox_processed_total',
  help: 'Inbox rows processed, by source and result (done, ignored, failed).',
  labelNames: ['source', 'result'] as const,
  registers: [registry],
});

const courierSeconds = new Histogram({
  name: 'sdd_courier_request_duration_seconds',
  help: 'Courier API calls, by operation and outcome (ok, or the error kind).',
  labelNames: ['operation', 'outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const intakeYieldSeconds = new Histogram({
  name: 'sdd_job_intake_wait_seconds',
  help: 'How long a job waited to start while webhooks arrived and the event loop ran late (web/jobs/intake-first.ts).',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [registry],
});

const courierErrors = new Counter({
  name: 'sdd_courier_request_errors_total',
  help: 'Courier API calls that failed, by operation and error kind.',
  labelNames: ['operation', 'outcome'] as const,
  registers: [registry],
});

const shopifyThrottleSeconds = new Histogram({
  name: 'sdd_shopify_throttle_wait_seconds',
  help: 'Time spent waiting for a shop\'s Admin API cost budget before a call (no shop label: unbounded cardinality).',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export interface QueueStat {
  name: string;
  /** Due and not yet running. */
  waiting: number;
  active: number;
  /** Age of the oldest due job that is waiting (the queue's lag), 0 when none. */
  lagSeconds: number;
}

interface Sources {
  inbox?: () => Promise<{ pending: number; oldestAgeSeconds: number }>;
  queues?: () => Promise<QueueStat[]>;
}
let sources: Sources = {};

/** The running app's inbox and job queue, read at each scrape. */
export function setMetricsSources(s: Sources): void {
  sources = s;
}

/** One read per scrape: the gauges of one source are collected concurrently and share it. */
function shared<T>(read: () => Promise<T> | undefined, empty: T): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > 250) last = { at: now, value: Promise.resolve(read()).then((v) => v ?? empty, () => empty) };
    return last.value;
  };
}
const inboxNow = shared(() => sources.inbox?.(), { pending: 0, oldestAgeSeconds: 0 });
const queuesNow = shared(() => sources.queues?.(), [] as QueueStat[]);

new Gauge({
  name: 'sdd_inbox_pending',
  help: 'Webhooks stored and not yet processed.',
  registers: [registry],
  async collect() {
    this.set((await inboxNow()).pending);
  },
});
new Gauge({
  name: 'sdd_inbox_oldest_age_seconds',
  help: 'Age of the oldest unprocessed webhook.',
  registers: [registry],
  async collect() {
    this.set((await inboxNow()).oldestAgeSeconds);
  },
});

function queueGauge(name: string, help: string, value: (q: QueueStat) => number) {
  return new Gauge({
    name,
    help,
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      const stats = await queuesNow();
      this.reset();
      for (const q of stats) this.set({ queue: q.name }, value(q));
    },
  });
}
queueGauge('sdd_queue_waiting_jobs', 'Jobs due and waiting, per queue.', (q) => q.waiting);
queueGauge('sdd_queue_active_jobs', 'Jobs running, per queue.', (q) => q.active);
queueGauge('sdd_queue_lag_seconds', 'Age of the oldest due waiting job, per queue.', (q) => q.lagSeconds);

export const inboxMetrics = {
  processed(source: string, result: 'done' | 'ignored' | 'failed'): void {
    inboxProcessed.inc({ source, result });
  },
};

/** Times one intake request; call the returned function with the answer's status. */
export function startIntakeTimer(route: 'shopify' | 'courier'): (status: number) => void {
  const end = intakeSeconds.startTimer({ route });
  return (status) => void end({ status: String(status) });
}

export function recordCourierCall(operation: string, seconds: number, outcome: string): void {
  courierSeconds.observe({ operation, outcome }, seconds);
  if (outcome !== 'ok') courierErrors.inc({ operation, outcome });
}

/** A job that waited for webhook intake before it started (jobs that did not wait are not counted). */
export function recordIntakeYield(seconds: number): void {
  intakeYieldSeconds.observe(seconds);
}

/** For the Admin API pacer (issue 25): how long a call waited for the shop's budget. The shop is not a label. */
export function recordShopifyThrottleWait(seconds: number, _shop?: string): void {
  if (Number.isFinite(seconds) && seconds >= 0) shopifyThrottleSeconds.observe(seconds);
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** GET /metrics: 404 unless a token is configured, 401 without the right bearer token. */
export function metricsRoute(token: string | null) {
  const want = token ? digest(token) : null;
  return async (req: Request, res: Response) => {
    if (!want) {
      res.status(404).json({ error: 'metrics are off: set METRICS_TOKEN to enable /metrics' });
      return;
    }
    const m = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    if (!m || !timingSafeEqual(digest(m[1]!), want)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(401).json({ error: 'authorization: a valid bearer token is required' });
      return;
    }
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  };
}
