// CLI commands for courier events that match no delivery, duplicate bookings
// and customers' data requests.
import { DataRequestNotFound, exportDataRequest, listDataRequests } from '../privacy/data-requests.ts';
import { attachEvent, dismissEvent, listUnmatched, resolveDuplicates } from '../fulfillment/unmatched.ts';
import { asCliError, parse, shopArg, table, when, type Command } from './args.ts';
import { findDelivery } from './delivery-commands.ts';
import { CliError } from './errors.ts';
import { inboxReport, retryInbox } from '../inbox/operator.ts';

export const EVENT_COMMANDS: Record<string, Command> = {
  inbox: {
    summary: 'webhooks stored but not processed: waiting, and failed (with why); --retry <id>|all runs failed ones again',
    usage: 'inbox [--retry <id>|all]',
    async run(rt, args) {
      const { values } = parse(args, { retry: { type: 'string' } }, 0);
      if (values.retry !== undefined) {
        const which = values.retry === 'all' ? 'all' : Number(values.retry);
        if (which !== 'all' && !Number.isSafeInteger(which)) throw new CliError(`--retry expects an inbox id or all, got '${values.retry}'`);
        const n = await retryInbox(rt.ctx.db, which, rt.ctx.now());
        if (!n) throw new CliError(which === 'all' ? 'no failed webhooks to retry' : `no failed webhook with id ${which}`);
        return rt.out(`${n} webhook(s) queued again; the app's inbox worker processes them.`);
      }
      const r = await inboxReport(rt.ctx.db);
      if (values.json) return rt.out(JSON.stringify(r, null, 2));
      rt.out(`${r.pending} webhook(s) waiting; ${r.failed.length} failed.`);
      if (r.failed.length) rt.out(table([['ID', 'RECEIVED', 'SOURCE', 'TOPIC', 'SHOP', 'WEBHOOK ID', 'TRIES', 'WHY'], ...r.failed.map((f) => [String(f.id), when(f.receivedAt), f.source, f.topic, f.shop, f.webhookId, String(f.attempts), f.reason ?? '-'])]));
    },
  },


  'data-requests': {
    summary: "customers' data requests (customers/data_request); with an id, export that report as JSON",
    usage: 'data-requests <shop> [<id>]',
    async run(rt, args) {
      const { values, positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      if (positionals[1]) {
        try {
          return rt.out(JSON.stringify(await exportDataRequest(rt.ctx.db, shop, positionals[1]), null, 2));
        } catch (e) {
          if (e instanceof DataRequestNotFound) throw new CliError(e.message);
          throw e;
        }
      }
      const rows = await listDataRequests(rt.ctx.db, shop);
      if (values.json) return rt.out(JSON.stringify(rows));
      if (!rows.length) return rt.out(`No data requests for ${shop}.`);
      rt.out(table([['ID', 'RECEIVED', 'CUSTOMER', 'DELIVERIES', 'EXPORTED'], ...rows.map((r) => [r.id, r.receivedAt, r.customerId ?? '-', String(r.deliveries), r.exportedAt ?? '-'])]));
    },
  },

  unmatched: {
    summary: 'courier events that match no delivery: raw event, when it came, ids tried',
    usage: 'unmatched <shop>',
    async run(rt, args) {
      const { values, positionals } = parse(args, {}, 1);
      const r = await listUnmatched(rt.ctx, shopArg(positionals[0]), { limit: 500 });
      if (values.json) return rt.out(JSON.stringify(r, null, 2));
      if (!r.events.length) return rt.out('No unmatched courier events.');
      rt.out(`${r.count} unmatched courier event(s)${r.count > r.events.length ? `, newest ${r.events.length} shown` : ''}:`);
      for (const e of r.events) {
        rt.out(`  ${e.eventId}  ${e.environment}  received ${when(e.receivedAt)}  status ${e.status ?? '-'}  tried ${e.triedIds.join(', ') || '-'}  (${e.attempts} tries)`);
        rt.out(`    ${JSON.stringify(e.raw)}`);
      }
    },
  },

  attach: {
    summary: 'attach an unmatched courier event to a delivery (its courier id is learned; waiting events apply)',
    usage: 'attach <shop> <event id> <delivery|order id|#name>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 3);
      const shop = shopArg(positionals[0]);
      if (!positionals[1]) throw new CliError('missing <event id> (see npm run cli -- unmatched <shop>)');
      const d = await findDelivery(rt.ctx.db, shop, positionals[2]);
      const r = await asCliError(() => attachEvent(rt.ctx, shop, positionals[1]!, d.id));
      rt.ctx.queue.notify();
      rt.out(`Attached to ${d.orderName ?? d.shopifyOrderId}: ${r.applied} event(s) applied.`);
    },
  },

  dismiss: {
    summary: 'dismiss an unmatched courier event',
    usage: 'dismiss <shop> <event id>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      if (!positionals[1]) throw new CliError('missing <event id> (see npm run cli -- unmatched <shop>)');
      await asCliError(() => dismissEvent(rt.ctx, shop, positionals[1]!));
      rt.out(`Dismissed ${positionals[1]}.`);
    },
  },

  resolve: {
    summary: 'mark duplicate courier orders resolved (after cancelling the extras in the courier portal)',
    usage: 'resolve <shop> <delivery|order id|#name>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      const d = await findDelivery(rt.ctx.db, shop, positionals[1]);
      await asCliError(() => resolveDuplicates(rt.ctx, shop, d.id));
      rt.out(`Marked ${d.orderName ?? d.shopifyOrderId} resolved.`);
    },
  },
};
