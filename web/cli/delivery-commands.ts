// CLI commands for deliveries: list, show, and the merchant's actions, through
// the same services as the admin API (web/admin/services).
import { readExchange } from '../db/json-columns.ts';
import { DELIVERY_STATUSES } from '../lifecycle/machine.ts';
import { checkDeliveryNow, CheckNowError, reconcileOnce } from '../fulfillment/reconcile.ts';
import { findShop } from '../settings/store.ts';
import { dispatchOrder, runAction } from '../dispatch/actions.ts';
import { findDeliveryByRef } from '../admin/services/delivery.ts';
import { findDeliveries } from '../admin/services/deliveries.ts';
import type { Db } from '../db/client.ts';
import { asCliError, parse, shopArg, table, when, type Command } from './args.ts';
import { CliError } from './errors.ts';
import type { CliRuntime } from './runtime.ts';

/** Delivery by id, Shopify order id, or order name (#1001). */
export async function findDelivery(db: Db, shop: string, ref: string | undefined) {
  if (!ref) throw new CliError('missing <delivery> (delivery id, Shopify order id or order name like #1001)');
  const d = await findDeliveryByRef(db, shop, ref);
  if (!d) throw new CliError(`no delivery '${ref}' for ${shop}`);
  return d;
}

async function showDelivery(rt: CliRuntime, shop: string, ref: string, json: boolean) {
  const d = await findDelivery(rt.ctx.db, shop, ref);
  if (json) {
    const { orderJson: _o, requestBody, responseBody, ...rest } = d;
    rt.out(JSON.stringify({ ...rest, request: readExchange(requestBody), response: readExchange(responseBody) }, null, 2));
    return;
  }
  rt.out(`Delivery ${d.id}  order ${d.orderName ?? ''} (${d.shopifyOrderId})`);
  rt.out(`  status        ${d.status}${d.reason ? ` — ${d.reason}` : ''}`);
  rt.out(`  environment   ${d.environment ?? '-'}   generation ${d.generation}   tries ${d.tries}`);
  rt.out(`  courier       order ${d.courierOrderId ?? '-'}   job ${d.dispatchJobId ?? '-'}   status ${d.courierStatus ?? d.courierOrderStatus ?? '-'}`);
  rt.out(`  price         ${d.deliveryPrice ? `${d.deliveryPrice} ${d.currency}` : '-'}`);
  rt.out(`  fulfillment   ${d.fulfillmentId ?? '-'}`);
  if (d.lastError) rt.out(`  last error    ${d.lastError}`);
  rt.out('  timeline');
  for (const e of d.events) rt.out(`    ${when(e.occurredAt)}  ${e.kind.padEnd(18)} ${e.status ?? ''}${e.message ? ` ${e.message}` : ''}${e.applied ? '' : ' (not applied)'}`);
}

