// GET /metrics: Prometheus text format behind a bearer token (METRICS_TOKEN), off without one;
// the figures move with the traffic they count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { postShopifyWebhook } from '../support/shopify.ts';
import { recordShopifyThrottleWait } from '../../web/ops/metrics.ts';
import { courierOperation } from '../../web/delivery/client.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ METRICS_TOKEN: TOKEN });
});
afterAll(async () => {
  await app?.close();
});

const scrape = async (auth?: string) => fetch(`${app.url}/metrics`, { headers: auth ? { authorization: auth } : {} });

/** The sample's value, 0 when the series is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('/metrics', () => {
  it('refuses a scrape without the bearer token, or with another one', async () => {
    for (const auth of [undefined, `Bearer ${TOKEN}x`, TOKEN, 'Basic bWV0cmljczp4']) {
      const r = await scrape(auth);
      expect(r.status, String(auth)).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await r.text()).not.toContain('process_cpu');
    }
  });

  it('serves Prometheus text: every line a comment or a sample, with the process, inbox and queue figures', async () => {
    await app.ctx.db.$transaction((tx) => app.ctx.queue.enqueue(tx, 'metrics-probe', {}, { startAfterMs: 3_600_000 }));
    const r = await scrape(`Bearer ${TOKEN}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    for (const line of text.split('\n').filter(Boolean)) {
      expect(line).toMatch(/^(# (HELP|TYPE) [a-zA-Z_:][\w:]* .*|[a-zA-Z_:][\w:]*(\{([a-zA-Z_]\w*="[^"]*",?)*\})? (-?[\d.]+(e[+-]?\d+)?|NaN|[+-]Inf))$/);
    }
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'sdd_inbox_pending', 'sdd_inbox_oldest_age_seconds', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds']) {
      expect(text).toMatch(new RegExp(`^${name} `, 'm'));
    }
    expect(text).toContain('# TYPE sdd_intake_request_duration_seconds histogram');
    expect(text).toContain('# TYPE sdd_courier_request_duration_seconds histogram');
    expect(text).toContain('# TYPE sdd_shopify_throttle_wait_seconds histogram');
    expect(text).toContain('# TYPE sdd_job_intake_wait_seconds histogram');
    // Per queue, for every queue holding live jobs (this one's job is not due yet).
    expect(sample(text, 'sdd_queue_waiting_jobs{queue="metrics-probe"}')).toBe(0);
    expect(text).toMatch(/^sdd_queue_lag_seconds\{queue="metrics-probe"\} 0$/m);
  });

  it('counts intake requests per route and status, inbox results and throttle waits', async () => {
    const before = await (await scrape(`Bearer ${TOKEN}`)).text();
    const ok = 'sdd_intake_request_duration_seconds_count{route="shopify",status="200"}';
    const bad = 'sdd_intake_request_duration_seconds_count{route="shopify",status="401"}';
    const ignored = 'sdd_inbox_processed_total{source="shopify",result="ignored"}';
    const waits = 'sdd_shopify_throttle_wait_seconds_count';
    expect((await postShopifyWebhook(app.url, 'orders/paid', 'not-installed.myshopify.com', { id: 1 })).body.ignored).toBe(true);
    expect((await postShopifyWebhook(app.url, 'orders/paid', 'x.myshopify.com', { id: 1 }, { secret: 'wrong' })).status).toBe(401);
    recordShopifyThrottleWait(0.4, 'x.myshopify.com');
    const after = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(sample(after, ok) - sample(before, ok)).toBe(1);
    expect(sample(after, bad) - sample(before, bad)).toBe(1);
    expect(sample(after, ignored) - sample(before, ignored)).toBe(1);
    expect(sample(after, waits) - sample(before, waits)).toBe(1);
    // No shop domain in any label.
    expect(after).not.toContain('myshopify.com');
  });

  it('reports the event loop held up while it has work: nodejs_eventloop_lag_max_seconds past the 10 ms sampling interval', async () => {
    const hold = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    await scrape(`Bearer ${TOKEN}`); // starts the figures afresh
    // Busy for over a second (the sampler's check), then held 80 ms at a time.
    const until = performance.now() + 2_500;
    while (performance.now() < until) {
      hold(80);
      await new Promise((r) => setTimeout(r, 5));
    }
    const text = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(sample(text, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0.04);
    expect(sample(text, 'nodejs_eventloop_lag_max_seconds')).toBeLessThan(1);
  });

  it('labels courier calls by route shape, never by id', () => {
    expect(courierOperation('GET', '/v1/orders/ord_8f2k19?x=1')).toBe('GET /v1/orders/:id');
    expect(courierOperation('POST', '/oauth/token')).toBe('POST /oauth/token');
  });

  it('is off (404) when METRICS_TOKEN is not set', async () => {
    const plain = await startTestApp();
    try {
      const r = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: string }).error).toMatch(/METRICS_TOKEN/);
    } finally {
      await plain.close();
    }
  });
});
