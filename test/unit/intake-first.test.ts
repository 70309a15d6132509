// web/jobs/intake-first.ts: background jobs wait only while webhooks arrive AND the event loop
// runs late, and never longer than maxWaitMs. The clock for "busy" is injected; the loop delay
// is real (the test blocks the loop to create it).
import { afterEach, describe, expect, it } from 'vitest';
import { IntakeFirst } from '../../web/jobs/intake-first.ts';
import { registry } from '../../web/ops/metrics.ts';

const waitsCounted = async () => (await registry.getSingleMetric('sdd_job_intake_wait_seconds')!.get()).values.find((v) => (v as { metricName?: string }).metricName === 'sdd_job_intake_wait_seconds_count')?.value ?? 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Blocks the event loop for `ms` (what a long synchronous statement does). */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

const open: IntakeFirst[] = [];
afterEach(() => open.splice(0).forEach((g) => g.stop()));

function gate(opts: ConstructorParameters<typeof IntakeFirst>[0] = {}) {
  let t = 1_000;
  const g = new IntakeFirst({ now: () => t, ...opts });
  open.push(g);
  return { g, advance: (ms: number) => (t += ms) };
}

/** Keeps the event loop late, as a saturated process's is: a 25 ms block every few ms, until stopped. */
async function lateLoop(): Promise<() => void> {
  const t = setInterval(() => block(25), 5);
  stops.push(() => clearInterval(t));
  await sleep(60);
  return () => clearInterval(t);
}
const stops: Array<() => void> = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

describe('IntakeFirst', () => {
  it('does not hold jobs back in a process that receives no webhooks, however late its loop', async () => {
    const { g } = gate();
    block(40);
    await sleep(20);
    expect(g.busy).toBe(false);
    expect(g.yielding).toBe(false);
    const t0 = performance.now();
    await g.turn();
    expect(performance.now() - t0).toBeLessThan(5);
  });

  it('holds jobs back while webhooks arrive and the loop is late', async () => {
    const { g } = gate({ lagMs: 10 });
    g.received();
    await lateLoop();
    expect(g.busy).toBe(true);
    expect(g.lagMs).toBeGreaterThan(10);
    expect(g.yielding).toBe(true);
  });

  it('does not measure the loop at webhooks that find it mostly waiting (a courier\'s events between bookings)', async () => {
    const { g } = gate({ lagMs: 10 });
    await sleep(50); // the loop waited since the gate was made
    g.received();
    block(40); // late now, but no probe runs to see it
    await sleep(20);
    expect(g.busy).toBe(true);
    expect(g.lagMs).toBe(0);
    expect(g.yielding).toBe(false);
  });

  it('stops measuring once the loop mostly waits again, though webhooks keep arriving', async () => {
    const { g } = gate({ busyMs: 60_000, lagMs: 10 });
    g.received();
    const stopLate = await lateLoop();
    expect(g.lagMs).toBeGreaterThan(10);
    stopLate();
    await sleep(250); // over a look (100 ms) of a loop that waits
    block(40); // late again: the probe is gone, so nothing measures it
    await sleep(20);
    g.received(); // found the loop waiting for most of the time since the last look
    expect(g.lagMs).toBe(0);
    expect(g.yielding).toBe(false);
  });

  it('lets jobs start while webhooks arrive if the loop keeps up', async () => {
    // the probe measures in real time: a loop that is not blocked is on time within lagMs
    const { g } = gate({ lagMs: 30 });
    g.received();
    await sleep(40);
    expect(g.busy).toBe(true);
    expect(g.lagMs).toBeLessThan(30);
    expect(g.yielding).toBe(false);
  });

  it('stops holding jobs back busyMs after the last webhook', async () => {
    const { g, advance } = gate({ busyMs: 100, lagMs: 10 });
    g.received();
    await lateLoop();
    expect(g.yielding).toBe(true);
    advance(99);
    expect(g.yielding).toBe(true);
    advance(1);
    expect(g.busy).toBe(false);
    expect(g.yielding).toBe(false);
  });

  it('turn() waits while yielding and returns once intake goes quiet', async () => {
    const { g, advance } = gate({ busyMs: 100, lagMs: 10, maxWaitMs: 60_000 });
    g.received();
    await lateLoop();
    let done = false;
    const before = await waitsCounted();
    const waiting = g.turn().then(() => (done = true));
    await sleep(30);
    expect(done).toBe(false);
    advance(100); // no webhook for busyMs
    await waiting;
    expect(done).toBe(true);
    expect(await waitsCounted()).toBe(before + 1); // /metrics: sdd_job_intake_wait_seconds
  });

  it('turn() never waits longer than maxWaitMs, and an aborted signal ends the wait', async () => {
    const { g, advance } = gate({ busyMs: 60_000, lagMs: 10, maxWaitMs: 500 });
    g.received();
    await lateLoop();
    let done = false;
    const waiting = g.turn().then(() => (done = true));
    await sleep(30);
    expect(done).toBe(false);
    advance(500);
    await waiting;

    const ac = new AbortController();
    let aborted = false;
    const second = g.turn(ac.signal).then(() => (aborted = true));
    await sleep(30);
    expect(aborted).toBe(false);
    ac.abort();
    await second;
    expect(aborted).toBe(true);
  });
});
