// Public surface of the courier integration. Everything the app does with the Delivery
// Orders API goes through these exports.
export type { CourierEnvironmentName, CreateOrderRequest, CreateOrderResult, CourierOrderView, QuoteResult } from './types.ts';
export { CreateOrderRequestSchema, CreateOrderResponseSchema, TokenResponseSchema, DecimalText } from './types.ts';
export { serializeCreateOrder, parseCreateOrderBody } from './serialize.ts';
export { DeliveryClient, OPERATION_SCOPES, type DeliveryClientOptions } from './client.ts';
export { describeNetworkError } from './http.ts';
export { TokenCache, defaultTokenCache, tokenExpiresAt, DEFAULT_TOKEN_LIFETIME_SEC, type CachedToken } from './token.ts';
export {
  DeliveryApiError, CredentialsError, ScopeError, RejectedError, IdempotencyConflictError, TransientError, OutcomeUnknownError, BadResponseError, CourierConfigError,
  isDeliveryApiError, describeErrorBody, errorDetails, fieldFromError, type DeliveryErrorKind, type ErrorBodyInfo,
} from './errors.ts';
export { extractQuote, mapCreateOrderResponse, mapQuoteResponse, toOrderList, toOrderView } from './extract.ts';
export { NumberText, parseJsonExact, toPlainDecimal } from './json.ts';
export { validateBaseUrl } from './url.ts';
export {
  verifyDeliveryWebhook, signDeliveryWebhook, computeDeliverySignature, SIGNATURE_HEADERS, DEFAULT_TOLERANCE_SEC,
  type VerifyFailureReason, type VerifyResult, type DeliveryWebhookEvent,
} from './webhook-verify.ts';
