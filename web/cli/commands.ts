// The CLI's commands. Each parses its own arguments (node:util parseArgs) and
// works through the same services as the app and the admin API.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Tx } from '../db/client.ts';
import { DeliveryApiError } from '../delivery/index.ts';
import {
  ActionError,
  dispatchNow,
  fixAndRetry,
  recordAndDispatch,
  redispatch,
  retryDelivery,
} from '../dispatch/service.ts';
import { DELIVERY_STATUSES } from '../lifecycle/machine.ts';
import { ENVIRONMENTS, SettingsValidationError, type EnvironmentName } from '../settings/schema.ts';
import {
  courierAccess,
  ensureEnvironments,
  ensureShop,
  environmentViews,
  reencryptSecrets,
  requireShop,
  updateEnvironment,
  updateSettings,
  webhookUrl,
} from '../settings/store.ts';
import { fetchOrderAsPayload } from '../shopify/operations.ts';
import { getSettings } from '../settings/store.ts';
import { MissingCredentialsError } from '../context.ts';
import { sendTestWebhook } from '../fulfillment/test-webhook.ts';
import { checkDeliveryNow, CheckNowError, reconcileOnce } from '../fulfillment/reconcile.ts';
import { checkFix } from '../dispatch/fix.ts';
import { parseOrderSnapshot } from '../dispatch/order.ts';
import { attachEvent, dismissEvent, listUnmatched, resolveDuplicates } from '../fulfillment/unmatched.ts';
import type { CliRuntime } from './runtime.ts';
import { readSecret } from './secrets.ts';

export { CliError } from './errors.ts';
import { CliError } from './errors.ts';
import { checkCourierUrl, courierUrlPolicy } from '../delivery/address-policy.ts';
import { DataRequestNotFound, exportDataRequest, listDataRequests } from '../privacy/data-requests.ts';
import { reencryptPersonalData } from '../db/protected-data.ts';

interface Command {
  summary: string;
  usage: string;
  run(rt: CliRuntime, args: string[]): Promise<void>;
}

const SHOP = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

function shopArg(value: string | undefined): string {
  if (!value) throw new CliError('missing <shop> (e.g. my-store.myshopify.com)');
  const shop = value.trim().toLowerCase();
  if (!SHOP.test(shop)) throw new CliError(`'${value}' is not a shop domain like my-store.myshopify.com`);
  return shop;
}

function parse(args: string[], options: ParseArgsOptionsConfig, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { json: { type: 'boolean' }, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError((e as Error).message.split('\n')[0]!.replace(/^.*?: /, ''));
  }
  if (parsed.positionals.length > positionals) throw new CliError(`unexpected argument '${parsed.positionals[positionals]}'`);
  return parsed as { values: Record<string, any>; positionals: string[] };
}

function onOff(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['on', 'true', 'yes'].includes(v)) return true;
  if (['off', 'false', 'no'].includes(v)) return false;
  throw new CliError(`--${name} expects on or off, got '${v}'`);
}

function envArg(name: string, v: string | undefined): EnvironmentName | undefined {
  if (v === undefined) return undefined;
  if (!(ENVIRONMENTS as readonly string[]).includes(v)) throw new CliError(`--${name} expects test or live, got '${v}'`);
  return v as EnvironmentName;
}

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

/** Delivery by id, Shopify order id, or order name (#1001). */
function lookupDelivery(tx: Tx, shop: string, ref: string) {
  return tx.delivery.findFirst({
    where: { shop: { domain: shop }, OR: [{ id: ref }, { shopifyOrderId: ref }, { orderName: ref.startsWith('#') ? ref : `#${ref}` }] },
    include: { events: { orderBy: [{ occurredAt: 'asc' }, { receivedAt: 'asc' }] } },
  });
}

async function findDelivery(tx: Tx, shop: string, ref: string | undefined) {
  if (!ref) throw new CliError('missing <delivery> (delivery id, Shopify order id or order name like #1001)');
  const d = await lookupDelivery(tx, shop, ref);
  if (!d) throw new CliError(`no delivery '${ref}' for ${shop}`);
  return d;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (c ?? '').padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

const when = (d: Date | null | undefined) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) : '-');

async function action(rt: CliRuntime, fn: (tx: Tx) => Promise<unknown>) {
  try {
    await rt.ctx.db.$transaction((tx) => fn(tx));
  } catch (e) {
    if (e instanceof ActionError) throw new CliError(e.message);
    throw e;
  }
  rt.ctx.queue.notify();
}

