// Install, uninstall and the three mandatory compliance topics. Each runs
// inside the webhook's receipt transaction (web/webhooks/shopify.ts).
import type { Session } from '@shopify/shopify-api';
import type { Db, Tx } from '../db/client.ts';
import { eraseDeliveryPersonalData } from '../privacy/erase.ts';
import type { TopicHandler } from './shopify.ts';

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
  // Failed or pending inbox rows still hold orders' bodies (customers' data); this webhook's own row stays, as its dedupe key.
  const inbox = await tx.webhookInbox.deleteMany({ where: { shop, NOT: { key: webhookId } } });
  log.info({ shopsDeleted: shops.count, sessionsDeleted: sessions.count, receiptsDeleted: receipts.count, inboxRowsDeleted: inbox.count }, 'shop data redacted');
};

export interface CustomerPayload {
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
  for (const d of deliveries) await eraseDeliveryPersonalData(tx, d, [p.customer?.email, p.customer?.phone]);
  log.info({ customerId: p.customer?.id, deliveriesRedacted: deliveries.length }, 'customer data redacted');
};

/** What we hold for the customer, as the merchant exports it to answer the request (the personal data itself included). */
export function dataRequestReport(p: CustomerPayload, deliveries: Array<{ id: string; shopifyOrderId: string; orderName: string | null; status: string; createdAt: Date; redactedAt: Date | null; orderJson: string; requestBody: string | null }>) {
  const json = (t: string | null) => {
    try {
      return t ? JSON.parse(t) : null;
    } catch {
      return null;
    }
  };
  return {
    dataRequestId: p.data_request?.id !== undefined ? String(p.data_request.id) : null,
    customerId: p.customer?.id !== undefined ? String(p.customer.id) : null,
    ordersRequested: (p.orders_requested ?? []).map(String),
    purpose: 'Same-day courier delivery of the order: the courier receives the recipient name, phone, email, delivery address and coordinates.',
    deliveries: deliveries.map((d) => ({
      deliveryId: d.id,
      shopifyOrderId: d.shopifyOrderId,
      orderName: d.orderName,
      status: d.status,
      recordedAt: d.createdAt.toISOString(),
      erasedAt: d.redactedAt?.toISOString() ?? null,
      order: json(d.orderJson),
      sentToCourier: json(d.requestBody),
    })),
  };
}

/** customers/data_request: a record the merchant can see and export (admin and CLI), not only a log line. */
export const customersDataRequest: TopicHandler = async ({ tx, shop, payload, log, ignore }) => {
  const p = payload as CustomerPayload;
  const shopRow = await tx.shop.findUnique({ where: { domain: shop }, select: { id: true } });
  if (!shopRow) {
    ignore('no data held: the shop has no data with the app (never installed, or redacted)');
    return;
  }
  const deliveries = await customerDeliveries(tx, shop, p, p.orders_requested);
  const report = dataRequestReport(p, deliveries);
  const row = await tx.dataRequest.create({
    data: { shopId: shopRow.id, dataRequestId: report.dataRequestId, customerId: report.customerId, report: JSON.stringify(report) },
    select: { id: true },
  });
  log.info({ dataRequestId: report.dataRequestId, recordId: row.id, deliveries: deliveries.length }, 'customer data request recorded for the merchant');
};
