// CLI commands for shops, settings, courier credentials and keys.
import { checkCourierUrl, courierUrlPolicy } from '../delivery/address-policy.ts';
import { testConnection, testWebhook } from '../admin/services/settings.ts';
import { reencryptPersonalData } from '../db/protected-data.ts';
import { ENVIRONMENTS, SettingsValidationError } from '../settings/schema.ts';
import {
  ensureEnvironments,
  ensureShop,
  environmentViews,
  getSettings,
  reencryptSecrets,
  requireShop,
  updateEnvironment,
  updateSettings,
  webhookUrl,
} from '../settings/store.ts';
import { envArg, list, onOff, parse, shopArg, table, when, type Command } from './args.ts';
import { CliError } from './errors.ts';
import { readSecret } from './secrets.ts';

export const SETTINGS_COMMANDS: Record<string, Command> = {
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

  'test-connection': {
    summary: "request a courier token with a shop's credentials (recorded for the set-up checklist)",
    usage: 'test-connection <shop> [--env test|live]',
    async run(rt, args) {
      const { values, positionals } = parse(args, { env: { type: 'string' } }, 1);
      const shop = await requireShop(rt.ctx.db, shopArg(positionals[0]));
      const env = envArg('env', values.env) ?? (await getSettings(rt.ctx.db, shop.domain)).activeEnvironment;
      // The admin's own check: recorded the same way, so Home's checklist counts it.
      const r = await testConnection(rt.ctx, shop.domain, env);
      if (values.json) return rt.out(JSON.stringify(r));
      if (!r.ok) throw new CliError(r.message);
      rt.out(`OK: the ${env} courier issued a token${r.scope ? ` with scopes ${r.scope}` : ''}, valid until ${r.expiresAt}.`);
    },
  },

  'test-webhook': {
    summary: 'ask the courier to send a test webhook and report whether our endpoint verified it (recorded for the set-up checklist)',
    usage: 'test-webhook <shop> [--env test|live]',
    async run(rt, args) {
      const { values, positionals } = parse(args, { env: { type: 'string' } }, 1);
      const shop = await requireShop(rt.ctx.db, shopArg(positionals[0]));
      const env = envArg('env', values.env) ?? (await getSettings(rt.ctx.db, shop.domain)).activeEnvironment;
      const r = await testWebhook(rt.ctx, shop.domain, env);
      if (values.json) return rt.out(JSON.stringify(r));
      if (!r.ok) throw new CliError(r.message);
      rt.out(`OK: ${r.message}.`);
    },
  },

  'rotate-key': {
    summary: 're-encrypt every stored secret under the current ENCRYPTION_KEY',
    usage: 'rotate-key   (set the new ENCRYPTION_KEY and the old one in ENCRYPTION_KEY_PREVIOUS first)',
    async run(rt, args) {
      parse(args, {}, 0);
      const r = await reencryptSecrets(rt.ctx.db, rt.ctx.box);
      const personal = await reencryptPersonalData(rt.ctx.database.db, rt.ctx.box);
      rt.out(`Re-encrypted ${r.environments} courier environment(s), ${r.sessions} session(s), ${r.geocoderKeys} geocoder key(s) and ${personal} record(s) of personal data. The previous key can now be removed.`);
    },
  },
};
