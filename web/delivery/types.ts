// Shapes of the Delivery Orders API (docs/delivery-orders-api.md).
// Requests we build are validated strictly (we control them); responses are parsed
// tolerantly: the fields the spec names are checked, unknown extra fields are kept.
import { z } from 'zod';

export type CourierEnvironmentName = 'test' | 'live';

/** What the courier client and the webhook verifier need. Holds plaintext secrets: never log it. */
export interface CourierAccess {
  environmentId: string;
  environment: CourierEnvironmentName;
  baseUrl: string | null;
  clientId: string | null;
  clientSecret: string | null;
  /** Current first, then the previous one during a rotation. */
  webhookSecrets: string[];
  pickupStoreId: string | null;
  locationStores: Record<string, string>;
  endpointId: string;
}

/**
 * Our typed create-order request. Money and weight are DECIMAL STRINGS; serializeCreateOrder
 * writes them as JSON number literals with the exact text ("250.00" -> 250.00).
 */
export interface CreateOrderRequest {
  reference: string;
  channel: string;
  sellerType?: string;
  fulfilmentType?: string;
  originSystem?: string;
  serviceType: string;
  pickup: { storeId: string };
  dropoff: {
    name: string;
    phone: string;
    addressLine1: string;
    addressLine2?: string;
    city: string;
    country: string;
    latitude: number;
    longitude: number;
    email?: string;
  };
  package: { size: string; weightKg: string; category?: string };
  amount: string;
  currency: string;
  notes?: string;
  metadata?: Record<string, string>;
}

// Field bounds are not in the spec ("not shown"); these are generous sanity limits so a
// real order is never refused by us for length, while garbage is caught before sending.
const text = (max = 255) => z.string().max(max).refine((s) => s.trim() !== '', 'is required');
const optText = (max = 255) => text(max).optional();

// A JSON number literal (no leading zeros, no exponent) so the text can be written verbatim.
// Up to 3 fraction digits: two for ZAR-like currencies, three for grams / 3-decimal currencies.
const DECIMAL_TEXT = /^(0|[1-9]\d{0,11})(\.\d{1,3})?$/;
export const DecimalText = z.string().regex(DECIMAL_TEXT, 'must be a decimal string such as "250.00"');

export const CreateOrderRequestSchema = z.strictObject({
  reference: text(),
  channel: text(64),
  sellerType: optText(64),
  fulfilmentType: optText(64),
  originSystem: optText(),
  serviceType: text(64),
  pickup: z.strictObject({ storeId: text() }),
  dropoff: z.strictObject({
    name: text(),
    // "international format (leading +, country code)": we send E.164 without spaces.
    phone: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be in international format, e.g. +27821234567'),
    addressLine1: text(),
    addressLine2: optText(),
    city: text(128),
    country: z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case country code'),
    latitude: z.number().finite().min(-90).max(90),
    longitude: z.number().finite().min(-180).max(180),
    email: z.string().regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an e-mail address').max(254).optional(),
  }),
  package: z.strictObject({
    size: text(32),
    weightKg: DecimalText.refine((s) => /[1-9]/.test(s), 'must be greater than zero'),
    category: optText(64),
  }),
  amount: DecimalText,
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case currency code'),
  notes: z.string().max(2000).optional(),
  metadata: z.record(z.string().min(1).max(64), z.string().max(500)).optional(),
});

// Compile-time proof that the schema and the public interface agree.
const _schemaMatchesInterface: z.ZodType<CreateOrderRequest> = CreateOrderRequestSchema;
void _schemaMatchesInterface;

const Id = z.string().min(1);
const PriceLike = z.union([z.number(), z.string()]);

/**
 * The 201 body. request_id is optional here (fallback: a request-id response header) so a
 * created order is never reported as a failure over a missing echo field.
 */
export const CreateOrderResponseSchema = z.looseObject({
  request_id: z.string().optional(),
  order: z.looseObject({
    id: Id,
    reference: z.string().optional(),
    status: Id,
    deliveryPrice: PriceLike,
    currency: Id,
  }),
  dispatch: z.looseObject({ id: Id }),
});

/** Token response: only access_token is required (fields "not shown" in the spec). */
export const TokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().nullish(),
  expires_in: z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/)]).nullish(),
  scope: z.union([z.string(), z.array(z.string())]).nullish(),
});

export interface CreateOrderResult {
  requestId: string;
  orderId: string;
  orderStatus: string;
  reference: string;
  /** Exact decimal text from the response, e.g. "75.00". */
  deliveryPrice: string;
  currency: string;
  dispatchId: string;
  /** Present if the response carries a delivery id under a plausible name. */
  deliveryId?: string;
  httpStatus: number;
  responseText: string;
  /** HTTP requests made to POST /v1/orders for this call (1 = no retry). */
  attempts: number;
  /** True when the service said this is a replay of an earlier result (Idempotent-Replayed header). */
  replayed?: boolean;
}

export interface CourierOrderView {
  id: string;
  reference?: string;
  status?: string;
  /** The lower-case delivery status if the order read carries one. */
  deliveryStatus?: string;
  deliveryId?: string;
  dispatchId?: string;
  deliveryPrice?: string;
  currency?: string;
  raw: unknown;
}

/** A courier order as dispatch keeps it (Delivery.courierOrders): its id, dispatch id and status. */
export interface CourierOrderSummary {
  orderId: string;
  dispatchId: string | null;
  status: string | null;
}

export interface QuoteResult {
  price: string;
  currency: string | null;
  raw: unknown;
}

/** A test webhook asked of the courier (/v1/webhooks/test) and what its answer named (CourierEnvironment.testWebhooks). */
export interface TestWebhookRecord {
  requestedAt: number;
  answeredAt: number | null;
  /** Ids the /v1/webhooks/test answer named (event ids, delivery ids). */
  ids: string[];
}
