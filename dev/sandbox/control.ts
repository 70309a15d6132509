// Typed client for the sandbox courier's control API (/_sandbox/...). Used by the contract
// tests and the demo. No auth: the control API is for a local sandbox only.
import { request } from 'undici';
import type {
  AdvanceRequest, FaultSpec, RequestLogEntry, SandboxAppConfig, SandboxOrderSnapshot, SandboxSettings, SandboxStats, WebhookLogEntry,
} from './types.ts';

export type MaskedApp = Omit<SandboxAppConfig, 'webhook'> & { webhook: { url: string; secret: string } | null };

export class SandboxControlError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'SandboxControlError';
    this.status = status;
  }
}

export class SandboxControl {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.baseUrl}/_sandbox${path}`, {
      method: method as 'GET',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw new SandboxControlError(res.statusCode, `sandbox control ${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  health() {
    return this.#call<{ ok: boolean; url: string }>('GET', '/health');
  }
  state() {
    return this.#call<{ settings: SandboxSettings; apps: MaskedApp[]; stats: SandboxStats; faults: FaultSpec[]; heldWebhooks: number; clockOffsetMs: number; orders: number }>('GET', '/state');
  }
  /** Orders, tokens, idempotency keys, logs, faults, clock; settings and apps back to the start options. */
  reset() {
    return this.#call<{ ok: true }>('POST', '/reset');
  }

  settings() {
    return this.#call<SandboxSettings>('GET', '/settings');
  }
  updateSettings(patch: Partial<SandboxSettings>) {
    return this.#call<SandboxSettings>('PATCH', '/settings', patch);
  }

  apps() {
    return this.#call<MaskedApp[]>('GET', '/apps');
  }
  /** Creates or merges an app (missing fields of a new app come from the default app). */
  putApp(clientId: string, app: Partial<Omit<SandboxAppConfig, 'clientId'>>) {
    return this.#call<MaskedApp>('PUT', `/apps/${encodeURIComponent(clientId)}`, app);
  }
  deleteApp(clientId: string) {
    return this.#call<{ ok: true }>('DELETE', `/apps/${encodeURIComponent(clientId)}`);
  }
  setWebhook(clientId: string, webhook: { url: string; secret: string } | null) {
    return this.putApp(clientId, { webhook });
  }
  /** Invalidates issued tokens (all, or one app's): the next API call gets 401. */
  revokeTokens(clientId?: string) {
    return this.#call<{ revoked: number }>('POST', '/tokens/revoke', clientId === undefined ? {} : { clientId });
  }

  addFault(fault: FaultSpec | FaultSpec[]) {
    return this.#call<{ added: number; faults: FaultSpec[] }>('POST', '/faults', fault);
  }
  faults() {
    return this.#call<(FaultSpec & { remaining: number })[]>('GET', '/faults');
  }
  clearFaults() {
    return this.#call<{ ok: true }>('DELETE', '/faults');
  }

  orders(filter: { reference?: string } = {}) {
    const q = filter.reference === undefined ? '' : `?reference=${encodeURIComponent(filter.reference)}`;
    return this.#call<SandboxOrderSnapshot[]>('GET', `/orders${q}`);
  }
  /** By order id, delivery id or dispatch id. */
  order(id: string) {
    return this.#call<SandboxOrderSnapshot>('GET', `/orders/${encodeURIComponent(id)}`);
  }
  advance(id: string, req: AdvanceRequest = {}) {
    return this.#call<{ emitted: string[]; order: SandboxOrderSnapshot }>('POST', `/orders/${encodeURIComponent(id)}/advance`, req);
  }

  stats() {
    return this.#call<SandboxStats>('GET', '/stats');
  }
  /** How many orders were created for a reference ("never twice"). */
  async ordersCreatedFor(reference: string): Promise<number> {
    const r = await this.#call<{ ordersCreated: number }>('GET', `/references/${encodeURIComponent(reference)}`);
    return r.ordersCreated;
  }
  requests(filter: { route?: RequestLogEntry['route'] } = {}) {
    const q = filter.route === undefined ? '' : `?route=${encodeURIComponent(filter.route)}`;
    return this.#call<RequestLogEntry[]>('GET', `/requests${q}`);
  }

  webhookLog() {
    return this.#call<WebhookLogEntry[]>('GET', '/webhooks');
  }
  /** Sends held (out-of-order) webhooks, newest first. */
  flushWebhooks() {
    return this.#call<{ sent: number }>('POST', '/webhooks/flush');
  }

  /** Moves the sandbox clock (token expiry, timestamps, webhook signatures). */
  advanceClock(ms: number) {
    return this.#call<{ offsetMs: number; now: string }>('POST', '/clock', { advanceMs: ms });
  }
}
