// The write-back job: a booking's status, job id, courier order id, price and tag onto its
// Shopify order (web/shopify/operations.ts). Background priority: it waits for the shop's
// budget behind customer-visible calls (docs/shopify-rate-limits.md).
//
// A shop's write-backs that wait go together. The job that runs reserves up to five more of
// its group's jobs that wait (never claimed; queue.reserve moves their start time ahead, so
// no worker, and no hurry of the group, takes them meanwhile), sends ONE BookingsWrite for
// all of them (a metafieldsSet and a tagsAdd each: 10 + 10n points, not 20n), and then, in
// one transaction, marks each delivery written (only if it still holds the courier order it
// was read with and is still pending), adds its timeline line, and completes the jobs of
// those it marked.
// Guarantees:
//   - a job is completed only in the transaction that marked its delivery written; a crash
//     leaves the job reserved for RESERVE_MS at most, then it runs as usual; a deferral parks
//     the jobs taken along with this one's (the pacer's wake hurries them together);
//   - an order is sent by one handler at a time: a job taken along is given back (release)
//     only by the handler that took it, after its write came back;
//   - a job that runs after its delivery was written sends nothing;
//   - when Shopify refuses anything in the batch (metafieldsSet is all or nothing), only
//     this job's order is written, alone, as before; the others are given back at once.
import type { AppContext } from '../context.ts';
import type { Job } from '../jobs/queue.ts';
import { JOBS, type DeliveryJobData } from '../jobs/names.ts';
import { BOOKINGS_PER_WRITE, bookingMetafields, METAFIELDS_PER_SET, writeBooking, writeBookings, type BookingToWrite } from '../shopify/operations.ts';
import { ShopifyBudgetWait } from '../shopify/pacer.ts';
import { MAX_PARK_MS } from '../shopify/paced-jobs.ts';
import { readOrderCurrency } from '../db/json-columns.ts';
import { updateRows } from '../db/raw-rows.ts';
import { addEvent } from '../transitions/timeline.ts';
import { readForWriteback, readForWritebacks, type WritebackRow } from './writeback-read.ts';

/** How long the jobs taken along stay reserved: longer than a Shopify call with its retries takes. */
export const RESERVE_MS = 60_000;

export async function runWriteback(ctx: AppContext, job: Pick<Job<DeliveryJobData>, 'data' | 'group'>): Promise<void> {
  const d = await readForWriteback(ctx.db, ctx.box, job.data.deliveryId);
  // Written already (by another job's shared write), or nothing booked to write.
  if (!d || !d.courierOrderId || !d.writebackPending) return;
  const own = prepare(d);
  const others = job.group ? await ctx.queue.reserve<DeliveryJobData>(JOBS.writeback, job.group, BOOKINGS_PER_WRITE - 1, RESERVE_MS) : [];
  const rows = others.length ? await readForWritebacks(ctx.db, ctx.box, others.map((o) => o.data.deliveryId)) : new Map<string, WritebackRow>();
  // Within one metafieldsSet's limit; any left out are given back below.
  let room = METAFIELDS_PER_SET - own.fields;
  const batch = others.flatMap((o) => {
    const row = rows.get(o.data.deliveryId);
    if (!row || row.id === d.id || !row.courierOrderId || !row.writebackPending) return [];
    const p = prepare(row);
    if (p.fields > room) return [];
    room -= p.fields;
    return [{ ...p, jobId: o.id }];
  });
  const othersIds = others.map((o) => o.id);
  if (batch.length) {
    const all = [{ ...own, jobId: null }, ...batch];
    let written: boolean;
    try {
      written = await writeBookings(ctx.admin, d.shopDomain, all.map((p) => p.item));
    } catch (e) {
      // Waiting for the budget: parked with this job (paced-jobs.ts), the pacer's wake hurries them all. Anything else: back now.
      await ctx.queue.release(JOBS.writeback, othersIds, e instanceof ShopifyBudgetWait && e.whenRoom ? MAX_PARK_MS : 0);
      throw e;
    }
    if (written) {
      const completed = await ctx.db.$transaction(async (tx) => {
        const done: string[] = [];
        for (const p of all) {
          if (await updateRows(tx, 'Delivery', { id: p.row.id, courierOrderId: p.row.courierOrderId, writebackPending: true }, { writebackPending: false }) !== 1) continue;
          await addEvent(tx, p.row.id, writtenLine(p.priceProblem));
          if (p.jobId) done.push(p.jobId);
        }
        return ctx.queue.completeWaiting(tx, JOBS.writeback, done);
      });
      // Any taken along but not written here (written meanwhile, moved on, no room): their own jobs run now.
      if (completed < others.length) await ctx.queue.release(JOBS.writeback, othersIds);
      return;
    }
    ctx.log.info({ deliveryId: d.id, shop: d.shopDomain, orders: all.length }, 'Shopify refused part of a shared booking write; writing this order alone');
  }
  // Not taken along (refused, or no longer pending): their own jobs run now.
  if (others.length) await ctx.queue.release(JOBS.writeback, othersIds);
  const priceProblem = await writeBooking(ctx.admin, d.shopDomain, own.item.orderGid, own.item.metafields, { shopCurrency: own.item.shopCurrency ?? null });
  await updateRows(ctx.db, 'Delivery', { id: d.id }, { writebackPending: false });
  await addEvent(ctx.db, d.id, writtenLine(priceProblem));
}

/** What one order's write needs, worked out once: the item to send, its metafield count, and why its price stays out. */
function prepare(row: WritebackRow): { row: WritebackRow; item: BookingToWrite; fields: number; priceProblem: string | null } {
  const item: BookingToWrite = {
    orderGid: `gid://shopify/Order/${row.shopifyOrderId}`,
    metafields: {
      status: (row.courierStatus ?? row.courierOrderStatus ?? row.status).toString(),
      jobId: row.dispatchJobId,
      courierOrderId: row.courierOrderId,
      price: row.deliveryPrice,
      currency: row.currency,
    },
    // The order's `currency` is the shop's currency (REST orders/paid); unknown once personal data was erased.
    shopCurrency: row.redactedAt != null ? null : readOrderCurrency(row) || null,
  };
  const built = bookingMetafields(item.orderGid, item.metafields, item.shopCurrency);
  return { row, item, fields: built.withPrice.length, priceProblem: built.priceProblem };
}

function writtenLine(priceProblem: string | null) {
  return { kind: 'writeback', source: 'shopify', message: `Shopify order updated: delivery metafields and tag${priceProblem ? ` (${priceProblem})` : ''}` } as const;
}
