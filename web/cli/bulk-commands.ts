// `bulk`: the admin API's bulk action (web/admin/services/bulk.ts) from the
// operator CLI, with the same request check and one line per order.
import { parseBulkRequest } from '../admin/services/bulk-rules.ts';
import { runBulk } from '../admin/services/bulk.ts';
import { ApiError } from '../admin/errors.ts';
import { parse, shopArg, table, type Command } from './args.ts';
import { CliError } from './errors.ts';

function requestOf(action: string | undefined, orderIds: string[]) {
  try {
    return parseBulkRequest({ action, orderIds });
  } catch (e) {
    if (e instanceof ApiError) throw new CliError(Object.entries(e.errors ?? {}).map(([k, v]) => `${k}: ${v}`).join('; '));
    throw e;
  }
}

export const BULK_COMMANDS: Record<string, Command> = {
  bulk: {
    summary: 'dispatch, retry or quote up to 50 Shopify orders, with a result per order',
    usage: 'bulk <shop> <dispatch|retry|quote> <order id>...',
    async run(rt, args) {
      const { values, positionals } = parse(args, {}, 2 + 50 + 1);
      const shop = shopArg(positionals[0]);
      const request = requestOf(positionals[1], positionals.slice(2));
      const r = await runBulk(rt.ctx, shop, request);
      if (values.json) return rt.out(JSON.stringify(r));
      rt.out(table([
        ['ORDER', 'NAME', 'OUTCOME', 'CODE', 'STATUS', 'MESSAGE'],
        ...r.results.map((x) => [x.orderId, x.orderName ?? '-', x.outcome, x.code ?? '-', x.status ?? '-', x.message]),
      ]));
      rt.out(`${r.counts.ok} done, ${r.counts.refused} refused, ${r.counts.not_found} not found.`);
    },
  },
};
