// `npm run demo`: the app doing its whole job on one machine, with no Shopify store
// and no courier account. It starts the sandbox courier, the shop simulator, the local
// geocoder double and the app as child processes over a fresh SQLite database in a temporary directory,
// installs a demo shop through Shopify-managed install and token exchange, configures it with the operator
// CLI, places every fixture order, prints each step as it happens and ends with a
// summary table. Exit code 0 when every order ended as expected (see
// FIXTURE_EXPECTATIONS in merchant.ts), 1 otherwise.
//
//   npm run demo                  run once, then stop everything
//   npm run demo -- --serve       run once, then keep everything running to explore
//   npm run demo -- --step-ms 800 slower courier status steps (default 500 ms)
import { parseArgs } from 'node:util';
import {
  checkOrder, collectOrders, expectationFor, FIXTURE_EXPECTATIONS, FIXTURE_ORDER, onboardShop, SANDBOX_ACCOUNT, shopDomain, shopifyShowsDelivered,
  type Expectation, type OrderState,
} from './merchant.ts';
import { formatMoney, ProgressTracker, type Snapshot } from './progress.ts';
import { startStack, type Stack } from './stack.ts';
import { trackingPageStep } from './tracking.ts';
import { demoCheckoutRate } from './rates.ts';
import { demoDeliveryWindows } from './windows.ts';
import { demoDeliverySlots } from './slots.ts';

const SHOP = shopDomain('demo');
/** From the first order placed until every order must have settled. */
const SETTLE_TIMEOUT_MS = 75_000;

const out = (line = '') => process.stdout.write(`${line}\n`);
/** Progress lines stop as soon as we are shutting down. */
const progress = (line: string) => {
  if (!stopping) out(line);
};
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let args;
try {
  args = parseArgs({ options: { serve: { type: 'boolean' }, 'step-ms': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: false }).values;
} catch (e) {
  process.stderr.write(`demo: ${(e as Error).message.split('\n')[0]}\nUsage: npm run demo [-- --serve] [--step-ms N]\n`);
  process.exit(2);
}
if (args.help) {
  out('Usage: npm run demo [-- --serve] [--step-ms N]');
  out('  --serve       keep the courier sandbox, the shop simulator and the app running afterwards (Ctrl-C stops them)');
  out('  --step-ms N   courier status step interval in the sandbox, ms (default 500)');
  process.exit(0);
}
const stepMs = args['step-ms'] === undefined ? 500 : Number(args['step-ms']);
if (!Number.isInteger(stepMs) || stepMs < 50 || stepMs > 60_000) {
  process.stderr.write('demo: --step-ms must be a whole number of milliseconds from 50 to 60000\n');
  process.exit(2);
}
const serve = !!args.serve;

let stack: Stack | null = null;
let stopping = false;
let result: boolean | null = null;

async function shutdown(code: number, why?: string): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (why) out(`\n${why}`);
    if (stack) {
      out('Stopping the app, the shop simulator and the sandbox courier…');
      await stack.stop().catch((e) => out(`  (while stopping: ${(e as Error).message})`));
      out(`Logs and the database stay in ${stack.dir}`);
    }
    process.exit(code);
  }
  return new Promise<never>(() => {});
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void shutdown(serve && result === true ? 0 : signal === 'SIGINT' ? 130 : 143, `${signal} received.`));
}

/** Has this order reached its expected end, or an end where it will stay (a merchant must act)? */
function settled(o: Snapshot['orders'][number], exp: Expectation | undefined, snap: Snapshot): boolean {
  const d = snap.deliveries.find((x) => x.shopifyOrderId === o.id);
  if (d && ['NEEDS_ATTENTION', 'SKIPPED', 'FAILED'].includes(d.status)) return exp?.outcome !== 'DELIVERED' ? d.status === exp?.outcome : true;
  if (!exp || exp.outcome !== 'DELIVERED') return false;
  return shopifyShowsDelivered(o);
}

