// bench:flash, the Shopify side (issue 25, docs/shopify-rate-limits.md): a sale on a shop with a
// simulated standard-plan (or Plus) Admin API bucket, while a second shop pays 1 order/s. The
// sandbox courier moves every order one status a second to delivered. Read from the outside:
// the simulator's bucket (points spent, paid calls, THROTTLED answers), its orders (a DELIVERED
// fulfillment event each), and the app's database (the other shop's paid → CREATED).
import { openMigratedDatabase } from '../../web/db/migrate.ts';
import { accountFor, onboardShop, shopDomain } from '../../dev/demo/merchant.ts';
import { openLoop, percentile, type Figure } from './lib.ts';
import { withStack } from './orders.ts';

export interface ShopifySideOptions {
  n: number;
  rate: number;
  timeoutMs: number;
}

export async function shopifySide(provider: 'sqlite' | 'postgres', plan: 'standard' | 'plus', o: ShopifySideOptions): Promise<Figure[]> {
  const row = plan === 'standard' ? provider : `${provider} Plus`;
  const r = await withStack(provider, {}, async (stack, shop) => {
    const other = shopDomain('bench-other');
    await onboardShop(stack, other, accountFor(other));
    await stack.sim.setApiLimits(shop, { plan });
    await stack.sim.setApiLimits(other, { plan: 'standard' });
    await stack.courier.updateSettings({ stepIntervalMs: 1_000 });
    const { database } = await openMigratedDatabase(stack.database.url, { poolSize: 1 });
    try {
      const t0 = Date.now();
      let saleOn = true;
      const otherLoop = (async () => {
        while (saleOn) {
          const next = Date.now() + 1_000;
          await stack.sim.placeOrder(other, { fixture: 'sandton-same-day', ids: 'fresh', wait: true }).catch(() => undefined);
          await new Promise((res) => setTimeout(res, Math.max(0, next - Date.now())));
        }
      })();
      const placed = await openLoop(o.rate, (o.n / o.rate) * 1000, async () => {
        await stack.sim.placeOrder(shop, { fixture: 'sandton-same-day', ids: 'fresh', wait: true });
      });
      saleOn = false;
      await otherLoop;
      const deadline = t0 + o.timeoutMs;
      let delivered = 0;
      let doneAt = NaN;
      while (Date.now() < deadline) {
        const orders = await stack.sim.orders(shop);
        delivered = orders.filter((x) => x.fulfillments.some((f) => f.status === 'SUCCESS' && f.events.some((e) => e.status === 'DELIVERED'))).length;
        if (delivered >= placed.latencies.length) {
          doneAt = Date.now();
          break;
        }
        await new Promise((res) => setTimeout(res, 1_000));
      }
      const limits = await stack.sim.apiLimits(shop);
      const otherRows = await database.db.delivery.findMany({ where: { shop: { domain: other } }, select: { createdAt: true, dispatchedAt: true } });
      const lags = otherRows.map((x) => (x.dispatchedAt ? x.dispatchedAt.getTime() - x.createdAt.getTime() : Number.POSITIVE_INFINITY)).sort((a, b) => a - b);
      return { placed: placed.latencies.length, delivered, ms: doneAt - t0, limits, otherP99: percentile(lags, 99), otherN: lags.length };
    } finally {
      await database.close();
    }
  });
  if (!r) return [];
  const floorMs = (r.limits.spent / r.limits.restoreRate) * 1000;
  console.log(`\n${row} (Shopify side): ${r.placed} sale orders at ${o.rate}/s on a ${plan} bucket (${r.limits.maximumAvailable} points, ${r.limits.restoreRate}/s)`);
  console.log(`  ${r.delivered}/${r.placed} fulfilled and delivered in Shopify${Number.isFinite(r.ms) ? ` after ${(r.ms / 1000).toFixed(1)} s` : ' (NOT COMPLETE at the deadline)'}; floor (points ÷ restore) ${(floorMs / 1000).toFixed(1)} s`);
  console.log(`  ${r.limits.paidCalls} paid calls, ${r.limits.spent} points, ${r.limits.throttled} THROTTLED; other shop: ${r.otherN} orders, paid → CREATED p99 ${r.otherP99} ms`);
  const per = (x: number) => x / Math.max(1, r.placed);
  return [
    { name: `${row} Shopify write-back time / floor`, value: r.ms / floorMs, unit: 'x', target: { op: '<=', limit: 1.2 } },
    { name: `${row} Shopify points per order`, value: per(r.limits.spent), unit: 'points', target: { op: '<=', limit: 60 } },
    { name: `${row} Shopify paid calls per order`, value: per(r.limits.paidCalls), unit: 'calls', target: { op: '<=', limit: 5 } },
    { name: `${row} THROTTLED answers / paid calls`, value: (r.limits.throttled / Math.max(1, r.limits.paidCalls)) * 100, unit: '%', target: { op: '<=', limit: 5 } },
    { name: `${row} other shop paid to CREATED p99`, value: r.otherP99, unit: 'ms', target: { op: '<', limit: 2000 } },
  ];
}
