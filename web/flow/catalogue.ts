// The Shopify Flow triggers and actions the app offers, as the merchant sees
// them in Flow: one entry per extension in extensions/flow-* (handle, name,
// field keys). test/unit/flow-extensions.test.ts holds this list and the
// extensions' toml files to each other. Pure data.
import type { FlowTrigger } from '../lifecycle/machine.ts';

export interface FlowTriggerInfo {
  handle: FlowTrigger;
  name: string;
  description: string;
  /** The payload's keys besides order_id (the extension's [[settings.fields]] keys). */
  fields: readonly string[];
}

export const FLOW_TRIGGER_INFO: readonly FlowTriggerInfo[] = [
  {
    handle: 'delivery-booked',
    name: 'Same-day delivery booked',
    description: 'The courier accepted the order\'s same-day delivery: price, job id and pickup location.',
    fields: ['Delivery price', 'Currency', 'Job id', 'Pickup location id'],
  },
  {
    handle: 'delivery-needs-attention',
    name: 'Same-day delivery needs attention',
    description: 'The order\'s same-day delivery stopped: the reason, and what you can do in the app.',
    fields: ['Reason code', 'Reason', 'What you can do'],
  },
  {
    handle: 'delivery-courier-failed',
    name: 'Same-day delivery failed by courier',
    description: 'The courier reported that the order\'s same-day delivery failed or was cancelled.',
    fields: ['Courier status', 'Job id'],
  },
  {
    handle: 'delivery-delivered',
    name: 'Same-day order delivered',
    description: 'The courier delivered the order: when, and how long it took from payment.',
    fields: ['Delivered at', 'Minutes from paid to delivered', 'Job id'],
  },
];

export const FLOW_ACTIONS = ['dispatch-order', 'redispatch-order'] as const;
export type FlowActionHandle = (typeof FLOW_ACTIONS)[number];

export interface FlowActionInfo {
  handle: FlowActionHandle;
  name: string;
  description: string;
  /** The merchant action it performs (web/lifecycle/machine.ts MerchantAction). */
  action: 'dispatch' | 'redispatch';
}

export const FLOW_ACTION_INFO: readonly FlowActionInfo[] = [
  {
    handle: 'dispatch-order',
    name: 'Dispatch this order with Same-Day Dispatch',
    description: 'Books the order\'s same-day courier delivery now, as Dispatch now does in the app.',
    action: 'dispatch',
  },
  {
    handle: 'redispatch-order',
    name: 'Re-dispatch this order',
    description: 'Books a new same-day delivery for an order whose delivery failed, needs attention or was skipped.',
    action: 'redispatch',
  },
];

/** The runtime URL of both actions and the lifecycle callback's URL (relative to application_url). */
export const FLOW_ACTION_PATH = '/flow/actions';
export const FLOW_LIFECYCLE_PATH = '/flow/lifecycle';

/** Shopify Flow in the merchant's admin (an App Bridge admin link). */
export const FLOW_ADMIN_URL = 'shopify://admin/apps/flow';

/**
 * The trigger a lifecycle callback's flow_trigger_definition_id names. Flow documents it only as
 * "the unique identifier for your trigger"; we accept our handle or our trigger's name. Null when
 * neither matches (the caller then treats the shop as using every trigger, rather than never sending).
 */
export function triggerOfDefinition(definitionId: string): FlowTrigger | null {
  const id = definitionId.trim().toLowerCase();
  return FLOW_TRIGGER_INFO.find((t) => t.handle === id || t.name.toLowerCase() === id)?.handle ?? null;
}
