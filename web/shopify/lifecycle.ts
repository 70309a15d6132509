// Install, uninstall and the three mandatory compliance topics. Each runs
// inside the webhook's receipt transaction (web/shopify/webhooks.ts).
import type { Session } from '@shopify/shopify-api';
import type { Db, Tx } from '../db/client.ts';
import { redactJsonText, scrubText } from '../privacy/redact.ts';
import type { TopicHandler } from './webhooks.ts';

/** afterAuth: the shop is (re)installed. */
export async function recordInstall(db: Db, session: Session): Promise<void> {
  await db.shop.upsert({
    where: { domain: session.shop },
    create: { domain: session.shop },
    update: { installedAt: new Date(), uninstalledAt: null },
  });
}

/** May arrive more than once, and after shop/redact removed the shop: both are no-ops. */
export const appUninstalled: TopicHandler = async ({ tx, shop, log }) => {
  const sessions = await tx.session.deleteMany({ where: { shop } });
  const shops = await tx.shop.updateMany({ where: { domain: shop, uninstalledAt: null }, data: { uninstalledAt: new Date() } });
  log.info({ sessionsDeleted: sessions.count, marked: shops.count > 0 }, 'app uninstalled');
};

/** 48 hours after uninstall: delete everything we hold for the shop. */
export const shopRedact: TopicHandler = async ({ tx, shop, webhookId, log }) => {
  const shops = await tx.shop.deleteMany({ where: { domain: shop } }); // cascades to all shop data
  const sessions = await tx.session.deleteMany({ where: { shop } });
  // Keep this webhook's own receipt so a redelivery stays a duplicate.
  const receipts = await tx.webhookReceipt.deleteMany({ where: { shop, NOT: { webhookId } } });
  log.info({ shopsDeleted: shops.count, sessionsDeleted: sessions.count, receiptsDeleted: receipts.count }, 'shop data redacted');
};

interface CustomerPayload {
  customer?: { id?: number | string; email?: string; phone?: string };
  orders_to_redact?: Array<number | string>;
  orders_requested?: Array<number | string>;
  data_request?: { id?: number | string };
}

function customerDeliveries(tx: Tx, shop: string, p: CustomerPayload, orders: Array<number | string> = []) {
  const customerId = p.customer?.id !== undefined ? String(p.customer.id) : undefined;
  const orderIds = orders.map(String);
  return tx.delivery.findMany({
    where: {
      shop: { domain: shop },
      OR: [...(customerId ? [{ customerId }] : []), ...(orderIds.length ? [{ shopifyOrderId: { in: orderIds } }] : [])],
    },
    include: { events: true },
  });
}

/** Erase the customer's personal data from stored deliveries; keep what the merchant needs for accounting. */
export const customersRedact: TopicHandler = async ({ tx, shop, payload, log }) => {
  const p = payload as CustomerPayload;
  const deliveries = await customerDeliveries(tx, shop, p, p.orders_to_redact);
  for (const d of deliveries) {
    const order = redactJsonText(d.orderJson);
    const request = redactJsonText(d.requestBody);
    const response = redactJsonText(d.responseBody);
    const overrides = redactJsonText(d.overridesJson);
    const strings = new Set([...order.strings, ...request.strings, ...response.strings, ...overrides.strings]);
    for (const v of [p.customer?.email, p.customer?.phone]) if (v) strings.add(v);
    await tx.delivery.update({
      where: { id: d.id },
      data: {
        orderJson: order.text!,
        requestBody: request.text,
        responseBody: response.text,
        overridesJson: '{}',
        reason: scrubText(d.reason, strings),
        lastError: scrubText(d.lastError, strings),
        redactedAt: new Date(),
      },
    });
    for (const e of d.events) {
      const message = scrubText(e.message, strings);
      if (message !== e.message) await tx.deliveryEvent.update({ where: { id: e.id }, data: { message } });
    }
  }
  log.info({ customerId: p.customer?.id, deliveriesRedacted: deliveries.length }, 'customer data redacted');
};

/** Record what we hold for the customer so the merchant can answer the request. */
export const customersDataRequest: TopicHandler = async ({ tx, shop, payload, log }) => {
  const p = payload as CustomerPayload;
  const deliveries = await customerDeliveries(tx, shop, p, p.orders_requested);
  log.info(
    {
      dataRequestId: p.data_request?.id,
      customerId: p.customer?.id,
      held: deliveries.map((d) => ({
        deliveryId: d.id,
        shopifyOrderId: d.shopifyOrderId,
        orderName: d.orderName,
        fields: ['recipient name', 'phone', 'email', 'delivery address', 'coordinates', 'order note', 'courier request and response'],
        redacted: d.redactedAt !== null,
      })),
    },
    'customer data request: personal data held',
  );
};
