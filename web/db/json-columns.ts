// Typed accessors for the columns that hold JSON as text (the portable schema
// has no Json type: prisma/models.prisma). Read and write each column here, so
// its shape and its default live in one place. Shop.settings is the exception:
// it is validated with defaults by web/settings/schema.ts (parseStoredSettings).
import { OrderSnapshotSchema, OverridesSchema, parseOrderPart, parseOrderSnapshot, type OrderSnapshot, type Overrides } from '../order/snapshot.ts';
import type { CourierOrderSummary, TestWebhookRecord } from '../delivery/types.ts';

/** Delivery.orderJson: the order snapshot dispatch works from (throws OrderPayloadError when it does not parse). */
export function readOrderJson(row: { orderJson: string }): OrderSnapshot {
  return parseOrderSnapshot(JSON.parse(row.orderJson));
}
/**
 * Delivery.orderJson's `currency` alone, as readOrderJson gives it: the write-back needs nothing else,
 * and validating the whole snapshot for it was ~4 % of a sale's write-back CPU (issue 24).
 */
export function readOrderCurrency(row: { orderJson: string }): string {
  const stored = JSON.parse(row.orderJson) as { currency?: unknown } | null;
  return parseOrderPart(OrderSnapshotSchema.shape.currency, stored?.currency, ['currency']);
}
export function writeOrderJson(order: OrderSnapshot): string {
  return JSON.stringify(order);
}

/** Delivery.overridesJson: the merchant's corrections (web/dispatch/fix.ts checks them before they are written). */
export function readOverridesJson(row: { overridesJson: string | null }): Overrides {
  return OverridesSchema.parse(JSON.parse(row.overridesJson || '{}'));
}
export function writeOverridesJson(overrides: Overrides): string {
  return JSON.stringify(overrides);
}

/**
 * Delivery.requestBody / responseBody: the exact text exchanged with the
 * courier. As a value for display; text that is not JSON is returned as is.
 */
export function readExchange(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** CourierEnvironment.locationStores: Shopify location id → courier pickup store id. */
export function readLocationStores(row: { locationStores: string | null } | null | undefined): Record<string, string> {
  return JSON.parse(row?.locationStores || '{}');
}
export function writeLocationStores(map: Record<string, string>): string {
  return JSON.stringify(map);
}

/** CourierEnvironment.testWebhooks: the test webhooks we asked for; unreadable text counts as none. */
export function readTestWebhooks(text: string | null): TestWebhookRecord[] {
  try {
    const v = JSON.parse(text ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
export function writeTestWebhooks(list: TestWebhookRecord[]): string {
  return JSON.stringify(list);
}

/** CourierEvent.triedIds: the courier ids an unmatched event was looked up by. */
export function readTriedIds(text: string | null): string[] | null {
  const v = readExchange(text);
  return Array.isArray(v) ? (v as string[]) : null;
}
export function writeTriedIds(ids: string[]): string {
  return JSON.stringify(ids);
}

/** Delivery.fulfillmentOrderIds: the Shopify fulfillment orders (GIDs) the booking covers; none stored is an empty list. */
export function readFulfillmentOrderIds(row: { fulfillmentOrderIds: string | null }): string[] {
  return readTriedIds(row.fulfillmentOrderIds) ?? [];
}
export function writeFulfillmentOrderIds(ids: string[]): string {
  return JSON.stringify(ids);
}

/** Delivery.courierOrders: every courier order booked for one delivery (a duplicate booking). */
export function writeCourierOrders(orders: CourierOrderSummary[]): string {
  return JSON.stringify(orders);
}

/** DataRequest.report: the customers/data_request report (web/webhooks/lifecycle.ts dataRequestReport). */
export function readReport(row: { report: string }): { deliveries?: unknown[] } & Record<string, unknown> {
  return JSON.parse(row.report);
}

/**
 * CourierEnvironment.connectionCheck / webhookCheck: the admin's last set-up
 * check (web/admin/state.ts gives the record its type); unreadable text counts as none.
 */
export function readCheck<T extends object>(text: string | null): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
export function writeCheck(record: object): string {
  return JSON.stringify(record);
}
