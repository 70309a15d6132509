// Issue 24's crash guarantee: a 200 from /api/webhooks means the webhook is
// durable. The app (a real child process) takes a burst of orders/paid webhooks
// and is SIGKILLed mid-burst, while acknowledged webhooks still wait in the
// inbox. Every acknowledged webhook is in the inbox; after a restart, and after
// Shopify's retries of everything (acknowledged or not), every order has
// exactly one delivery row: 0 lost, 0 duplicated. SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../web/db/client.ts';
import { paidOrder, orderIdOfPayload } from '../support/orders.ts';
import { scratchDatabase } from '../support/scratch-db.ts';
import { childAppEnv, spawnApp, waitFor, type AppProcess } from '../support/process.ts';
import { shopifyWebhookHeaders } from '../support/shopify.ts';
import { migrateDatabase } from '../../web/db/migrate.ts';

const BURST = 400;

describe.each(['sqlite', 'postgres'] as const)('SIGKILL during a webhook burst (%s)', (provider) => {
  it('loses no acknowledged webhook and books no order twice', async () => {
    const database = (await scratchDatabase(provider))!;
    const env = childAppEnv(database.url);
    const shop = `crash-${provider}.myshopify.com`;
    const apps: AppProcess[] = [];
    let opened: Database | null = null;
    try {
      await migrateDatabase(database.url);
      opened = await openDatabase(database.url);
      const db = opened.db;
      // Installed, auto-dispatch off: each order becomes one delivery row (SKIPPED), no courier needed.
      await db.shop.create({ data: { domain: shop } });

      let app = spawnApp(env);
      apps.push(app);
      let url = await app.url();
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'the app to be ready', 60_000);

      const webhooks = Array.from({ length: BURST }, () => {
        const payload = paidOrder();
        const body = JSON.stringify(payload);
        return { orderId: orderIdOfPayload(payload), body, headers: shopifyWebhookHeaders('orders/paid', shop, body) };
      });
      const acked = new Set<number>();
      const send = async (target: string, i: number) => {
        const w = webhooks[i]!;
        const res = await fetch(`${target}/api/webhooks`, { method: 'POST', headers: w.headers, body: w.body });
        if (res.status === 200) acked.add(i);
      };
      // Open loop at ~1,000/s; the kill lands once a quarter is acknowledged, with the rest in flight.
      const sent: Promise<void>[] = [];
      for (let i = 0; i < BURST; i++) {
        sent.push(send(url, i).catch(() => {}));
        if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10));
        if (acked.size >= BURST / 4 && app.child.exitCode === null && !app.child.killed) app.child.kill('SIGKILL');
      }
      if (!app.child.killed) app.child.kill('SIGKILL');
      await Promise.all(sent);
      await app.exited;

      // Durable: every acknowledged webhook is in the inbox, and some still wait there.
      const keys = new Set((await db.webhookInbox.findMany({ select: { key: true } })).map((r) => r.key));
      const ackedIds = [...acked].map((i) => webhooks[i]!.headers['x-shopify-webhook-id']);
      expect(acked.size).toBeGreaterThan(0);
      expect(ackedIds.filter((id) => !keys.has(id))).toEqual([]);
      expect(await db.webhookInbox.count({ where: { state: 'pending' } })).toBeGreaterThan(0);

      app = spawnApp(env);
      apps.push(app);
      url = await app.url();
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'the restarted app to be ready', 60_000);
      // Shopify retries whatever it got no 200 for; we resend everything (a repeat must do nothing).
      for (let i = 0; i < BURST; i += 50) await Promise.all(webhooks.slice(i, i + 50).map((_, j) => send(url, i + j)));
      expect(acked.size).toBe(BURST);
      await waitFor(async () => (await db.webhookInbox.count({ where: { state: { not: 'done' } } })) === 0, 'the inbox to drain', 60_000);

      const deliveries = await db.delivery.groupBy({ by: ['shopifyOrderId'], _count: true });
      const lost = webhooks.filter((w) => !deliveries.some((d) => d.shopifyOrderId === w.orderId)).length;
      const duplicated = deliveries.filter((d) => d._count > 1).length;
      expect({ lost, duplicated, deliveries: deliveries.length }).toEqual({ lost: 0, duplicated: 0, deliveries: BURST });
      expect(await db.webhookReceipt.count()).toBe(BURST);
    } finally {
      for (const a of apps) if (a.child.exitCode === null) a.child.kill('SIGKILL');
      await Promise.all(apps.map((a) => a.exited));
      await opened?.close();
      await database.drop();
    }
  }, 180_000);
});
