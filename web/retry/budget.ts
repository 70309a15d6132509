// Which layer retries each outbound call, and the worst case that follows.
// Every call is retried in ONE layer; the other layers make one attempt:
//
//   courier POST /v1/orders   the dispatch job (durable; safe because every
//                             attempt resends the stored body under the stored
//                             Idempotency-Key, docs/spec-choices.md). The client
//                             resends only what never reached the courier
//                             (refused connection, failed token request).
//   courier reads, quote,     the courier client (in process, short waits);
//   token                     they change nothing at the courier.
//   Shopify Admin GraphQL     in jobs: the job (the client makes one attempt and
//                             passes Shopify's wait on as retryAfterMs, a floor
//                             for the job's delay). In admin pages and the CLI:
//                             the client (ADMIN_RETRY), as no job is behind them.
//
// The worst cases are derived from the policies, so they follow any change,
// and test/integration/retry-budget.test.ts drives always-failing doubles
// against them.
import { worstCaseRequests, type JobRetryPolicy } from './policy.ts';
import type { RetryScope } from './run.ts';

/**
 * Dispatch jobs (one courier create per run) and the Shopify write-back jobs. The job is
 * the only layer retrying a create, so it starts fast (1 s, 2 s, 4 s, … with jitter: a
 * short 5xx storm costs seconds, not minutes) and still spans about half an hour
 * (capped at 10 min per wait) before a delivery is FAILED.
 */
export const DISPATCH_RETRY: JobRetryPolicy = { maxAttempts: 12, baseDelayMs: 1_000, maxDelayMs: 10 * 60_000 };
/** Courier events, fulfillment sync and rematch jobs. */
export const FULFILLMENT_RETRY: JobRetryPolicy = { maxAttempts: 10, baseDelayMs: 2_000, maxDelayMs: 5 * 60_000 };

/** Which create failures the app's courier client resends itself: only those that never reached the courier. */
export const COURIER_CREATE_SCOPE: RetryScope = 'unsent';
/** POST /v1/orders requests in one client call: the request, and one repeat after a 401 (refused unread) refreshed the token. */
export const COURIER_CREATE_POSTS_PER_CALL = 2;

/** Worst-case POST /v1/orders reaching the courier for one dispatch job of `dispatchAttempts` attempts. */
export function maxCourierCreates(dispatchAttempts: number): number {
  return worstCaseRequests(dispatchAttempts, COURIER_CREATE_POSTS_PER_CALL);
}

/**
 * Worst-case POST /v1/orders for one generation of a delivery (one dispatch job):
 * 24. Each is the same body under the same Idempotency-Key, so at most one order
 * results. A merchant's Retry starts a new job for the generation, with this budget again.
 */
export const MAX_COURIER_CREATES_PER_GENERATION = maxCourierCreates(DISPATCH_RETRY.maxAttempts);

/** Admin API attempts per call inside a job: the job retries. */
export const SHOPIFY_ATTEMPTS_IN_JOBS = 1;
/** GraphQL requests in one attempt: the request, and one repeat after a 401 refreshed the token. */
export const SHOPIFY_REQUESTS_PER_ATTEMPT = 2;
/**
 * Shopify calls of one write-back run: the booking write (metafields and tag in one request), and the
 * metafields again without the price if Shopify refused it (web/shopify/operations.ts writeBooking).
 * THROTTLED answers are not in these bounds: they wait for the shop's budget and spend no attempt
 * (web/shopify/pacer.ts).
 */
export const WRITEBACK_SHOPIFY_CALLS = 2;

/** Worst-case GraphQL requests made by a job of `jobAttempts` attempts that makes `callsPerRun` Shopify calls per run. */
export function maxShopifyRequests(jobAttempts: number, callsPerRun: number): number {
  return worstCaseRequests(jobAttempts, callsPerRun, SHOPIFY_ATTEMPTS_IN_JOBS, SHOPIFY_REQUESTS_PER_ATTEMPT);
}

/**
 * Worst-case Shopify GraphQL requests for one delivery's order write-back
 * (metafields and tag after booking): 48. Its fulfillment syncs are bounded per
 * call below; how many syncs a delivery has follows the courier's statuses.
 */
export const MAX_SHOPIFY_CALLS_PER_WRITEBACK = maxShopifyRequests(DISPATCH_RETRY.maxAttempts, WRITEBACK_SHOPIFY_CALLS);

/** Worst-case GraphQL requests for one Shopify call of a fulfillment sync (fulfillmentCreate, a read, an event): 20. */
export const MAX_SHOPIFY_REQUESTS_PER_SYNC_CALL = maxShopifyRequests(FULFILLMENT_RETRY.maxAttempts, 1);
