// Price quotes: built exactly as dispatch would build its request, in the
// shop's active environment, and compared with the merchant's maximum.
import type { AppContext } from '../../context.ts';
import { readOrderJson, readOverridesJson } from '../../db/json-columns.ts';
import { serializeCreateOrder } from '../../delivery/index.ts';
import { buildRequest } from '../../dispatch/dispatcher.ts';
import { toCents } from '../../order/money.ts';
import { parseOrderSnapshot, type OrderSnapshot, type Overrides } from '../../order/snapshot.ts';
import { problemsMessage } from '../../dispatch/service.ts';
import { parseStoredSettings } from '../../settings/schema.ts';
import { requireShop } from '../../settings/store.ts';
import { fetchOrderAsPayload } from '../../shopify/operations.ts';
import { ApiError } from '../errors.ts';
import { findByOrderId, requireDelivery } from './delivery.ts';
import { readAccess } from './settings.ts';

async function quoteFor(ctx: AppContext, domain: string, order: OrderSnapshot, overrides: Overrides) {
  const shop = await requireShop(ctx.db, domain);
  const settings = parseStoredSettings(shop.settings);
  const env = settings.activeEnvironment;
  const access = await readAccess(ctx, shop.id, env);
  const client = ctx.courier.for(domain, access);
  const mapped = await buildRequest(ctx, domain, order, overrides, env, settings, access);
  if (!mapped.ok) throw new ApiError(422, `Cannot quote this order: ${problemsMessage(mapped.problems)}`);
  const q = await client.quote(serializeCreateOrder(mapped.request));
  const max = settings.maxDeliveryPrice;
  return {
    environment: env,
    orderName: order.name,
    price: q.price,
    currency: q.currency,
    maxDeliveryPrice: max,
    aboveMax: max !== null && (toCents(q.price) ?? 0n) > (toCents(max) ?? 0n),
  };
}

/** A recorded delivery, with its corrections. */
export async function quoteDelivery(ctx: AppContext, domain: string, id: string) {
  const d = await requireDelivery(ctx, domain, id);
  return quoteFor(ctx, domain, readOrderJson(d), readOverridesJson(d));
}

/** A Shopify order: ours when recorded, else fetched from Shopify. */
export async function quoteOrder(ctx: AppContext, domain: string, orderId: string) {
  const d = await findByOrderId(ctx, domain, orderId);
  if (d) return quoteFor(ctx, domain, readOrderJson(d), readOverridesJson(d));
  const payload = await fetchOrderAsPayload(ctx.admin, domain, orderId);
  if (!payload) throw new ApiError(404, `Shopify has no order ${orderId} on this shop`);
  return quoteFor(ctx, domain, parseOrderSnapshot(payload), {});
}
