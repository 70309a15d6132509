// The settings page's Shopify Flow section: what the app offers in Flow and
// this shop's use of it (GET /api/flow).
import type { AppContext } from '../../context.ts';
import { FLOW_ACTION_INFO, FLOW_ADMIN_URL, FLOW_TRIGGER_INFO } from '../../flow/catalogue.ts';
import { parseStoredSettings } from '../../settings/schema.ts';
import { ensureShop } from '../../settings/store.ts';
import type { FlowStatus } from '../contract.ts';

const WEEK_MS = 7 * 86_400_000;

export async function flowStatus(ctx: AppContext, domain: string): Promise<FlowStatus> {
  const shop = await ensureShop(ctx.db, domain);
  const since = new Date(ctx.now() - WEEK_MS);
  const [usage, counts, failures] = await Promise.all([
    ctx.db.flowTriggerUsage.findMany({ where: { shopId: shop.id, enabled: true }, select: { trigger: true } }),
    ctx.db.flowTriggerEvent.groupBy({ by: ['trigger', 'state'], where: { shopId: shop.id, createdAt: { gte: since } }, _count: { _all: true } }),
    ctx.db.flowTriggerEvent.findMany({ where: { shopId: shop.id, state: 'failed', createdAt: { gte: since } }, orderBy: { updatedAt: 'desc' }, select: { trigger: true, outcome: true } }),
  ]);
  const count = (trigger: string, state: string) => counts.find((c) => c.trigger === trigger && c.state === state)?._count._all ?? 0;
  return {
    flowUrl: FLOW_ADMIN_URL,
    triggers: FLOW_TRIGGER_INFO.map((t) => ({
      handle: t.handle,
      name: t.name,
      description: t.description,
      inUse: usage.some((u) => u.trigger === t.handle || u.trigger === '*'),
      sent: count(t.handle, 'sent'),
      failed: count(t.handle, 'failed'),
      lastFailure: failures.find((f) => f.trigger === t.handle)?.outcome ?? null,
    })),
    actions: FLOW_ACTION_INFO.map(({ handle, name, description }) => ({ handle, name, description })),
    sendTestDeliveries: parseStoredSettings(shop.settings).flow.sendTestDeliveries,
  };
}