function summary(states: Array<OrderState & { fixture: string; exp?: Expectation; problems: string[] }>): string[] {
  const rows = [['ORDER', 'FIXTURE', 'OUTCOME', 'ENV', 'PRICE', 'JOB ID', 'SHOPIFY', 'RESULT', 'REASON']];
  for (const s of states) {
    const d = s.delivery;
    rows.push([
      s.shopify.name,
      s.fixture,
      d?.status ?? '(none)',
      d?.environment ?? '-',
      formatMoney(d?.deliveryPrice, d?.currency),
      d?.dispatchJobId ?? '-',
      s.shopify.fulfillmentStatus,
      s.problems.length ? 'UNEXPECTED' : 'as expected',
      d?.reason ?? '',
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}`);
  lines.splice(1, 0, `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  return lines;
}

async function run(): Promise<boolean> {
  const started = Date.now();
  out('Same-Day Dispatch demo: a paid Shopify order → a same-day courier booking → Shopify fulfillment and tracking.');
  out('Everything runs locally: the sandbox courier, the shop simulator and the app are child processes; the database is a fresh SQLite file.\n');

  out('1. Starting the three processes');
  stack = await startStack({ stepIntervalMs: 0, geocoder: true, onStep: (l) => out(`   ${l}`) });
  const s = stack;
  out(`   logs             ${s.logs.app}`);
  out(`                    ${s.logs.shopSim}`);
  out(`                    ${s.logs.sandbox}`);
  out(`                    ${s.logs.cli}`);
  const tStack = Date.now();

  out('\n2. A merchant installs the app and connects a courier account');
  // The Cape Town store (Shopify location 71000000002) picks up from the courier's second store.
  await onboardShop(s, SHOP, SANDBOX_ACCOUNT, { checks: true, configure: ['--location-store', '71000000002=store_sandbox_002'], onStep: (l) => out(`   ${l}`) });
  await s.courier.updateSettings({ stepIntervalMs: stepMs });
  out(`   courier sandbox: every booked delivery moves one status every ${stepMs} ms`);
  const tSetup = Date.now();

  const fixtures = await s.sim.fixtures();
  const ordered = [...FIXTURE_ORDER.filter((f) => fixtures.includes(f)), ...fixtures.filter((f) => !FIXTURE_ORDER.includes(f))];
  out(`\n3. Customers pay ${ordered.length} orders (fixtures in dev/shop-sim/orders); progress as it happens`);
  out(ProgressTracker.header());
  const tracker = new ProgressTracker(s, SHOP, progress, { t0: Date.now() });
  const fixtureOf = new Map<string, string>();
  for (const fixture of ordered) {
    const r = await s.sim.placeOrder(SHOP, { fixture });
    fixtureOf.set(r.order.id, fixture);
    tracker.label(r.order.id, expectationFor(FIXTURE_EXPECTATIONS[fixture], true)?.label ?? fixture);
    const a = r.webhook?.attempts[0];
    tracker.paid(r.order, `orders/paid → app: ${a?.status ? `HTTP ${a.status}` : (a?.error ?? 'not sent')}`);
  }
  const tPlaced = Date.now();

  const deadline = tPlaced + SETTLE_TIMEOUT_MS;
  let timedOut = false;
  let rechecks = 0;
  let states: Array<OrderState & { fixture: string; exp?: Expectation; problems: string[] }> = [];
  for (;;) {
    if (!s.appRunning()) throw new Error(`the app exited; its log ends with:\n${s.tail('app', 15)}`);
    const snap = await tracker.poll();
    const allSettled = snap.orders.every((o) => settled(o, expectationFor(FIXTURE_EXPECTATIONS[fixtureOf.get(o.id) ?? ''], true), snap));
    if (allSettled || Date.now() > deadline) {
      const deliveries = await tracker.refreshDeliveries();
      await tracker.poll();
      states = (await collectOrders(s, SHOP, deliveries)).map((st) => {
        const fixture = fixtureOf.get(st.orderId) ?? '(not a fixture)';
        const exp = expectationFor(FIXTURE_EXPECTATIONS[fixture], true);
        return { ...st, fixture, exp, problems: exp ? checkOrder(st, exp) : ['no expectation is stated for this fixture in dev/demo/merchant.ts'] };
      });
      const ok = states.every((st) => !st.problems.length);
      // Settled by the quick signals but one check still lags (the app's own status): look again shortly.
      if (ok || Date.now() > deadline || ++rechecks > 4) {
        timedOut = !allSettled;
        break;
      }
      await sleep(750);
      continue;
    }
    await sleep(200);
  }
  const tDone = Date.now();

  // After the orders, so turning rates on (its code joins the same-day methods) changes no order's reason.
  out('\n   Checkout: the merchant turns on the same-day rate; the shop simulator asks for it as Shopify does');
  const rateOk = await demoCheckoutRate(s, SHOP, (l) => out(`   ${l}`));

  const ok = rateOk && states.every((st) => !st.problems.length);
  out(`\n4. Summary${timedOut ? ` (not every order settled within ${SETTLE_TIMEOUT_MS / 1000} s)` : ''}`);
  for (const l of summary(states)) out(l);
  out('');
  out('   Expected: the Johannesburg, Cape Town, Durban, local-phone and multi-location orders and the test order are delivered and');
  out('   fulfilled (the test order in the test courier environment); no-coordinates is geocoded automatically (the local');
  out('   Nominatim double) and delivered; local pickup is skipped. Each delivered order: exactly one courier order and one Shopify');
  out('   fulfillment, tracking number = job id, events OUT_FOR_DELIVERY → DELIVERED (the ones a customer sees).');
  for (const st of states.filter((x) => x.exp?.locationId)) {
    const assigned = st.shopify.fulfillmentOrders.map((f) => f.locationId).join(', ');
    out(`   ${st.shopify.name} (${st.fixture}): ${st.exp!.why}. Fulfillment order assigned to location ${assigned}; booked from location ${st.delivery?.locationId ?? '(none)'}.`);
  }
  for (const st of states.filter((x) => x.problems.length)) {
    out(`\n   ${st.shopify.name} (${st.fixture}) did not end as expected:`);
    for (const p of st.problems) out(`     - ${p}`);
  }
  const tracking = await trackingPageStep(states, out);
  if (tracker.cliError) out(`\n   (the last CLI call failed: ${tracker.cliError})`);
  out('');
  out(`   Timings: processes up ${secs(tStack - started)}, install and set-up ${secs(tSetup - tStack)}, ` +
    `orders paid → all settled ${secs(tDone - tPlaced)}, total ${secs(Date.now() - started)}.`);
  out(ok ? '   Result: every order ended as expected.' : '   Result: some orders did NOT end as expected (see above and the logs).');
  out('\nDelivery windows: an order paid while the pickup location is closed, then the clock moved to the opening');
  const windows = await demoDeliveryWindows(s, SHOP, out);
  out('\nDelivery slots: the customer picks a slot on the cart, the order is scheduled for it and booked then');
  const slots = await demoDeliverySlots(s, SHOP, out);
  return windows && slots && ok && tracking;
}

async function serveForever(s: Stack): Promise<never> {
  const sim = s.urls.shopSim;
  const q = (v: string) => `'${v}'`;
  const cliEnv = `DATABASE_URL=${s.appEnv.DATABASE_URL} ENCRYPTION_KEY=${s.appEnv.ENCRYPTION_KEY}`;
  out('\nEverything keeps running. Ctrl-C stops it.');
  out(`  courier sandbox  ${s.urls.sandbox}/_sandbox/state     orders: /_sandbox/orders   webhooks sent: /_sandbox/webhooks`);
  out(`  shop simulator   ${sim}/_sim/state         orders: /_sim/shops/${SHOP}/orders`);
  out(`  app              ${s.urls.app}/readyz            courier webhooks: POST /webhooks/delivery/<endpoint>`);
  out('\nPlace more orders through the simulator (each sends a signed orders/paid to the app):');
  out(`  curl -s -X POST ${sim}/_sim/shops/${SHOP}/orders -H 'content-type: application/json' -d ${q('{"fixture": "sandton-same-day", "ids": "fresh"}')}`);
  out(`  curl -s -X POST ${sim}/_sim/shops/${SHOP}/orders -H 'content-type: application/json' -d ${q('{"fixture": "durban-same-day", "ids": "fresh", "overrides": {"note": "Gate code 1234"}}')}`);
  out('Look at an order in Shopify (fulfillments, events, metafields, tags) and at the courier:');
  out(`  curl -s ${sim}/_sim/shops/${SHOP}/orders/<order id>`);
  out(`  curl -s ${s.urls.sandbox}/_sandbox/orders`);
  out('Place an order whose address the geocoder is not sure of (a street without house numbers): it waits for the merchant');
  out('with the candidate location (the delivery page: Use this location); or fix it as a merchant would:');
  out(`  curl -s -X POST ${sim}/_sim/shops/${SHOP}/orders -H 'content-type: application/json' -d ${q('{"fixture": "no-coordinates", "ids": "fresh", "overrides": {"shipping_address": {"name": "Sipho Dlamini", "address1": "8115 Vilakazi Street", "city": "Soweto", "province": "Gauteng", "zip": "1804", "country_code": "ZA", "phone": "+27 82 555 0199"}}}')}`);
  out(`  ${cliEnv} npm run cli -- fix ${SHOP} '#<order number>' --lat=-26.2384 --lng=27.9086`);
  out('The operator CLI on this database:');
  out(`  ${cliEnv} npm run cli -- deliveries ${SHOP}`);
  out(`Logs: tail -f ${s.logs.app}\n`);
  out(ProgressTracker.header());
  const tracker = new ProgressTracker(s, SHOP, progress, { cliEveryMs: 3_000 });
  // What already happened was printed above: take it in without printing it again.
  await tracker.refreshDeliveries().catch(() => {});
  await tracker.poll({ silent: true }).catch(() => {});
  for (;;) {
    if (!s.appRunning()) await shutdown(1, `The app exited; its log ends with:\n${s.tail('app', 15)}`);
    try {
      await tracker.poll();
    } catch (e) {
      if (!stopping) out(`  (poll failed: ${(e as Error).message.split('\n')[0]})`);
    }
    await sleep(500);
  }
}

try {
  result = await run();
  if (serve && stack) await serveForever(stack);
  await shutdown(result ? 0 : 1);
} catch (e) {
  if (!stopping) {
    process.stderr.write(`\ndemo failed: ${(e as Error).message}\n`);
    await shutdown(1);
  }
}
