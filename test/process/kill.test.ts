// The crash the whole design is for: the app (a real child process) is
// SIGKILLed after the courier committed the order but before the app stored
// the answer. After a restart there is still exactly one courier order, and
// the delivery is CREATED. Runs on SQLite and on PostgreSQL. Shopify is the shop
// simulator (dispatch reads the order's fulfillment orders), reached through the
// development entry point (dev/start.ts), as in the demo.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../web/db/client.ts';
import { SandboxControl } from '../../dev/sandbox/control.ts';
import { startSandboxCourier, type RunningSandbox } from '../../dev/sandbox/courier.ts';
import { ShopSimControl } from '../../dev/shop-sim/control.ts';
import { startShopSimulator, type RunningShopSimulator } from '../../dev/shop-sim/server.ts';
import { TEST_API_KEY, TEST_API_SECRET } from '../support/app.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { ROOT } from '../support/paths.ts';
import { scratchDatabase } from '../support/scratch-db.ts';
import { childAppEnv, spawnApp, waitFor, type AppProcess } from '../support/process.ts';

let sandbox: RunningSandbox;
let courier: SandboxControl;
let sim: RunningShopSimulator;
let shopify: ShopSimControl;
beforeAll(async () => {
  sandbox = await startSandboxCourier({ webhooksEnabled: false });
  courier = new SandboxControl(sandbox.url);
  sim = await startShopSimulator({ apiKey: TEST_API_KEY, apiSecret: TEST_API_SECRET, appUrl: 'http://127.0.0.1:9' });
  shopify = new ShopSimControl(sim.url);
});
afterAll(async () => {
  await sandbox?.close();
  await sim?.close();
});

describe.each(['sqlite', 'postgres'] as const)('SIGKILL after the courier committed (%s)', (provider) => {
  it('restarts into exactly one courier order and a CREATED delivery', async () => {
    const database = (await scratchDatabase(provider))!;
    const env = childAppEnv(database.url, {
      COURIER_TEST_BASE_URL: sandbox.url,
      SHOP_SIMULATOR_URL: sim.url,
      JOB_TIMEOUT_SECONDS: '4',
    });
    const apps: AppProcess[] = [];
    let opened: Database | null = null;
    try {
      let app = spawnApp(env, { entry: 'dev/start.ts' });
      apps.push(app);
      const url = await app.url();
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'the app to be ready', 60_000);

      const shop = `kill-${provider}.myshopify.com`;
      await shopify.updateSettings({ appUrl: url });
      await shopify.installApp({ appUrl: url, shop });
      const cli = spawnSync(
        process.execPath,
        [join(ROOT, 'web/cli/main.ts'), 'configure', shop, '--auto-dispatch', 'on', '--client-id', 'sandbox-client-id', '--client-secret', 'env', '--pickup-store', 'store_sandbox_001'],
        { env: { PATH: process.env.PATH, ...env, COURIER_CLIENT_SECRET: 'sandbox-client-secret', LOG_LEVEL: 'error' }, encoding: 'utf8' },
      );
      expect(cli.stderr).toBe('');
      expect(cli.status).toBe(0);

      // The courier commits the order, then holds its answer: the window in which we kill the app.
      await courier.addFault({ route: 'create', type: 'delay_after_commit', latencyMs: 15_000 });
      const payload = paidOrder();
      const reference = orderIdOfPayload(payload);
      const placed = await shopify.placeOrder(shop, { payload, routing: true, wait: true });
      expect(placed.order.id).toBe(reference);
      await waitFor(async () => (await courier.ordersCreatedFor(reference)) === 1, 'the courier to commit the order', 30_000);
      app.child.kill('SIGKILL');
      await app.exited;

      opened = await openDatabase(database.url);
      const dbh = opened.db;
      const before = await dbh.delivery.findFirstOrThrow({ where: { shopifyOrderId: reference } });
      expect(before.status).toBe('PENDING'); // killed before our write
      expect(before.courierOrderId).toBeNull();
      expect(before.idempotencyKey).not.toBeNull(); // the key and body were stored before the call

      app = spawnApp(env, { entry: 'dev/start.ts' });
      apps.push(app);
      await app.url();
      const after = await waitFor(async () => {
        const d = await dbh.delivery.findFirst({ where: { shopifyOrderId: reference } });
        return d?.status === 'CREATED' ? d : null;
      }, 'the delivery to become CREATED after the restart', 60_000);

      const [order] = await courier.orders({ reference });
      expect(await courier.ordersCreatedFor(reference)).toBe(1);
      expect(after.courierOrderId).toBe(order!.id);
      expect(after.dispatchJobId).toBe(order!.dispatchId);
      expect(after.idempotencyKey).toBe(before.idempotencyKey);
      // The create in flight when the app died is never sent again: after the in-flight window it is looked up and adopted.
      expect((await courier.requests({ route: 'create' })).filter((r) => r.idempotencyKey === before.idempotencyKey)).toHaveLength(1);
      expect(await dbh.deliveryEvent.count({ where: { deliveryId: after.id, kind: 'adopted' } })).toBe(1);
    } finally {
      for (const a of apps) if (a.child.exitCode === null) a.child.kill('SIGKILL');
      await Promise.all(apps.map((a) => a.exited));
      await opened?.close();
      await courier.clearFaults();
      await database.drop();
    }
  }, 120_000);
});
