// Registers and keeps in sync the shop's carrier service (Shopify calls
// RATES_CALLBACK_PATH at checkout), and reports what is missing. Decisions: setup.ts.
import type { AppContext } from '../context.ts';
import { CARRIER_SERVICE_CREATE, CARRIER_SERVICE_UPDATE, RATES_SETUP } from '../shopify/operations.ts';
import { errorMessage } from '../ops/errors.ts';
import { parseStoredSettings, type Settings } from '../settings/schema.ts';
import { courierAccess, requireShop, updateSettings } from '../settings/store.ts';
import { RATES_CALLBACK_PATH } from './route.ts';
import { carrierServiceStep, eligibilityWithCode, planSupport, setupProblems, type CarrierServiceNode, type PlanSupport, type SetupProblem, type ShopPlan } from './setup.ts';

export interface RatesStatus {
  enabled: boolean;
  callbackUrl: string;
  scopes: { granted: boolean };
  plan: { name: string; support: PlanSupport };
  carrierService: CarrierServiceNode | null;
  problems: SetupProblem[];
}

interface SetupData {
  shop: { plan: ShopPlan };
  currentAppInstallation: { accessScopes: Array<{ handle: string }> };
  carrierServices: { nodes: CarrierServiceNode[] };
}

export const callbackUrlOf = (ctx: Pick<AppContext, 'config'>) => `${ctx.config.publicWebhookBaseUrl}${RATES_CALLBACK_PATH}`;

async function readSetup(ctx: AppContext, domain: string): Promise<SetupData> {
  return ctx.admin.request<SetupData>(domain, RATES_SETUP);
}

function statusOf(ctx: AppContext, settings: Settings, data: SetupData, pickupStoreId: string | null, createRefusal: string | null): RatesStatus {
  const callbackUrl = callbackUrlOf(ctx);
  const scopes = data.currentAppInstallation.accessScopes.map((s) => s.handle);
  return {
    enabled: settings.rates.enabled,
    callbackUrl,
    scopes: { granted: scopes.includes('write_shipping') },
    plan: { name: data.shop.plan.publicDisplayName, support: planSupport(data.shop.plan) },
    carrierService: data.carrierServices.nodes.find((c) => c.callbackUrl === callbackUrl) ?? null,
    problems: setupProblems({ scopes, plan: data.shop.plan, pickupStoreId, createRefusal, rates: settings.rates }),
  };
}

export async function ratesStatus(ctx: AppContext, domain: string): Promise<RatesStatus> {
  const shop = await requireShop(ctx.db, domain);
  const settings = parseStoredSettings(shop.settings);
  const access = await courierAccess(ctx.db, ctx.box, shop.id, settings.activeEnvironment, ctx.config.courierBaseUrls);
  return statusOf(ctx, settings, await readSetup(ctx, domain), access.pickupStoreId, null);
}

/** Creates, renames, (de)activates our carrier service to match the settings; adds the rate's code to dispatch eligibility. */
export async function syncCarrierService(ctx: AppContext, domain: string): Promise<RatesStatus> {
  const shop = await requireShop(ctx.db, domain);
  let settings = parseStoredSettings(shop.settings);
  const access = await courierAccess(ctx.db, ctx.box, shop.id, settings.activeEnvironment, ctx.config.courierBaseUrls);
  const data = await readSetup(ctx, domain);
  if (settings.rates.enabled) {
    const lines = eligibilityWithCode(settings);
    if (lines) settings = await updateSettings(ctx.db, domain, { eligibility: { shippingLines: lines } });
  }
  const step = carrierServiceStep(data.carrierServices.nodes, { enabled: settings.rates.enabled, name: settings.rates.serviceName, callbackUrl: callbackUrlOf(ctx) });
  let refusal: string | null = null;
  if (step.kind !== 'none' && data.currentAppInstallation.accessScopes.some((s) => s.handle === 'write_shipping')) {
    try {
      const r = step.kind === 'create'
        ? (await ctx.admin.request(domain, CARRIER_SERVICE_CREATE, { input: step.input })).carrierServiceCreate
        : (await ctx.admin.request(domain, CARRIER_SERVICE_UPDATE, { input: step.input })).carrierServiceUpdate;
      const errors: Array<{ message: string }> = r.userErrors ?? [];
      if (errors.length) refusal = errors.map((e) => e.message).join('; ');
      else {
        const node: CarrierServiceNode = r.carrierService;
        data.carrierServices.nodes = [...data.carrierServices.nodes.filter((c) => c.id !== node.id), node];
      }
    } catch (e) {
      refusal = errorMessage(e);
    }
    if (refusal) ctx.log.warn({ shop: domain, err: refusal }, 'rates: carrier service sync refused');
  }
  return statusOf(ctx, settings, data, access.pickupStoreId, refusal);
}
