// The shop simulator's Shopify Flow: flowTriggerReceive (validated like every
// operation by admin-graphql.ts first) records the trigger after checking its
// payload against the trigger extension's schema, read from the app's own
// extensions/*/shopify.extension.toml; and Flow's calls to the app (an action
// run, a trigger lifecycle callback), signed with the app secret as Shopify
// signs them (X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body).
import { createHmac, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import type { SimShop } from './admin-graphql.ts';
import { HttpError } from './errors.ts';
import type { ControlRoute, Ctx } from './control-routes.ts';
import type { SimState } from './state.ts';

const EXTENSIONS_DIR = fileURLToPath(new URL('../../extensions/', import.meta.url));

export interface FlowExtension {
  type: 'flow_trigger' | 'flow_action' | 'flow_trigger_lifecycle_callback';
  handle: string;
  name: string;
  fields: Array<{ type: string; key?: string; required?: boolean }>;
  runtimeUrl?: string;
  url?: string;
}

/** Every Flow extension of the app, by handle (read from the toml files). */
export function flowExtensions(dir = EXTENSIONS_DIR): Map<string, FlowExtension> {
  const out = new Map<string, FlowExtension>();
  for (const name of readdirSync(dir)) {
    let text: string;
    try {
      text = readFileSync(join(dir, name, 'shopify.extension.toml'), 'utf8');
    } catch {
      continue;
    }
    const toml = parse(text) as { extensions?: Array<Record<string, any>>; settings?: { fields?: FlowExtension['fields'] } };
    for (const e of toml.extensions ?? []) {
      if (!String(e.type).startsWith('flow_')) continue;
      out.set(e.handle, { type: e.type, handle: e.handle, name: e.name, fields: toml.settings?.fields ?? [], runtimeUrl: e.runtime_url, url: e.url });
    }
  }
  return out;
}

/** Reference fields and the payload key Flow reads them from (Shopify/cli services/flow/serialize-fields.ts). */
const REFERENCE_KEY: Record<string, string> = {
  customer_reference: 'customer_id', order_reference: 'order_id', product_reference: 'product_id', company_reference: 'company_id', company_contact_reference: 'company_contact_id',
};
const FLOW_PAYLOAD_LIMIT = 1_000_000;

/** Problems with a trigger payload, by Flow's rules for the extension's fields (empty: valid). */
export function triggerPayloadProblems(ext: FlowExtension | undefined, payload: unknown): string[] {
  if (!ext || ext.type !== 'flow_trigger') return ['handle: no Flow trigger with this handle'];
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return ['payload: expected a JSON object'];
  if (Buffer.byteLength(JSON.stringify(payload)) >= FLOW_PAYLOAD_LIMIT) return ['payload: must be under 1 MB'];
  const p = payload as Record<string, unknown>;
  const problems: string[] = [];
  const keys = new Set<string>();
  for (const f of ext.fields) {
    const key = REFERENCE_KEY[f.type] ?? f.key ?? '';
    keys.add(key);
    const v = p[key];
    if (v === undefined || v === null) {
      problems.push(`${key}: missing`);
      continue;
    }
    const ok = f.type in REFERENCE_KEY ? Number.isSafeInteger(v) && (v as number) > 0
      : f.type === 'number_decimal' ? typeof v === 'number' && Number.isFinite(v)
      : f.type === 'boolean' ? typeof v === 'boolean'
      : f.type === 'url' ? typeof v === 'string' && /^https?:\/\//.test(v)
      : f.type === 'email' ? typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v)
      : typeof v === 'string';
    if (!ok) problems.push(`${key}: not a valid ${f.type} (${JSON.stringify(v).slice(0, 80)})`);
  }
  for (const k of Object.keys(p)) if (!keys.has(k)) problems.push(`${k}: not a field of the trigger`);
  return problems;
}

export interface ReceivedTrigger {
  seq: number;
  handle: string;
  payload: Record<string, unknown>;
  at: string;
}

interface FlowState {
  received: ReceivedTrigger[];
  /** Refused payloads, with the problems found. */
  refused: Array<{ handle: string; payload: unknown; problems: string[]; at: string }>;
}

const states = new WeakMap<SimShop, FlowState>();
let seq = 0;
let extensions: Map<string, FlowExtension> | null = null;

export function flowState(shop: SimShop): FlowState {
  let s = states.get(shop);
  if (!s) states.set(shop, (s = { received: [], refused: [] }));
  return s;
}

type Handler = (shop: SimShop, v: Record<string, any>) => { data: unknown; userErrors?: boolean; errors?: unknown[] };

/** Merged into admin-graphql.ts's HANDLERS. */
export const FLOW_HANDLERS: Record<string, Handler> = {
  FlowTriggerReceive(shop, v) {
    extensions ??= flowExtensions();
    const s = flowState(shop);
    const problems = triggerPayloadProblems(extensions.get(v.handle), v.payload);
    if (problems.length) {
      s.refused.push({ handle: v.handle, payload: v.payload, problems, at: new Date().toISOString() });
      return { data: { flowTriggerReceive: { userErrors: problems.map((message) => ({ field: ['payload'], message })) } }, userErrors: true };
    }
    s.received.push({ seq: ++seq, handle: v.handle, payload: v.payload, at: new Date().toISOString() });
    return { data: { flowTriggerReceive: { userErrors: [] } } };
  },
};

