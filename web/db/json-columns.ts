// Typed accessors for the columns that hold JSON as text (the portable schema
// has no Json type: prisma/models.prisma). Read and write each column here, so
// its shape and its default live in one place.
import { OverridesSchema, parseOrderSnapshot, type OrderSnapshot, type Overrides } from '../dispatch/order.ts';

/** Delivery.orderJson: the order snapshot dispatch works from (throws OrderPayloadError when it does not parse). */
export function readOrderJson(row: { orderJson: string }): OrderSnapshot {
  return parseOrderSnapshot(JSON.parse(row.orderJson));
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