export const DELIVERY_COMMANDS: Record<string, Command> = {
  deliveries: {
    summary: "list a shop's deliveries, newest first",
    usage: `deliveries <shop> [--status S] [--limit N]   statuses: ${DELIVERY_STATUSES.join(', ')}`,
    async run(rt, args) {
      const { values, positionals } = parse(args, { status: { type: 'string' }, limit: { type: 'string' } }, 1);
      const shop = shopArg(positionals[0]);
      const status = values.status?.toUpperCase();
      if (status && !(DELIVERY_STATUSES as readonly string[]).includes(status)) throw new CliError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      const limit = values.limit ? Number(values.limit) : 50;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError('--limit must be a whole number from 1 to 1000');
      const found = await findShop(rt.ctx.db, shop);
      const rows = found ? (await findDeliveries(rt.ctx, found.id, { status: status ? [status] : [], limit })).rows : [];
      if (values.json) return rt.out(JSON.stringify(rows.map(({ orderJson: _o, requestBody: _q, responseBody: _r, events: _e, ...d }) => d)));
      if (!rows.length) return rt.out(`No deliveries${status ? ` with status ${status}` : ''} for ${shop}.`);
      rt.out(table([
        ['ID', 'ORDER', 'STATUS', 'COURIER', 'PRICE', 'JOB', 'REASON'],
        ...rows.map((d) => [d.id, d.orderName ?? d.shopifyOrderId, d.status, d.courierStatus ?? '-', d.deliveryPrice ? `${d.deliveryPrice} ${d.currency}` : '-', d.dispatchJobId ?? '-', d.reason ?? '']),
      ]));
    },
  },

  delivery: {
    summary: 'one delivery with its timeline',
    usage: 'delivery <shop> <delivery|order id|#name>',
    async run(rt, args) {
      const { values, positionals } = parse(args, {}, 2);
      await showDelivery(rt, shopArg(positionals[0]), positionals[1]!, !!values.json);
    },
  },

  dispatch: {
    summary: 'dispatch an order now (fetched from Shopify when we never received it)',
    usage: 'dispatch <shop> <delivery|order id|#name>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      const ref = positionals[1];
      if (!ref) throw new CliError('missing <delivery|order id>');
      const known = await findDeliveryByRef(rt.ctx.db, shop, ref);
      if (known) {
        await asCliError(() => runAction(rt.ctx, shop, known.id, 'dispatch'));
        return rt.out(`Queued ${known.orderName ?? known.shopifyOrderId} for dispatch.`);
      }
      if (!/^\d+$/.test(ref)) throw new CliError(`no delivery '${ref}' for ${shop}; give the Shopify order id to fetch it from Shopify`);
      const done = await asCliError(() => dispatchOrder(rt.ctx, shop, ref, null));
      if (!done) throw new CliError(`Shopify has no order ${ref} on ${shop}`);
      rt.out(`Queued order ${done.orderName} for dispatch.`);
    },
  },

  retry: {
    summary: 'retry a failed or attention delivery',
    usage: 'retry <shop> <delivery|order id|#name>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      const d = await findDelivery(rt.ctx.db, shop, positionals[1]);
      await asCliError(() => runAction(rt.ctx, shop, d.id, 'retry'));
      rt.out(`Queued ${d.orderName ?? d.shopifyOrderId} again.`);
    },
  },

  fix: {
    summary: 'correct what stops a delivery (phone, coordinates, name, address, e-mail) and retry it',
    usage: 'fix <shop> <delivery|order id|#name> [--phone P] [--lat=N --lng=N] [--name N] [--address1 A] [--address2 A] [--city C] [--email E]   (write negatives as --lat=-26.1)',
    async run(rt, args) {
      const options = { phone: { type: 'string' }, lat: { type: 'string' }, lng: { type: 'string' }, name: { type: 'string' }, address1: { type: 'string' }, address2: { type: 'string' }, city: { type: 'string' }, email: { type: 'string' } } as const;
      const { values, positionals } = parse(args, options, 2);
      const shop = shopArg(positionals[0]);
      const d = await findDelivery(rt.ctx.db, shop, positionals[1]);
      const input: Record<string, unknown> = {};
      for (const k of ['phone', 'name', 'address1', 'address2', 'city', 'email'] as const) if (values[k] !== undefined) input[k] = values[k];
      if ((values.lat === undefined) !== (values.lng === undefined)) throw new CliError('--lat and --lng go together');
      // Checked by the one validator (web/dispatch/fix.ts), as for the admin API, before anything is stored.
      if (values.lat !== undefined) {
        input.latitude = values.lat;
        input.longitude = values.lng;
      }
      if (!Object.keys(input).length) throw new CliError('nothing to fix: give --phone, --lat with --lng, --name, --address1, --address2, --city or --email');
      await asCliError(() => runAction(rt.ctx, shop, d.id, 'fix', input));
      rt.out(`Corrected and queued ${d.orderName ?? d.shopifyOrderId} again.`);
    },
  },

  redispatch: {
    summary: 'book a new courier delivery after a courier-side failure (new idempotency key)',
    usage: 'redispatch <shop> <delivery|order id|#name>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      const d = await findDelivery(rt.ctx.db, shop, positionals[1]);
      await asCliError(() => runAction(rt.ctx, shop, d.id, 'redispatch'));
      rt.out(`Queued ${d.orderName ?? d.shopifyOrderId} for a new delivery.`);
    },
  },

  reconcile: {
    summary: 'ask the courier now about quiet deliveries and retry unmatched events; with an order, read that one at once',
    usage: "reconcile [<shop> [<delivery|order id|#name>]]",
    async run(rt, args) {
      const { values, positionals } = parse(args, {}, 2);
      if (positionals[1] !== undefined) {
        const shop = shopArg(positionals[0]);
        const d = await findDelivery(rt.ctx.db, shop, positionals[1]);
        let r;
        try {
          r = await checkDeliveryNow(rt.ctx, shop, d.id);
        } catch (e) {
          if (e instanceof CheckNowError) throw new CliError(e.message);
          throw e;
        }
        if (values.json) return rt.out(JSON.stringify(r));
        if (r.result === 'failed') throw new CliError(`could not read courier order ${d.courierOrderId}; see the log`);
        return rt.out(`${d.orderName ?? d.shopifyOrderId}: courier status ${r.courierStatus ?? '-'} (${r.result}).`);
      }
      const r = await reconcileOnce(rt.ctx, positionals[0] ? { shopDomain: shopArg(positionals[0]) } : {});
      if (values.json) return rt.out(JSON.stringify(r));
      rt.out(`Checked ${r.checked} quiet deliveries: ${r.changed} changed, ${r.failed} could not be read; ${r.rematched} unmatched events retried.`);
    },
  },
};
