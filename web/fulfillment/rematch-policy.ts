// When unmatched courier events are tried again and when a courier order may be
// read again to learn its ids. Pure: tested in test/unit/fulfillment-rematch.test.ts.
//
// Matching is keyed by id, never by age, so a backlog cannot starve a new
// event: a booking's own ids match directly, an order read teaches the
// delivery id, and both are looked up by value. What is bounded:
// - each unmatched event is retried with its own backoff (nextAttemptAt);
// - each courier order is read at most once per backoff period (learnAfter),
//   whatever the number of events waiting, and a pass reads at most
//   READS_PER_PASS orders.
import type { TestWebhookRecord } from '../delivery/types.ts';

/** Courier order reads (GET /v1/orders/:id) per rematch pass, and per live event. */
export const READS_PER_PASS = 20;
export const READS_PER_EVENT = 5;
/** Due unmatched events retried per pass (database lookups only, no courier reads). */
export const EVENTS_PER_PASS = 200;
/** After this, an unmatched event is no longer retried automatically (it stays listed for the merchant). */
export const RETRY_FOR_MS = 7 * 24 * 3600_000;
/** Bookings whose ids are this recent are matched against waiting events by value. */
export const RECENT_REFS_MS = 15 * 60_000;

const HOUR = 3600_000;

function doubling(baseMs: number, n: number): number {
  return Math.min(HOUR, baseMs * 2 ** Math.max(0, Math.min(n, 20) - 1));
}

/** Delay before the next automatic try of an event that matched nothing `attempts` times. */
export function eventRetryDelayMs(attempts: number): number {
  return doubling(30_000, attempts);
}

/** Delay before a courier order that did not reveal its delivery id is read again (after `reads` reads). */
export function learnDelayMs(reads: number): number {
  return doubling(60_000, reads);
}

/** The courier ids an event names: data.delivery_id first, then any other id-like field of data. */
export function idsOfEvent(payload: string, deliveryRef: string | null): string[] {
  const ids = new Set<string>();
  if (deliveryRef) ids.add(deliveryRef);
  try {
    const data = JSON.parse(payload)?.data;
    if (data && typeof data === 'object') {
      for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
        if (typeof v === 'string' && v && /(^id$|_id$|Id$)/.test(k)) ids.add(v);
      }
    }
  } catch {
    // an unreadable payload names no more ids
  }
  return [...ids];
}


/** How long after asking for a test webhook an unmatched event may be taken as that test (when the answer named no ids). */
export const TEST_WINDOW_MS = 60_000;

/**
 * Is this event the test webhook we asked for? Yes when the test answer named
 * its event id or delivery id; or, when no answer naming ids has arrived, when
 * it came within TEST_WINDOW_MS of asking.
 */
export function isRequestedTest(event: { eventId: string; ids: string[]; receivedAt: number }, tests: TestWebhookRecord[]): boolean {
  return tests.some((t) => {
    if (t.ids.includes(event.eventId) || event.ids.some((id) => t.ids.includes(id))) return true;
    return t.ids.length === 0 && event.receivedAt >= t.requestedAt && event.receivedAt <= t.requestedAt + TEST_WINDOW_MS;
  });
}

/** The ids a /v1/webhooks/test answer names (its shape is not in the spec): every string under an id-like key. */
export function idsOfTestAnswer(body: unknown, depth = 0): string[] {
  if (depth > 4 || !body || typeof body !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === 'string' && v && /(^id$|_id$|Id$)/.test(k) && k !== 'request_id' && k !== 'requestId') out.push(v);
    else if (v && typeof v === 'object') out.push(...idsOfTestAnswer(v, depth + 1));
  }
  return out;
}

/** Keeps the last few test requests, newest last. */
export function rememberTest(list: TestWebhookRecord[], rec: TestWebhookRecord, keep = 5): TestWebhookRecord[] {
  return [...list.filter((t) => t.requestedAt !== rec.requestedAt), rec].slice(-keep);
}
