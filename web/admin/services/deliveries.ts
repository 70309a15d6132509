// The deliveries list: filter parsing, search, and keyset pagination (newest
// first). findDeliveries is the query the admin list and the CLI share.
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { DELIVERY_STATUSES } from '../../lifecycle/machine.ts';
import { countUnmatched } from '../../fulfillment/unmatched.ts';
import { isStorable, storableDate } from '../../security/text.ts';
import { fieldErrors, parseStoredSettings } from '../../settings/schema.ts';
import { findShop } from '../../settings/store.ts';
import { ApiError } from '../errors.ts';
import { deliverySummary } from '../views.ts';

/** An ISO 8601 date-time (expanded years too); group 1 is the offset, if any. */
const ISO_TIME = /^(?:[+-]\d{6}|\d{4})-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** A filter date, as stored timestamps can hold it (years 0001-9999); `endOfDay` makes a bare date exclusive at the end of that day. */
function filterDate(endOfDay: boolean) {
  return z
    .string()
    .trim()
    .optional()
    .transform((v, c) => {
      if (!v) return undefined;
      const bare = /^\d{4}-\d{2}-\d{2}$/.test(v);
      const time = ISO_TIME.exec(v);
      // ISO 8601 only, and a time without an offset is UTC like a bare date: Date.parse reads other
      // forms ("10000-01-01", "Nov 2 2026") and offset-less times in the server's zone.
      const ms = bare ? Date.parse(`${v}T00:00:00.000Z`) + (endOfDay ? 86_400_000 : 0) : time ? Date.parse(time[1] ? v : `${v}Z`) : NaN;
      if (Number.isNaN(ms)) {
        c.addIssue({ code: 'custom', message: 'expected a date like 2026-11-22 or an ISO 8601 time' });
        return z.NEVER;
      }
      const d = storableDate(ms);
      // The day after 9999-12-31 is no bound at all.
      if (!d && !(endOfDay && bare && v.startsWith('9999-'))) {
        c.addIssue({ code: 'custom', message: 'expected a date between the years 0001 and 9999' });
        return z.NEVER;
      }
      return d ?? undefined;
    });
}

const ListQuery = z.object({
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean) : []))
    .refine((list) => list.every((s) => (DELIVERY_STATUSES as readonly string[]).includes(s)), `expected one or more of ${DELIVERY_STATUSES.join(', ')}`),
  from: filterDate(false),
  /** Exclusive; a bare date means the end of that day (UTC). */
  to: filterDate(true),
  q: z.string().trim().max(100).refine(isStorable, 'must not contain NUL characters or lone UTF-16 surrogates').optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

export interface DeliveryFilter {
  status: string[];
  from?: Date | undefined;
  to?: Date | undefined;
  q?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

function encodeCursor(d: { createdAt: Date; id: string }): string {
  return Buffer.from(`${d.createdAt.getTime()}:${d.id}`).toString('base64url');
}

function decodeCursor(c: string): { createdAt: Date; id: string } {
  const m = /^(\d{1,15}):([\w-]{1,64})$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  const createdAt = m ? storableDate(Number(m[1])) : null;
  if (!m || !createdAt) throw new ApiError(400, 'invalid cursor', { cursor: 'is not a cursor this API returned' });
  return { createdAt, id: m[2]! };
}

const SEARCH_COLUMNS = ['shopifyOrderId', 'dispatchJobId', 'courierOrderId', 'courierDeliveryId'] as const;
const SEARCH_ID_LIMIT = 1000;

async function literalSearchIds(ctx: AppContext, shopId: string, q: string, name: string): Promise<string[]> {
  const cols = ['orderName', ...SEARCH_COLUMNS];
  const rows = await ctx.db.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT "id" FROM "Delivery" WHERE "shopId" = ? AND ("orderName" = ? OR ${cols.map((c) => `instr("${c}", ?) > 0`).join(' OR ')})
     ORDER BY "createdAt" DESC LIMIT ${SEARCH_ID_LIMIT}`,
    shopId,
    name,
    ...cols.map(() => q),
  );
  return rows.map((r) => r.id);
}

/** One page of a shop's deliveries, newest first, each with its latest event. */
export async function findDeliveries(ctx: AppContext, shopId: string, f: DeliveryFilter) {
  const and: any[] = [{ shopId }];
  if (f.status.length) and.push({ status: { in: f.status } });
  if (f.from) and.push({ createdAt: { gte: f.from } });
  if (f.to) and.push({ createdAt: { lt: f.to } });
  if (f.q) {
    const q = f.q.replace(/^gid:\/\/shopify\/Order\//, '');
    const name = q.startsWith('#') ? q : `#${q}`;
    if (ctx.database.provider === 'sqlite' && /[%_\\]/.test(q)) {
      // `contains` is LIKE '%…%' without an ESCAPE clause on SQLite, so % and _ would be
      // wildcards there: match substrings with instr() instead (at most SEARCH_ID_LIMIT rows).
      and.push({ id: { in: await literalSearchIds(ctx, shopId, q, name) } });
    } else {
      // PostgreSQL: LIKE's default escape character is backslash.
      const like = q.replace(/[\\%_]/g, '\\$&');
      and.push({
        OR: [
          { orderName: { contains: like } },
          { orderName: name },
          ...SEARCH_COLUMNS.map((c) => ({ [c]: { contains: like } })),
        ],
      });
    }
  }
  if (f.cursor) {
    const c = decodeCursor(f.cursor);
    and.push({ OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, id: { lt: c.id } }] });
  }
  const rows = await ctx.db.delivery.findMany({
    where: { AND: and },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: f.limit + 1,
    include: { events: { orderBy: [{ occurredAt: 'desc' }, { receivedAt: 'desc' }], take: 1 } },
  });
  const page = rows.slice(0, f.limit);
  return { rows: page, nextCursor: rows.length > f.limit ? encodeCursor(page.at(-1)!) : null };
}

/** GET /api/deliveries: the list page's data, from its query string. */
export async function listDeliveries(ctx: AppContext, domain: string, query: unknown) {
  const parsed = ListQuery.safeParse(query);
  if (!parsed.success) throw new ApiError(400, 'invalid filter', fieldErrors(parsed.error));
  const shop = await findShop(ctx.db, domain);
  if (!shop) return { deliveries: [], nextCursor: null, counts: {}, unmatchedEvents: 0, duplicateBookings: 0 };
  const settings = parseStoredSettings(shop.settings);
  const { rows, nextCursor } = await findDeliveries(ctx, shop.id, parsed.data);
  const grouped = await ctx.db.delivery.groupBy({ by: ['status'], where: { shopId: shop.id }, _count: { _all: true } });
  return {
    deliveries: rows.map((d) => deliverySummary(d, d.events[0] ?? null, { trackingUrlTemplate: settings.fulfillment.trackingUrlTemplate, appUrl: ctx.config.shopify.appUrl })),
    nextCursor,
    counts: Object.fromEntries(grouped.map((g) => [g.status, g._count._all])),
    unmatchedEvents: await countUnmatched(ctx, domain),
    // Booked more than once by the courier: listed with every id until the merchant marks it resolved.
    duplicateBookings: await ctx.db.delivery.count({ where: { shopId: shop.id, reasonCode: 'duplicate_courier_orders' } }),
  };
}
