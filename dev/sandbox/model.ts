// The sandbox's data: defaults, the order record, and pure helpers on them (views, masking).
import { formatCents } from './validate.ts';
import type { Outcome, SandboxAppConfig, SandboxOrderSnapshot, SandboxSettings, SandboxStats } from './types.ts';

export const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** Scopes the sandbox knows. orders:create and webhooks:manage are the spec's; the other two are our choice. */
export const SANDBOX_SCOPES = ['orders:create', 'orders:read', 'quotes:create', 'webhooks:manage'];

export const DEFAULT_SANDBOX_APP: SandboxAppConfig = {
  clientId: 'sandbox-client-id',
  clientSecret: 'sandbox-client-secret',
  scopes: [...SANDBOX_SCOPES],
  storeIds: ['store_sandbox_001', 'store_sandbox_002'],
  webhook: null,
};

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  webhooksEnabled: true,
  duplicateSends: false,
  outOfOrder: false,
  outOfOrderBatchSize: 3,
  badSignatures: false,
  stepIntervalMs: 0,
  deliveryIdMode: 'distinct',
  acceptedStep: true,
  defaultOutcome: 'delivered',
  latencyMs: 0,
  eventExtras: false,
  webhookRetryDelaysMs: [1_000, 5_000, 30_000, 120_000, 600_000],
  webhookTimeoutMs: 5_000,
  tokenTtlSec: 3_600,
  createHoldMs: 0,
  dedupeInFlight: true,
  markTestEvents: true,
};

export interface Order {
  id: string;
  clientId: string;
  reference: string;
  status: string;
  priceCents: number;
  currency: string;
  dispatchId: string;
  deliveryId: string;
  deliveryStatus: string;
  outcome: Outcome;
  idempotencyKey: string;
  createdAtMs: number;
  updatedAtMs: number;
  history: { status: string; at: string; eventId: string }[];
}

export function orderEnvelope(o: Order) {
  return {
    order: { id: o.id, reference: o.reference, status: o.status, deliveryPrice: rawJSON(formatCents(o.priceCents)), currency: o.currency, createdAt: new Date(o.createdAtMs).toISOString() },
    dispatch: { id: o.dispatchId },
    delivery: { id: o.deliveryId, status: o.deliveryStatus, updatedAt: new Date(o.updatedAtMs).toISOString() },
  };
}

export function snapshot(o: Order): SandboxOrderSnapshot {
  return {
    id: o.id, clientId: o.clientId, reference: o.reference, status: o.status, deliveryPrice: formatCents(o.priceCents), currency: o.currency,
    dispatchId: o.dispatchId, deliveryId: o.deliveryId, deliveryStatus: o.deliveryStatus, outcome: o.outcome, idempotencyKey: o.idempotencyKey,
    createdAt: new Date(o.createdAtMs).toISOString(), history: o.history.map((h) => ({ ...h })),
  };
}

export function emptyStats(): SandboxStats {
  return { tokenRequests: 0, tokensIssued: 0, createRequests: 0, ordersCreated: 0, idempotentReplays: 0, idempotencyConflicts: 0, ordersByReference: {} };
}

export function cloneApp(a: SandboxAppConfig): SandboxAppConfig {
  return { ...a, scopes: [...a.scopes], storeIds: [...a.storeIds], webhook: a.webhook ? { ...a.webhook } : null };
}

export const maskApp = (a: SandboxAppConfig) => ({
  ...a,
  clientSecret: mask(a.clientSecret),
  webhook: a.webhook ? { url: a.webhook.url, secret: mask(a.webhook.secret) } : null,
});

function mask(s: string): string {
  return s.length > 8 ? `••••${s.slice(-4)}` : '••••';
}

export function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