// ---- Flow's calls to the app

export interface FlowCall {
  appUrl: string;
  apiSecret: string;
  shop: SimShop;
}

export interface FlowActionRequest {
  handle: string;
  orderId: string;
  /** Default: a fresh one (a new run); the same id again is Flow's retry of that run. */
  actionRunId?: string;
  /** Sign with another secret (a forged request). */
  secret?: string;
  /** Send exactly this body. */
  rawBody?: string;
}

async function signedPost(url: string, secret: string, body: string, headers: Record<string, string> = {}) {
  const hmac = createHmac('sha256', secret).update(body).digest('base64');
  const res = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': hmac, ...headers }, body, signal: AbortSignal.timeout(10_000),
  }).catch((e: Error) => {
    throw new HttpError(504, `the app did not answer: ${e.message}`);
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* shown as text */
  }
  return { status: res.status, body: json };
}

const shopId = (domain: string) => Number.parseInt(createHmac('sha256', 'shop').update(domain).digest('hex').slice(0, 10), 16);
const relative = (appUrl: string, path: string | undefined) => (path?.startsWith('/') ? `${appUrl}${path}` : path ?? appUrl);

/** A Flow action run, as Flow POSTs it to the action's runtime URL (shopify.dev: Flow action endpoints). */
export async function fireFlowAction(c: FlowCall, r: FlowActionRequest) {
  extensions ??= flowExtensions();
  const ext = extensions.get(r.handle);
  if (!ext || ext.type !== 'flow_action') throw new HttpError(400, `no Flow action with handle ${JSON.stringify(r.handle)} in extensions/`);
  if (typeof r.orderId !== 'string' || !/^\d+$/.test(r.orderId)) throw new HttpError(400, 'orderId must be a numeric Shopify order id');
  const actionRunId = r.actionRunId ?? randomUUID();
  const body = r.rawBody ?? JSON.stringify({
    shop_id: shopId(c.shop.domain),
    shopify_domain: c.shop.domain,
    action_run_id: actionRunId,
    action_definition_id: ext.name,
    handle: ext.handle,
    properties: { order_id: r.orderId },
  });
  return { actionRunId, ...(await signedPost(relative(c.appUrl, ext.runtimeUrl), r.secret ?? c.apiSecret, body)) };
}

/** Flow's trigger lifecycle callback: a workflow using `trigger` was enabled or disabled (shopify.dev: Track Flow lifecycle events). */
export async function sendFlowLifecycle(c: FlowCall, r: { trigger: string; enabled: boolean; timestamp?: string; secret?: string }) {
  extensions ??= flowExtensions();
  const callback = [...extensions.values()].find((e) => e.type === 'flow_trigger_lifecycle_callback');
  if (!callback) throw new HttpError(409, 'the app declares no flow_trigger_lifecycle_callback extension');
  const body = JSON.stringify({
    flow_trigger_definition_id: r.trigger,
    has_enabled_flow: r.enabled,
    shop_id: shopId(c.shop.domain),
    shopify_domain: c.shop.domain,
    timestamp: r.timestamp ?? new Date().toISOString(),
  });
  return signedPost(relative(c.appUrl, callback.url), r.secret ?? c.apiSecret, body);
}

// ---- control routes (/_sim/shops/:shop/flow/...)

export function flowControlRoutes(state: SimState): ControlRoute[] {
  const shop = (c: Ctx) => state.getShop(decodeURIComponent(c.params[0]!), false);
  const call = (c: Ctx): FlowCall => ({ appUrl: state.settings.appUrl, apiSecret: state.apiSecret, shop: shop(c) });
  return [
    ['GET', /^\/shops\/([^/]+)\/flow\/triggers$/, (c) => flowState(shop(c)), 'Flow triggers the app sent: received (valid) and refused (with the problems)'],
    ['POST', /^\/shops\/([^/]+)\/flow\/actions$/, (c) => fireFlowAction(call(c), c.body),
      'a Flow action run signed as Shopify signs it {handle, orderId, actionRunId?, secret?, rawBody?} → {actionRunId, status, body}'],
    ['POST', /^\/shops\/([^/]+)\/flow\/lifecycle$/, (c) => {
      if (typeof c.body.trigger !== 'string' || typeof c.body.enabled !== 'boolean') throw new HttpError(400, 'trigger (a trigger handle) and enabled (true|false) are required');
      return sendFlowLifecycle(call(c), c.body);
    }, "Flow's trigger lifecycle callback {trigger, enabled, timestamp?, secret?} → {status, body}"],
  ];
}

export const FLOW_CONTROL_SUMMARY =
  'POST /_sim/shops/:shop/flow/lifecycle {trigger, enabled}   POST /_sim/shops/:shop/flow/actions {handle, orderId, actionRunId?}   GET /_sim/shops/:shop/flow/triggers';
