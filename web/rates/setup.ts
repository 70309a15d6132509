// What the settings page says about rates at checkout: pure (test/unit/rates-request.test.ts).
// Shopify documents no "carrier-calculated shipping" flag; the plan is the signal, and
// carrierServiceCreate's userErrors the definitive one (carrier-service.ts).
import type { Settings } from '../settings/schema.ts';

export const RATES_SCOPE = 'write_shipping';

export interface ShopPlan {
  publicDisplayName: string;
  partnerDevelopment: boolean;
  shopifyPlus: boolean;
}

export type PlanSupport = 'yes' | 'maybe' | 'no';

// shopify.dev (CarrierService): Advanced or higher, development stores; the Shopify/Grow plan
// only with yearly billing or the paid add-on, which the API does not show. Names: ShopPlan.publicDisplayName.
const INCLUDED = new Set(['advanced', 'plus', 'plus trial', 'development']);
const EXCLUDED = new Set(['basic', 'starter', 'lite', 'inactive', 'paused', 'retail']);

export function planSupport(plan: ShopPlan): PlanSupport {
  if (plan.partnerDevelopment || plan.shopifyPlus) return 'yes';
  const name = plan.publicDisplayName.trim().toLowerCase();
  if (INCLUDED.has(name)) return 'yes';
  return EXCLUDED.has(name) ? 'no' : 'maybe';
}

export interface SetupProblem {
  code: 'missing_scope' | 'plan' | 'plan_unknown' | 'no_pickup_store' | 'create_refused' | 'no_quote_phone';
  message: string;
}

export function setupProblems(s: {
  scopes: string[];
  plan: ShopPlan;
  pickupStoreId: string | null;
  createRefusal?: string | null;
  rates: Pick<Settings['rates'], 'enabled' | 'quotePhone'>;
}): SetupProblem[] {
  const out: SetupProblem[] = [];
  if (!s.scopes.includes(RATES_SCOPE)) {
    out.push({ code: 'missing_scope', message: `The app was not granted ${RATES_SCOPE}: approve the app's updated permissions in Shopify, then sync again` });
  }
  const support = planSupport(s.plan);
  if (support === 'no') out.push({ code: 'plan', message: `The ${s.plan.publicDisplayName} plan has no carrier-calculated shipping: it needs Advanced or higher, or the add-on from Shopify Support` });
  if (support === 'maybe' && !s.createRefusal) {
    out.push({ code: 'plan_unknown', message: `The ${s.plan.publicDisplayName} plan has carrier-calculated shipping only with yearly billing or the add-on; Shopify says which when the rate is registered` });
  }
  if (s.createRefusal) out.push({ code: 'create_refused', message: `Shopify refused the carrier service: ${s.createRefusal}` });
  if (!s.pickupStoreId) out.push({ code: 'no_pickup_store', message: 'Set a pickup store for the active courier environment: quotes need one' });
  // The quote's drop-off phone is the buyer's, else the location's, else this setting (request.ts quoteBody).
  if (s.rates.enabled && !s.rates.quotePhone) {
    out.push({ code: 'no_quote_phone', message: 'Set a phone for checkout quotes ("Phone for checkout quotes" below): Shopify\'s rate requests often have no phone, and the courier needs one to quote. Without it, such a checkout gets the fallback rate or none.' });
  }
  return out;
}

/** The same-day code must be one dispatch accepts, so an order with this rate gets a courier. null = already there. */
export function eligibilityWithCode(settings: Settings): string[] | null {
  const code = settings.rates.serviceCode.toLowerCase();
  const lines = settings.eligibility.shippingLines;
  if (lines.length === 0 || lines.some((l) => l.toLowerCase() === code)) return null;
  return [...lines, settings.rates.serviceCode];
}

export interface CarrierServiceNode {
  id: string;
  name: string | null;
  callbackUrl: string | null;
  active: boolean;
}

export type CarrierServiceStep =
  | { kind: 'none' }
  | { kind: 'create'; input: { name: string; callbackUrl: string; active: true; supportsServiceDiscovery: true } }
  | { kind: 'update'; input: { id: string; name: string; callbackUrl: string; active: boolean } };

/** Ours is the one at our callback URL (the list holds other apps' too). Off = deactivated (kept, so turning on again reuses it). */
export function carrierServiceStep(existing: CarrierServiceNode[], want: { enabled: boolean; name: string; callbackUrl: string }): CarrierServiceStep {
  const ours = existing.find((c) => c.callbackUrl === want.callbackUrl);
  if (!ours) return want.enabled ? { kind: 'create', input: { name: want.name, callbackUrl: want.callbackUrl, active: true, supportsServiceDiscovery: true } } : { kind: 'none' };
  if (ours.active === want.enabled && ours.name === want.name && ours.callbackUrl === want.callbackUrl) return { kind: 'none' };
  return { kind: 'update', input: { id: ours.id, name: want.name, callbackUrl: want.callbackUrl, active: want.enabled } };
}
