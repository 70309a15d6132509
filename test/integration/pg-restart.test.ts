// Issue 24's second crash guarantee: PostgreSQL itself restarts (immediate mode, as after a
// crash) in the middle of a burst of orders/paid webhooks. The app stays up, Shopify retries
// whatever got no 200, and every order still ends booked at the courier exactly once.
// On a private cluster (test/support/private-postgres.ts), never the shared server.
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../web/db/migrate.ts';
import { testProvider } from '../support/db.ts';
import { orderIdOfPayload, paidOrder } from '../support/orders.ts';
import { startPrivatePostgres } from '../support/private-postgres.ts';
import { waitFor } from '../support/process.ts';
import { installShop, startScenario } from '../support/scenario.ts';
import { shopifyWebhookHeaders } from '../support/shopify.ts';

const BURST = 150;

describe.runIf(testProvider() === 'postgres')('PostgreSQL restarts mid-burst', () => {
  it('every order still ends booked exactly once', async () => {
    const cluster = await startPrivatePostgres();
    let scenario: Awaited<ReturnType<typeof startScenario>> | undefined;
    try {
      const url = await cluster.createDatabase('sdd_restart');
      await migrateDatabase(url);
      // A job whose attempt pg-boss could not settle while PostgreSQL was down stays active until
      // it expires (JOB_TIMEOUT_SECONDS, 300 by default), then runs again: 20 s keeps the test short.
      const s = (scenario = await startScenario({ databaseUrl: url, env: { JOB_TIMEOUT_SECONDS: '20' } }));
      const shop = 'pg-restart.myshopify.com';
      const sim = await installShop(s, shop);

      const webhooks = Array.from({ length: BURST }, () => {
        const payload = paidOrder();
        sim.addOrder(payload);
        const body = JSON.stringify(payload);
        return { orderId: orderIdOfPayload(payload), body, headers: shopifyWebhookHeaders('orders/paid', shop, body) };
      });
      const acked = new Set<number>();
      const refused: number[] = [];
      const direct = new Agent();
      // As Shopify does: an answer later than 5 s counts as a failure and is retried.
      const send = async (i: number) => {
        const w = webhooks[i]!;
        const status = await request(`${s.app.url}/api/webhooks`, { method: 'POST', headers: w.headers, body: w.body, dispatcher: direct, headersTimeout: 5_000, bodyTimeout: 5_000 })
          .then(async (res) => {
            await res.body.dump();
            return res.statusCode;
          })
          .catch(() => 0);
        if (status === 200) acked.add(i);
        else refused.push(i);
      };
      // Open loop at ~300/s; PostgreSQL restarts once a third is acknowledged, with the rest in flight.
      const sent: Promise<void>[] = [];
      let restart: Promise<void> | undefined;
      for (let i = 0; i < BURST; i++) {
        sent.push(send(i));
        if (i % 3 === 2) await new Promise((r) => setTimeout(r, 10));
        if (!restart && acked.size >= BURST / 3) restart = cluster.restart();
      }
      restart ??= cluster.restart();
      await Promise.all(sent);
      await restart;
      // The restart landed mid-burst: some requests were refused while PostgreSQL was down.
      const refusedDuringRestart = refused.length;

      // Shopify retries whatever it got no 200 for, until it gets one.
      await waitFor(async () => {
        const again = refused.splice(0);
        await Promise.all(again.map(send));
        return acked.size === BURST;
      }, 'every webhook acknowledged after the restart', 60_000);

      // Settled: no delivery still PENDING. Then every one must be booked, none FAILED on the way.
      const booked = await waitFor(async () => {
        const rows = await s.app.db.delivery.findMany({ where: { shop: { domain: shop } }, select: { shopifyOrderId: true, status: true, reason: true, courierOrderId: true } });
        return rows.length === BURST && rows.every((d) => d.status !== 'PENDING') ? rows : null;
      }, 'every order settled', 150_000);
      expect(booked.filter((d) => d.status !== 'CREATED' || !d.courierOrderId)).toEqual([]);
      expect(new Set(booked.map((d) => d.shopifyOrderId))).toEqual(new Set(webhooks.map((w) => w.orderId)));

      // Exactly once at the courier: one courier order per Shopify order.
      const perOrder = await Promise.all(webhooks.map(async (w) => (await s.courier.orders({ reference: w.orderId })).length));
      expect(refusedDuringRestart).toBeGreaterThan(0);
      expect({ lost: perOrder.filter((n) => n === 0).length, duplicated: perOrder.filter((n) => n > 1).length }).toEqual({ lost: 0, duplicated: 0 });
    } finally {
      // close() bounds its own wait for the driver (web/db/client.ts DISCONNECT_TIMEOUT_MS).
      try {
        await scenario?.close();
      } finally {
        await cluster.stop();
      }
    }
  }, 300_000);
});
