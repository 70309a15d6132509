// What Flow sends us, checked (pure; test/unit/flow-requests.test.ts): the
// action request (shopify.dev "Flow action endpoints") and the trigger
// lifecycle callback ("Track Flow lifecycle events"). A problem names the
// field. Also the lifecycle rules' quick answer for an action, before its job.
import { allowedActions, decide, factsOf, type CurrentRow } from '../lifecycle/machine.ts';
import { FLOW_ACTION_INFO, type FlowActionInfo } from './catalogue.ts';

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;
const ORDER_ID = /^(?:gid:\/\/shopify\/Order\/)?(\d{1,20})$/;

export type Parsed<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

const fail = (field: string, message: string) => ({ ok: false as const, field, message });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ActionRequest {
  shop: string;
  actionRunId: string;
  action: FlowActionInfo;
  /** Shopify's numeric order id, as text. */
  orderId: string;
}

export function parseActionRequest(body: unknown): Parsed<ActionRequest> {
  if (!isObject(body)) return fail('(body)', 'expected a JSON object');
  const shop = typeof body.shopify_domain === 'string' ? body.shopify_domain.trim().toLowerCase() : '';
  if (!SHOP_DOMAIN.test(shop)) return fail('shopify_domain', 'expected a *.myshopify.com domain');
  const runId = body.action_run_id;
  if (typeof runId !== 'string' || !/^[\w.:-]{1,200}$/.test(runId)) return fail('action_run_id', 'expected the action run id (1-200 letters, digits, - _ . :)');
  const action = FLOW_ACTION_INFO.find((a) => a.handle === body.handle);
  if (!action) return fail('handle', `expected one of ${FLOW_ACTION_INFO.map((a) => a.handle).join(', ')}`);
  if (!isObject(body.properties)) return fail('properties', 'expected an object with order_id');
  const raw = body.properties.order_id;
  const m = typeof raw === 'string' || typeof raw === 'number' ? ORDER_ID.exec(String(raw)) : null;
  if (!m) return fail('properties.order_id', 'expected a Shopify order id or its GID');
  return { ok: true, value: { shop, actionRunId: runId, action, orderId: m[1]! } };
}

export interface LifecycleCallback {
  shop: string;
  definitionId: string;
  enabled: boolean;
  at: Date;
}

export function parseLifecycleCallback(body: unknown): Parsed<LifecycleCallback> {
  if (!isObject(body)) return fail('(body)', 'expected a JSON object');
  const definitionId = body.flow_trigger_definition_id;
  if (typeof definitionId !== 'string' || !definitionId.trim() || definitionId.length > 255) return fail('flow_trigger_definition_id', 'expected the trigger\'s identifier');
  if (typeof body.has_enabled_flow !== 'boolean') return fail('has_enabled_flow', 'expected true or false');
  const shop = typeof body.shopify_domain === 'string' ? body.shopify_domain.trim().toLowerCase() : '';
  if (!SHOP_DOMAIN.test(shop)) return fail('shopify_domain', 'expected a *.myshopify.com domain');
  const at = typeof body.timestamp === 'string' ? new Date(body.timestamp) : null;
  if (!at || Number.isNaN(at.getTime())) return fail('timestamp', 'expected an ISO 8601 time');
  return { ok: true, value: { shop, definitionId: definitionId.trim(), enabled: body.has_enabled_flow, at } };
}

export type Refusal = { status: 404 | 409; code: 'not_found' | 'not_allowed'; message: string };

/**
 * The lifecycle table's answer for a Flow action, on the delivery as it is now (null: the app holds
 * none for the order). The same rules as the admin buttons: "Dispatch" is the order block's Dispatch
 * now (a skipped order is dispatched, anything else retried); the job's service call decides again.
 */
export function refusalFor(action: FlowActionInfo['action'], d: CurrentRow | null): Refusal | null {
  if (!d) {
    if (action === 'dispatch') return null; // fetched from Shopify and recorded by the job
    return { status: 404, code: 'not_found', message: 'Same-Day Dispatch has no delivery for this order to re-dispatch; use "Dispatch this order with Same-Day Dispatch" instead' };
  }
  const f = factsOf(d);
  const allowed = allowedActions(f);
  if (action === 'redispatch') return allowed.includes('redispatch') ? null : { status: 409, code: 'not_allowed', message: (decide(f, 'redispatch') as { message: string }).message };
  if (allowed.includes('dispatch') || allowed.includes('retry')) return null;
  return { status: 409, code: 'not_allowed', message: (decide(f, 'retry') as { message: string }).message };
}