async function unmatchedAction<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ActionError) throw new CliError(e.message);
    throw e;
  }
}

async function showDelivery(rt: CliRuntime, shop: string, ref: string, json: boolean) {
  const d = await findDelivery(rt.ctx.db, shop, ref);
  if (json) {
    const { orderJson: _o, requestBody, responseBody, ...rest } = d;
    rt.out(JSON.stringify({ ...rest, request: requestBody ? JSON.parse(requestBody) : null, response: responseBody ? JSON.parse(responseBody) : null }, null, 2));
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

export const COMMANDS: Record<string, Command> = {
  shops: {
    summary: 'list shops',
    usage: 'shops',
    async run(rt, args) {
      const { values } = parse(args, {}, 0);
      const shops = await rt.ctx.db.shop.findMany({ orderBy: { domain: 'asc' }, include: { _count: { select: { deliveries: true } } } });
      if (values.json) return rt.out(JSON.stringify(shops.map((s) => ({ domain: s.domain, installedAt: s.installedAt, uninstalledAt: s.uninstalledAt, deliveries: s._count.deliveries }))));
      if (!shops.length) return rt.out('No shops yet. Install the app on a shop, or run: npm run cli -- configure <shop> ...');
      rt.out(table([['SHOP', 'INSTALLED', 'UNINSTALLED', 'DELIVERIES'], ...shops.map((s) => [s.domain, when(s.installedAt), when(s.uninstalledAt), String(s._count.deliveries)])]));
    },
  },

  show: {
    summary: "show a shop's settings and courier environments (secrets masked)",
    usage: 'show <shop>',
    async run(rt, args) {
      const { values, positionals } = parse(args, {}, 1);
      const shop = await requireShop(rt.ctx.db, shopArg(positionals[0]));
      const settings = await getSettings(rt.ctx.db, shop.domain);
      const envs = await environmentViews(rt.ctx.db, rt.ctx.box, shop.id);
      const base = rt.config.publicWebhookBaseUrl;
      if (values.json) {
        const withUrls = Object.fromEntries(Object.entries(envs).map(([k, v]) => [k, { ...v, webhookUrl: webhookUrl(base, v.endpointId) }]));
        return rt.out(JSON.stringify({ shop: shop.domain, settings, environments: withUrls }, null, 2));
      }
      rt.out(`Shop ${shop.domain}   active environment: ${settings.activeEnvironment}   auto-dispatch: ${settings.autoDispatch ? 'on' : 'off'}`);
      for (const env of ENVIRONMENTS) {
        const e = envs[env];
        const secret = (s: { set: boolean; last4: string | null }) => (s.set ? `set (••••${s.last4 ?? ''})` : 'not set');
        rt.out(`\n[${env}]${settings.activeEnvironment === env ? ' (active)' : ''}`);
        rt.out(`  base URL        ${e.baseUrl ?? `${rt.config.courierBaseUrls[env] ?? 'not set'} (default)`}`);
        rt.out(`  client id       ${e.clientId ?? 'not set'}`);
        rt.out(`  client secret   ${secret(e.clientSecret)}`);
        rt.out(`  webhook secret  ${secret(e.webhookSecret)}${e.previousWebhookSecret ? `   previous one accepted for ${e.previousWebhookSecret.remainingMinutes} more min` : ''}`);
        rt.out(`  pickup store    ${e.pickupStoreId ?? 'not set'}`);
        for (const [loc, store] of Object.entries(e.locationStores)) rt.out(`  location ${loc} → store ${store}`);
        rt.out(`  webhook URL     ${webhookUrl(base, e.endpointId)}`);
        rt.out(`  last webhook    ${when(e.lastWebhookAt)}${e.lastRejectionReason ? `   last rejection ${when(e.lastRejectionAt)}: ${e.lastRejectionReason}` : ''}`);
      }
      rt.out('\nSettings');
      rt.out(JSON.stringify(settings, null, 2).split('\n').map((l) => `  ${l}`).join('\n'));
    },
  },

  configure: {
    summary: "change a shop's settings and courier credentials",
    usage: `configure <shop> [options]
    --active test|live            environment used for new dispatches
    --env test|live               environment the credential options below change (default: active)
    --base-url URL|default        courier API base URL
    --client-id ID
    --client-secret -|env         read from stdin, or from COURIER_CLIENT_SECRET
    --webhook-secret -|env        read from stdin, or from COURIER_WEBHOOK_SECRET; the previous one keeps verifying
    --pickup-store ID             default pickup store
    --location-store LOC=STORE    pickup store for a Shopify location (repeatable; LOC= removes)
    --auto-dispatch on|off        --test-orders on|off
    --shipping-lines "A,B"        qualifying shipping line titles or codes ("" = any)
    --countries ZA,NA             destination countries ("" = any)
    --service-type S  --seller-type S  --fulfilment-type S  --category C
    --default-weight-kg N         --sizes "5:SMALL,15:MEDIUM"   --largest-size S
    --max-price N|none            quote first and hold orders priced above N
    --trigger accepted|driver_assigned|delivered   --notify on|off
    --courier-name NAME           --tracking-url https://…{jobId}|none
    --event-map status=EVENT      courier status → Shopify fulfillment event (repeatable)
    --settings JSON               a settings patch as JSON`,
    async run(rt, args) {
      const { values: v, positionals } = parse(
        args,
        {
          active: { type: 'string' }, env: { type: 'string' }, 'base-url': { type: 'string' }, 'client-id': { type: 'string' },
          'client-secret': { type: 'string' }, 'webhook-secret': { type: 'string' }, 'pickup-store': { type: 'string' },
          'location-store': { type: 'string', multiple: true }, 'auto-dispatch': { type: 'string' }, 'test-orders': { type: 'string' },
          'shipping-lines': { type: 'string' }, countries: { type: 'string' }, 'service-type': { type: 'string' },
          'seller-type': { type: 'string' }, 'fulfilment-type': { type: 'string' }, category: { type: 'string' },
          'default-weight-kg': { type: 'string' }, sizes: { type: 'string' }, 'largest-size': { type: 'string' },
          'max-price': { type: 'string' }, trigger: { type: 'string' }, notify: { type: 'string' }, 'courier-name': { type: 'string' },
          'tracking-url': { type: 'string' }, 'event-map': { type: 'string', multiple: true }, settings: { type: 'string' },
        },
        1,
      );
      const domain = shopArg(positionals[0]);
      const { db, box } = rt.ctx;
      const shop = await ensureShop(db, domain);
      await ensureEnvironments(db, shop.id);

      let patch: Record<string, any> = {};
      if (v.settings) {
        try {
          patch = JSON.parse(v.settings);
        } catch {
          throw new CliError('--settings is not valid JSON');
        }
      }
      const set = (path: string[], value: unknown) => {
        if (value === undefined) return;
        let o = patch;
        for (const k of path.slice(0, -1)) o = o[k] ??= {};
        o[path.at(-1)!] = value;
      };
      set(['activeEnvironment'], envArg('active', v.active));
      set(['autoDispatch'], onOff('auto-dispatch', v['auto-dispatch']));
      set(['eligibility', 'dispatchTestOrders'], onOff('test-orders', v['test-orders']));
      if (v['shipping-lines'] !== undefined) set(['eligibility', 'shippingLines'], list(v['shipping-lines']));
      if (v.countries !== undefined) set(['eligibility', 'countries'], list(v.countries));
      set(['serviceType'], v['service-type']);
      set(['sellerType'], v['seller-type']);
      set(['fulfilmentType'], v['fulfilment-type']);
      set(['package', 'category'], v.category);
      set(['package', 'defaultWeightKg'], v['default-weight-kg']);
      set(['package', 'largestSize'], v['largest-size']);
      if (v.sizes !== undefined) {
        set(['package', 'sizes'], list(v.sizes).map((rule) => {
          const [maxKg, size] = rule.split(':');
          if (!maxKg || !size) throw new CliError(`--sizes rule '${rule}' is not MAXKG:SIZE, e.g. 5:SMALL`);
          return { maxKg, size };
        }));
      }
      if (v['max-price'] !== undefined) set(['maxDeliveryPrice'], v['max-price'] === 'none' ? null : v['max-price']);
      set(['fulfillment', 'trigger'], v.trigger);
      set(['fulfillment', 'notifyCustomer'], onOff('notify', v.notify));
      set(['fulfillment', 'courierName'], v['courier-name']);
      if (v['tracking-url'] !== undefined) set(['fulfillment', 'trackingUrlTemplate'], v['tracking-url'] === 'none' ? null : v['tracking-url']);
      for (const m of v['event-map'] ?? []) {
        const [status, event] = String(m).split('=');
        if (!status || !event) throw new CliError(`--event-map '${m}' is not status=EVENT, e.g. collected=CARRIER_PICKED_UP`);
        set(['fulfillment', 'eventMapping', status.toLowerCase()], event.toUpperCase());
      }

      const baseUrl = v['base-url'];
      if (typeof baseUrl === 'string' && baseUrl !== 'default') {
        // The same policy as the admin's save (checked before anything is written).
        const problem = await checkCourierUrl(baseUrl, courierUrlPolicy(rt.config.nodeEnv));
        if (problem) throw new CliError(`--base-url ${problem}`);
      }
      try {
        const settings = Object.keys(patch).length ? await updateSettings(db, domain, patch) : await getSettings(db, domain);
        const env = envArg('env', v.env) ?? settings.activeEnvironment;
        const envPatch: Record<string, unknown> = {};
        if (v['base-url'] !== undefined) envPatch.baseUrl = v['base-url'] === 'default' ? null : v['base-url'];
        if (v['client-id'] !== undefined) envPatch.clientId = v['client-id'];
        if (v['client-secret'] !== undefined) envPatch.clientSecret = await readSecret('client-secret', v['client-secret'], 'COURIER_CLIENT_SECRET');
        if (v['webhook-secret'] !== undefined) envPatch.webhookSecret = await readSecret('webhook-secret', v['webhook-secret'], 'COURIER_WEBHOOK_SECRET');
        if (v['pickup-store'] !== undefined) envPatch.pickupStoreId = v['pickup-store'];
        if (v['location-store']) {
          envPatch.locationStores = Object.fromEntries((v['location-store'] as string[]).map((pair) => {
            const [loc, store] = pair.split('=');
            if (!loc) throw new CliError(`--location-store '${pair}' is not LOCATION=STORE`);
            return [loc.replace(/^gid:\/\/shopify\/Location\//, ''), store ? store : null];
          }));
        }
        if (Object.keys(envPatch).length) await updateEnvironment(db, box, domain, env, envPatch, { webhookSecretOverlapMs: rt.config.webhookSecretOverlapMs });
      } catch (e) {
        if (e instanceof SettingsValidationError) throw new CliError(`invalid setting ${e.message}`);
        throw e;
      }
      rt.out(`Updated ${domain}. Run \`npm run cli -- show ${domain}\` to review.`);
    },
  },

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
      const rows = await rt.ctx.db.delivery.findMany({
        where: { shop: { domain: shop }, ...(status ? { status } : {}) },
        orderBy: { createdAt: 'desc' },
        take: limit,
      });
      if (values.json) return rt.out(JSON.stringify(rows.map(({ orderJson: _o, requestBody: _q, responseBody: _r, ...d }) => d)));
      if (!rows.length) return rt.out(`No deliveries${status ? ` with status ${status}` : ''} for ${shop}.`);
      rt.out(table([
        ['ID', 'ORDER', 'STATUS', 'COURIER', 'PRICE', 'JOB', 'REASON'],
        ...rows.map((d) => [d.id, d.orderName ?? d.shopifyOrderId, d.status, d.courierStatus ?? '-', d.deliveryPrice ? `${d.deliveryPrice} ${d.currency}` : '-', d.dispatchJobId ?? '-', d.reason ?? '']),
      ]));
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
      const known = await lookupDelivery(rt.ctx.db, shop, ref);
      if (known) {
        await action(rt, (tx) => dispatchNow(tx, rt.ctx.queue, shop, known.id));
        return rt.out(`Queued ${known.orderName ?? known.shopifyOrderId} for dispatch.`);
      }
      if (!/^\d+$/.test(ref)) throw new CliError(`no delivery '${ref}' for ${shop}; give the Shopify order id to fetch it from Shopify`);
      const payload = await fetchOrderAsPayload(rt.ctx.admin, shop, ref);
      if (!payload) throw new CliError(`Shopify has no order ${ref} on ${shop}`);
      await action(rt, (tx) => recordAndDispatch(tx, rt.ctx.queue, shop, payload));
      rt.out(`Queued order ${payload.name} for dispatch.`);
    },
  },

  retry: {
    summary: 'retry a failed or attention delivery',
    usage: 'retry <shop> <delivery|order id|#name>',
    async run(rt, args) {
      const { positionals } = parse(args, {}, 2);
      const shop = shopArg(positionals[0]);
      const d = await findDelivery(rt.ctx.db, shop, positionals[1]);
      await action(rt, (tx) => retryDelivery(tx, rt.ctx.queue, shop, d.id));
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
      if (values.lat !== undefined) {
        input.latitude = Number(values.lat);
        input.longitude = Number(values.lng);
        if (!Number.isFinite(input.latitude) || !Number.isFinite(input.longitude)) throw new CliError('--lat and --lng must be decimal degrees, e.g. --lat -26.1076 --lng 28.0567');
      }
      if (!Object.keys(input).length) throw new CliError('nothing to fix: give --phone, --lat with --lng, --name, --address1, --address2, --city or --email');
      // The same checks as the admin API, before anything is stored (e.g. a phone invalid for the destination).
      const checked = checkFix(input, parseOrderSnapshot(JSON.parse(d.orderJson)));
      if (!checked.ok) throw new CliError(Object.entries(checked.errors).map(([k, v]) => `--${k === 'latitude' ? 'lat' : k === 'longitude' ? 'lng' : k}: ${v}`).join('; '));
      await action(rt, (tx) => fixAndRetry(tx, rt.ctx.queue, shop, d.id, checked.fix));
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
      await action(rt, (tx) => redispatch(tx, rt.ctx.queue, shop, d.id));
      rt.out(`Queued ${d.orderName ?? d.shopifyOrderId} for a new delivery.`);
    },
  },

  'test-connection': {
    summary: "request a courier token with a shop's credentials",
    usage: 'test-connection <shop> [--env test|live]',
    async run(rt, args) {
      const { values, positionals } = parse(args, { env: { type: 'string' } }, 1);
      const shop = await requireShop(rt.ctx.db, shopArg(positionals[0]));
      const env = envArg('env', values.env) ?? (await getSettings(rt.ctx.db, shop.domain)).activeEnvironment;
      const access = await courierAccess(rt.ctx.db, rt.ctx.box, shop.id, env, rt.config.courierBaseUrls);
      try {
        const t = await rt.ctx.courier.for(shop.domain, access).fetchToken();
        rt.out(`OK: the ${env} courier issued a token${t.scope ? ` with scopes ${t.scope}` : ''}, valid until ${new Date(t.expiresAt).toISOString()}.`);
      } catch (e) {
        if (e instanceof DeliveryApiError || e instanceof MissingCredentialsError) throw new CliError(e.message);
        throw e;
      }
    },
  },

  'test-webhook': {
    summary: 'ask the courier to send a test webhook and report whether our endpoint verified it',
    usage: 'test-webhook <shop> [--env test|live]',
    async run(rt, args) {
      const { values, positionals } = parse(args, { env: { type: 'string' } }, 1);
      const shop = await requireShop(rt.ctx.db, shopArg(positionals[0]));
      const env = envArg('env', values.env) ?? (await getSettings(rt.ctx.db, shop.domain)).activeEnvironment;
      const r = await sendTestWebhook(rt.ctx, shop.domain, env);
      if (values.json) return rt.out(JSON.stringify(r));
      if (!r.verified) throw new CliError(r.message);
      rt.out(`OK: ${r.message}.`);
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
      const r = await unmatchedAction(() => attachEvent(rt.ctx, shop, positionals[1]!, d.id));
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
      await unmatchedAction(() => dismissEvent(rt.ctx, shop, positionals[1]!));
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
      await unmatchedAction(() => resolveDuplicates(rt.ctx, shop, d.id));
      rt.out(`Marked ${d.orderName ?? d.shopifyOrderId} resolved.`);
    },
  },

  'rotate-key': {
    summary: 're-encrypt every stored secret under the current ENCRYPTION_KEY',
    usage: 'rotate-key   (set the new ENCRYPTION_KEY and the old one in ENCRYPTION_KEY_PREVIOUS first)',
    async run(rt, args) {
      parse(args, {}, 0);
      const r = await reencryptSecrets(rt.ctx.db, rt.ctx.box);
      const personal = await reencryptPersonalData(rt.ctx.database.db, rt.ctx.box);
      rt.out(`Re-encrypted ${r.environments} courier environment(s), ${r.sessions} session(s) and ${personal} record(s) of personal data. The previous key can now be removed.`);
    },
  },
};

export function usage(): string {
  const lines = ['Same-Day Dispatch operator CLI: npm run cli -- <command> [options]   (--json for machine output)', ''];
  for (const c of Object.values(COMMANDS)) lines.push(`  ${c.usage.split('\n')[0]!.padEnd(52)} ${c.summary}`);
  lines.push('', 'Run `npm run cli -- <command> --help` for a command\'s options.', '');
  return lines.join('\n');
}

