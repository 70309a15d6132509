// Shapes shared by the sandbox courier (courier.ts) and its control client (control.ts).

export type DeliveryIdMode = 'distinct' | 'order' | 'dispatch';
export type Outcome = 'delivered' | 'failed' | 'returned' | 'cancelled';

export interface SandboxAppConfig {
  clientId: string;
  clientSecret: string;
  /** Granted scopes: orders:create, orders:read, quotes:create, webhooks:manage. */
  scopes: string[];
  /** Pickup store ids that belong to this app's merchant account. */
  storeIds: string[];
  /** Where status webhooks go, and the secret they are signed with. */
  webhook: { url: string; secret: string } | null;
  /** Token lifetime for this app; default: settings.tokenTtlSec. */
  tokenTtlSec?: number;
  /** Leave expires_in out of the token response (to exercise the client's default lifetime). */
  omitExpiresIn?: boolean;
}

export interface SandboxSettings {
  /** Status webhooks are sent at all (the test endpoint always sends). */
  webhooksEnabled: boolean;
  /** Every webhook is sent twice (same event id, same body). */
  duplicateSends: boolean;
  /** Webhooks are held and sent in reverse order once outOfOrderBatchSize are held (or on flush). */
  outOfOrder: boolean;
  outOfOrderBatchSize: number;
  /** Webhooks are signed with a wrong secret. */
  badSignatures: boolean;
  /** Automatic status progression every N ms; 0 = only on command. */
  stepIntervalMs: number;
  /** How data.delivery_id relates to the order (fixed per order at creation). */
  deliveryIdMode: DeliveryIdMode;
  /** Include the optional first status "accepted". */
  acceptedStep: boolean;
  /** Where automatic progression ends, unless an order has its own outcome. */
  defaultOutcome: Outcome;
  /** Added to every API response (not the control API). */
  latencyMs: number;
  /** Add order_id and reference to webhook data (not in the spec; off = spec-faithful). */
  eventExtras: boolean;
  /** Waits before each webhook retry; its length is the number of retries. */
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  /** Default token lifetime in seconds. */
  tokenTtlSec: number;
  /** A slow courier: creates are booked on arrival and answered this many ms later (0 = at once). */
  createHoldMs: number;
  /**
   * false: an Idempotency-Key is remembered only once its create has been answered, so a second
   * request with the same key during createHoldMs books a second order (the spec is silent on keys in flight).
   */
  dedupeInFlight: boolean;
  /** Mark test webhooks with data.test = true (not in the spec); false = only the ids in the /v1/webhooks/test answer tell. */
  markTestEvents: boolean;
}

export type FaultRoute = 'token' | 'create' | 'get' | 'list' | 'quote' | 'webhook-test' | 'any';

export interface FaultSpec {
  route: FaultRoute;
  /**
   * status: answer `status` (default 503) without doing anything;
   * drop: close the connection without doing anything;
   * drop_after_commit: do the work (create the order), then close the connection without a response;
   * delay_after_commit: do the work, then wait latencyMs (default 5 s) before answering;
   * latency: wait latencyMs before handling.
   */
  type: 'status' | 'drop' | 'drop_after_commit' | 'delay_after_commit' | 'latency';
  /** How many matching requests this fault applies to (default 1). */
  count?: number;
  status?: number;
  /** Retry-After header value to send with a status fault (seconds or an HTTP date). */
  retryAfter?: string;
  /** Response body for a status fault (default: the sandbox error shape). */
  body?: string;
  latencyMs?: number;
}

export interface DeliveryHistoryEntry {
  status: string;
  at: string;
  eventId: string;
}

export interface SandboxOrderSnapshot {
  id: string;
  clientId: string;
  reference: string;
  status: string;
  deliveryPrice: string;
  currency: string;
  dispatchId: string;
  deliveryId: string;
  deliveryStatus: string;
  outcome: Outcome;
  idempotencyKey: string;
  createdAt: string;
  history: DeliveryHistoryEntry[];
}

export interface SandboxStats {
  tokenRequests: number;
  tokensIssued: number;
  createRequests: number;
  ordersCreated: number;
  idempotentReplays: number;
  idempotencyConflicts: number;
  ordersByReference: Record<string, number>;
}

export interface RequestLogEntry {
  seq: number;
  at: string;
  method: string;
  path: string;
  route: FaultRoute | 'unknown';
  /** HTTP status, or 0 when the sandbox dropped the connection. */
  status: number;
  clientId?: string;
  idempotencyKey?: string;
  /** SHA-256 of the request body bytes (POST), so tests can prove retries were byte-identical. */
  bodySha256?: string;
  /** Time from arrival to the response sent, ms (benchmarks split an order's lag with it). */
  ms?: number;
}

export interface WebhookLogEntry {
  seq: number;
  eventId: string;
  type: string;
  deliveryId: string;
  status: string;
  orderId: string | null;
  url: string;
  attempt: number;
  at: string;
  /** x-service-timestamp sent. */
  timestamp: number;
  result: 'delivered' | 'failed' | 'suppressed' | 'held';
  httpStatus: number | null;
  error: string | null;
  badSignature: boolean;
  duplicate: boolean;
  test: boolean;
}

export interface AdvanceRequest {
  /** Walk to this status, emitting each step; default: one step toward the outcome. */
  to?: string;
  /** Take this many steps toward the outcome. */
  steps?: number;
  /** Change the order's outcome first. */
  outcome?: Outcome;
}
