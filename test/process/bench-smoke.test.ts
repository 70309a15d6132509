// The benchmarks at tiny size (--quick), as the lead runs them: each must end with its summary
// block and hold exactly-once (nothing lost, nothing duplicated at the courier). Timings are
// printed by the benchmarks and never asserted here.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminPgUrl, ROOT } from '../support/paths.ts';

const run = promisify(execFile);

async function bench(name: string, args: string[], env: Record<string, string> = {}) {
  const { stdout } = await run(process.execPath, [join(ROOT, `test/bench/${name}.ts`), '--quick', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TEST_POSTGRES_URL: process.env.TEST_POSTGRES_URL, ...env },
    maxBuffer: 10_000_000,
  });
  expect(stdout).toContain(`==== ${name} summary`);
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
  expect(line, stdout).toBeDefined();
  return JSON.parse(line!.slice('BENCH_RESULT '.length)) as { bench: string; load: string; figures: Record<string, number | null> };
}

async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: adminPgUrl() });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

const exactlyOnce = (figures: Record<string, number | null>, prefix: string) => {
  expect(figures[`${prefix} lost`]).toBe(0);
  expect(figures[`${prefix} duplicated`]).toBe(0);
};

describe('benchmarks at tiny size', { timeout: 240_000 }, () => {
  it('bench:storefront scores the cart page with and without the block', async () => {
    const r = await bench('storefront', []);
    expect(r.figures['storefront score with the block']).toBeTypeOf('number');
    expect(r.figures['storefront score drop']).toBeTypeOf('number');
  });

  it("bench:admin-call measures the app's Admin API client beside undici's fetch and request, back to back and paced", async () => {
    const r = await bench('admin-call', []);
    for (const f of ['admin API client CPU per call', 'undici fetch CPU per call', 'undici request CPU per call', 'admin API client CPU per call at 50/s', 'undici request CPU per call at 50/s', 'timer wake CPU at 50/s']) {
      expect(r.figures[f], f).toBeGreaterThan(0);
    }
  });

  it('bench:slots answers every signed app proxy request', async () => {
    const r = await bench('slots', ['--db=sqlite']);
    expect(r.figures['sqlite proxy errors']).toBe(0);
    expect(r.figures['sqlite proxy slots p99']).toBeTypeOf('number');
  });

  it('bench:intake measures the app and the floor and loses no acknowledged order', async () => {
    const r = await bench('intake', ['--db=sqlite'], { BENCH_SECONDS: '1' });
    exactlyOnce(r.figures, 'sqlite');
    for (const f of ['sqlite intake saturation', 'sqlite floor saturation', 'sqlite intake / floor', 'sqlite app CPU per intake request', 'sqlite app idle RSS']) {
      expect(r.figures[f], f).toBeTypeOf('number');
    }
    expect(r.figures['sqlite floor saturation']).toBeGreaterThan(0);
  });

  it('bench:dispatch books every order exactly once and splits the lag', async () => {
    const r = await bench('dispatch', ['--db=sqlite'], { BENCH_ORDERS: '10' });
    exactlyOnce(r.figures, 'sqlite');
    for (const f of ['sqlite dispatch throughput', 'sqlite lag p99: courier answer', 'sqlite lag p99: our writes after the call', 'sqlite app CPU per booked order']) {
      expect(r.figures[f], f).toBeTypeOf('number');
    }
  });

  it('bench:flash loses and duplicates nothing while the courier fails creates', async () => {
    const r = await bench('flash', ['--db=sqlite'], { BENCH_ORDERS: '30' });
    exactlyOnce(r.figures, 'sqlite');
    expect(r.figures['sqlite time until every order CREATED']).toBeTypeOf('number');
    expect(r.figures['sqlite peak intake p99 (1 s window)']).toBeTypeOf('number');
    // The Shopify side (test/bench/shopify-side.ts): a standard and a Plus bucket, every order delivered in Shopify.
    for (const row of ['sqlite', 'sqlite Plus']) {
      expect(r.figures[`${row} Shopify paid calls per order`]).toBeLessThanOrEqual(5);
      for (const f of ['Shopify write-back time / floor', 'Shopify points per order', 'THROTTLED answers / paid calls', 'other shop paid to CREATED p99']) expect(r.figures[`${row} ${f}`], f).toBeTypeOf('number');
    }
  });

  it('bench:scale runs two instances on PostgreSQL without losing or duplicating', async (ctx) => {
    if (!(await postgresReachable())) ctx.skip();
    const r = await bench('scale', [], { BENCH_ORDERS: '10', BENCH_INSTANCES: '2' });
    exactlyOnce(r.figures, '2 instance(s)');
    expect(r.figures['2 instance(s) throughput']).toBeTypeOf('number');
    // Item 5's model: PostgreSQL's own CPU and the instances' round trips per booked order, read from outside the app.
    expect(r.figures['2 instance(s) postgres CPU per order']).toBeGreaterThan(0);
    expect(r.figures['2 instance(s) round trips per order']).toBeGreaterThan(0);
    expect(r.figures['2 instance(s) orders/s per database core']).toBeGreaterThan(0);
  });
});
