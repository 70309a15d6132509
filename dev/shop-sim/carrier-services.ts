// The shop simulator's carrier services (CarrierService) and checkout: the Admin GraphQL
// operations the app sends for rates at checkout (validated like the others by
// admin-graphql.ts first), and a checkout that POSTs Shopify's documented rate request,
// signed with the app secret, to the registered callback URL.
import { createHmac } from 'node:crypto';
import type { SimShop } from './admin-graphql.ts';
import { declaredScopes } from './fixtures.ts';
import { HttpError } from './errors.ts';

export interface SimCarrierService {
  id: string;
  name: string;
  callbackUrl: string;
  active: boolean;
  supportsServiceDiscovery: boolean;
}

export interface SimPlan {
  publicDisplayName: string;
  partnerDevelopment: boolean;
  shopifyPlus: boolean;
}

interface CarrierState {
  services: SimCarrierService[];
  /** A development store by default: carrier-calculated shipping is available. */
  plan: SimPlan;
  /** Granted scopes (null: the shopify.app.toml ones). */
  scope: string | null;
}

const states = new WeakMap<SimShop, CarrierState>();
let nextId = 1;

export function carrierState(shop: SimShop): CarrierState {
  let s = states.get(shop);
  if (!s) states.set(shop, (s = { services: [], plan: { publicDisplayName: 'Development', partnerDevelopment: true, shopifyPlus: false }, scope: null }));
  return s;
}

const grantedScopes = (s: CarrierState) => (s.scope ?? declaredScopes() ?? '').split(',').map((x) => x.trim()).filter(Boolean);
const node = (c: SimCarrierService) => ({ id: `gid://shopify/DeliveryCarrierService/${c.id}`, name: c.name, callbackUrl: c.callbackUrl, active: c.active });
const PLANS_WITH_CARRIER_SHIPPING = ['Advanced', 'Plus', 'Development'];

type Handler = (shop: SimShop, v: Record<string, any>) => { data: unknown; userErrors?: boolean; errors?: unknown[] };
const refused = (field: string[] | null, message: string, code: string) => [{ field, message, code }];

/** Merged into admin-graphql.ts's HANDLERS. */
export const CARRIER_SERVICE_HANDLERS: Record<string, Handler> = {
  RatesSetup(shop) {
    const s = carrierState(shop);
    return {
      data: {
        shop: { plan: s.plan },
        currentAppInstallation: { accessScopes: grantedScopes(s).map((handle) => ({ handle })) },
        carrierServices: { nodes: s.services.map(node) },
      },
    };
  },
  CarrierServiceCreate(shop, v) {
    const s = carrierState(shop);
    const input = v.input ?? {};
    if (!grantedScopes(s).includes('write_shipping')) {
      return { data: { carrierServiceCreate: null }, errors: [{ message: 'Access denied for carrierServiceCreate field. Required access: `write_shipping` access scope.', extensions: { code: 'ACCESS_DENIED' } }] };
    }
    const eligible = s.plan.partnerDevelopment || s.plan.shopifyPlus || PLANS_WITH_CARRIER_SHIPPING.includes(s.plan.publicDisplayName);
    if (!eligible) {
      return { data: { carrierServiceCreate: { carrierService: null, userErrors: refused(null, 'Carrier-calculated shipping is not available on the current plan', 'CARRIER_SERVICE_CREATE_FAILED') } }, userErrors: true };
    }
    if (s.services.some((c) => c.name === input.name)) {
      return { data: { carrierServiceCreate: { carrierService: null, userErrors: refused(['input', 'name'], `${input.name} is already configured`, 'CARRIER_SERVICE_CREATE_FAILED') } }, userErrors: true };
    }
    const c: SimCarrierService = { id: String(nextId++), name: input.name, callbackUrl: input.callbackUrl, active: input.active, supportsServiceDiscovery: input.supportsServiceDiscovery };
    s.services.push(c);
    return { data: { carrierServiceCreate: { carrierService: node(c), userErrors: [] } } };
  },
  CarrierServiceUpdate(shop, v) {
    const s = carrierState(shop);
    const input = v.input ?? {};
    const c = s.services.find((x) => `gid://shopify/DeliveryCarrierService/${x.id}` === input.id);
    if (!c) return { data: { carrierServiceUpdate: { carrierService: null, userErrors: refused(['input', 'id'], 'The carrier service could not be found', 'CARRIER_SERVICE_UPDATE_FAILED') } }, userErrors: true };
    for (const k of ['name', 'callbackUrl', 'active', 'supportsServiceDiscovery'] as const) if (input[k] !== undefined && input[k] !== null) (c as any)[k] = input[k];
    return { data: { carrierServiceUpdate: { carrierService: node(c), userErrors: [] } } };
  },
};

// ---- checkout

const ORIGIN = {
  country: 'ZA', postal_code: '2196', province: 'GP', city: 'Johannesburg', name: null, address1: '1 Cradock Avenue', address2: 'Rosebank', address3: null,
  phone: '+27 11 555 0100', fax: null, email: null, address_type: null, company_name: 'Rosebank warehouse',
};
const DESTINATION = {
  country: 'ZA', postal_code: '2196', province: 'GP', city: 'Johannesburg', name: 'Naledi Khumalo', address1: '15 Cradock Avenue', address2: 'Rosebank', address3: null,
  latitude: -26.1456, longitude: 28.0436, phone: '+27 61 555 0175', fax: null, email: null, address_type: null, company_name: null,
};
const ITEM = {
  name: 'Ceramic mug', sku: 'MUG-1', quantity: 1, grams: 500, price: 30000, vendor: 'Demo', requires_shipping: true, taxable: true,
  fulfillment_service: 'manual', properties: null, product_id: 48447225880, variant_id: 258644705304,
};

export interface CheckoutRatesRequest {
  origin?: Record<string, unknown>;
  destination?: Record<string, unknown>;
  items?: Array<Record<string, unknown>>;
  currency?: string;
  /** Send exactly this body (e.g. a broken one). */
  rawBody?: string;
  /** Sign with another secret (a forged request). */
  secret?: string;
  timeoutMs?: number;
}

/** Shopify's documented rate request: {rate: {origin, destination, items, currency, locale}}. */
export function rateRequestBody(r: CheckoutRatesRequest): string {
  return JSON.stringify({
    rate: {
      origin: { ...ORIGIN, ...r.origin },
      destination: { ...DESTINATION, ...r.destination },
      items: r.items ?? [ITEM],
      currency: r.currency ?? 'ZAR',
      locale: 'en',
    },
  });
}

/** Checkout asks the shop's active carrier service for rates, as Shopify does (at most 10 s, its longest limit). */
export async function checkoutRates(shop: SimShop, apiSecret: string, r: CheckoutRatesRequest) {
  const service = carrierState(shop).services.find((c) => c.active);
  if (!service) throw new HttpError(409, `${shop.domain} has no active carrier service: the app registers one from its settings`);
  const body = r.rawBody ?? rateRequestBody(r);
  const hmac = createHmac('sha256', r.secret ?? apiSecret).update(body).digest('base64');
  const started = Date.now();
  const res = await fetch(service.callbackUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': hmac, 'x-shopify-shop-domain': shop.domain },
    body,
    signal: AbortSignal.timeout(r.timeoutMs ?? 10_000),
  }).catch((e: Error) => {
    throw new HttpError(504, `the carrier service did not answer: ${e.message}`);
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: shown as text */
  }
  return { status: res.status, body: json ?? text, elapsedMs: Date.now() - started, carrierService: node(service) };
}
