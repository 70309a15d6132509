// The inbox's statements, for both providers. Raw SQL through the app's Prisma
// client: these run once per webhook (insert) or once per batch (claim, settle),
// where Prisma's query compiler was the largest cost (issue 24). Placeholders are
// written $1…$n and turned into SQLite's `?` (each is used once, in order).
import { randomUUID } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { dbTime, forProvider as sql, placeholders, TS, type Provider } from '../db/raw-sql.ts';

export interface InboxRow {
  id: number;
  source: string;
  key: string;
  topic: string;
  shop: string;
  body: string;
  attempts: number;
}

export function insertSql(provider: Provider): string {
  return sql(
    provider,
    `INSERT INTO "WebhookInbox" ("source", "key", "topic", "shop", "body", "state", "attempts", "nextAttemptAt", "receivedAt")
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6${TS}, $7${TS}) ON CONFLICT ("key") DO NOTHING`,
  );
}

/** Whether a row is due: a poll that finds none is this one indexed read, not a transaction around the claim. */
export function dueSql(provider: Provider): string {
  return sql(provider, `SELECT 1 AS "due" FROM "WebhookInbox" WHERE "state" = 'pending' AND "nextAttemptAt" <= $1${TS} LIMIT 1`);
}

/**
 * Due rows, oldest first: by nextAttemptAt (a new row's is its arrival), so the (state, nextAttemptAt)
 * index gives them in order; ORDER BY "id" sorted the whole due backlog on every pass. A retried row
 * is due later anyway. On PostgreSQL locked for the caller's transaction, skipping rows another instance holds.
 */
export function claimSql(provider: Provider): string {
  return sql(
    provider,
    `SELECT "id", "source", "key", "topic", "shop", "body", "attempts" FROM "WebhookInbox"
     WHERE "state" = 'pending' AND "nextAttemptAt" <= $1${TS} ORDER BY "nextAttemptAt", "id" LIMIT $2${provider === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
  );
}

/**
 * The webhook's receipt, once per webhook id (one per processed webhook: raw, not a compiled create).
 * Resolves false when a receipt already exists: the webhook was processed before (before the inbox
 * existed, or after its row was pruned) and does nothing now.
 */
export async function insertReceipt(tx: Tx, provider: Provider, r: { webhookId: string; topic: string; shop: string; outcome: string | null }, now: number): Promise<boolean> {
  const n = await tx.$executeRawUnsafe(
    sql(provider, `INSERT INTO "WebhookReceipt" ("id", "webhookId", "topic", "shop", "outcome", "receivedAt") VALUES ($1, $2, $3, $4, $5, $6${TS}) ON CONFLICT ("webhookId") DO NOTHING`),
    randomUUID(), r.webhookId, r.topic, r.shop, r.outcome, dbTime(provider, now),
  );
  return n === 1;
}

/** One row again, locked (the one-by-one retry after a batch failed). */
export function claimOneSql(provider: Provider): string {
  return sql(
    provider,
    `SELECT "id", "source", "key", "topic", "shop", "body", "attempts" FROM "WebhookInbox"
     WHERE "id" = $1 AND "state" = 'pending'${provider === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
  );
}

/** Processed rows keep no body: it holds personal data, and the key alone dedupes. */
export async function markDone(tx: Tx, provider: Provider, ids: number[], outcome: string | null, now: number): Promise<void> {
  if (!ids.length) return;
  const list = placeholders(4, ids.length);
  await tx.$executeRawUnsafe(
    sql(provider, `UPDATE "WebhookInbox" SET "state" = 'done', "body" = '', "outcome" = $1, "processedAt" = $2${TS}, "attempts" = "attempts" + $3 WHERE "id" IN (${list})`),
    outcome,
    dbTime(provider, now),
    1,
    ...ids,
  );
}

/** A failed attempt: due again at `nextAt`, or failed for good (`state` 'failed'). */
export async function markFailed(tx: Tx, provider: Provider, id: number, state: 'pending' | 'failed', error: string, nextAt: number, now: number): Promise<void> {
  await tx.$executeRawUnsafe(
    sql(provider, `UPDATE "WebhookInbox" SET "state" = $1, "outcome" = $2, "nextAttemptAt" = $3${TS}, "processedAt" = $4${TS}, "attempts" = "attempts" + 1 WHERE "id" = $5`),
    state,
    error.slice(0, 2000),
    dbTime(provider, nextAt),
    state === 'failed' ? dbTime(provider, now) : null,
    id,
  );
}

export function depthSql(provider: Provider): string {
  return sql(provider, `SELECT COUNT(*) AS "n", MIN("receivedAt") AS "oldest" FROM "WebhookInbox" WHERE "state" = 'pending'`);
}

export function pruneSql(provider: Provider): string {
  return sql(provider, `DELETE FROM "WebhookInbox" WHERE "state" = 'done' AND "processedAt" < $1${TS}`);
}
