// The Shopify topics the inbox worker handles, keyed by the library's storage form.
import type { AppContext } from '../context.ts';
import { ordersCancelledHandler, ordersPaidHandler, ordersUpdatedHandler } from '../dispatch/service.ts';
import { routingCompleteHandler } from '../dispatch/routing.ts';
import { appUninstalled, customersDataRequest, customersRedact, shopRedact } from './lifecycle.ts';
import type { TopicHandler, TopicHandlers } from '../inbox/shopify.ts';

export function shopifyTopicHandlers(ctx: Pick<AppContext, 'queue' | 'now' | 'box'>, forgetSessions: (shop: string) => void = () => {}): TopicHandlers {
  const { queue } = ctx;
  // These delete the shop's sessions in the webhook's transaction: drop any cached copy once it commits.
  const forgetting = (h: TopicHandler): TopicHandler => async (c) => {
    await h(c);
    c.afterCommit(() => forgetSessions(c.shop));
  };
  return {
    APP_UNINSTALLED: forgetting(appUninstalled),
    SHOP_REDACT: forgetting(shopRedact),
    CUSTOMERS_REDACT: customersRedact,
    CUSTOMERS_DATA_REQUEST: customersDataRequest,
    ORDERS_PAID: ordersPaidHandler(queue, ctx.now, ctx.box),
    ORDERS_CANCELLED: ordersCancelledHandler,
    ORDERS_UPDATED: ordersUpdatedHandler(queue),
    FULFILLMENT_ORDERS_ORDER_ROUTING_COMPLETE: routingCompleteHandler(queue),
  };
}
