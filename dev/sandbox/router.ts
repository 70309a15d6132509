// The sandbox courier's HTTP side: the Delivery Orders API routes and the /_sandbox control API
// as an Express router. HTTP in and out only (bodies, headers, faults that drop or delay the
// answer); what a request does is SandboxState's (state.ts).
import { createHash } from 'node:crypto';
import type http from 'node:http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../../web/ops/logger.ts';
import { snapshot, stripUndefined } from './model.ts';
import { errorReply, newId, type ApiRoute, type Reply, type SandboxState } from './state.ts';
import type { WebhookSender } from './webhooks.ts';
import type { FaultSpec } from './types.ts';

const MAX_BODY = 1024 * 1024;

export interface SandboxRouterDeps {
  state: SandboxState;
  sender: WebhookSender;
  /** The sandbox's own URL (GET /_sandbox/health). */
  url: () => string;
  /** Settings changed the step interval: restart the progression timer. */
  reschedule: () => void;
  log?: Logger | undefined;
}

export function sandboxRouter(deps: SandboxRouterDeps): Router {
  const router = express.Router();
  router.use((req, res, next) => {
    const url = new URL(req.originalUrl, 'http://sandbox.invalid');
    const isControl = url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/');
    const work = isControl ? handleControl(deps, req, url).then((reply) => send(res, reply)) : handleApi(deps, req, res, url);
    work.catch(next);
  });
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    deps.log?.error({ err }, 'sandbox handler failed');
    if (!res.headersSent) send(res, { status: 500, body: JSON.stringify({ error: { code: 'internal_error', message: 'sandbox internal error' } }) });
    else res.destroy();
  });
  return router;
}

function routeOf(method: string, path: string): { route: ApiRoute; id?: string } | 'method' | undefined {
  if (path === '/oauth/token') return method === 'POST' ? { route: 'token' } : 'method';
  if (path === '/v1/orders') return method === 'POST' ? { route: 'create' } : method === 'GET' ? { route: 'list' } : 'method';
  const m = /^\/v1\/orders\/([^/]+)$/.exec(path);
  if (m) return method === 'GET' ? { route: 'get', id: decodeURIComponent(m[1]!) } : 'method';
  if (path === '/v1/pricing/quote') return method === 'POST' ? { route: 'quote' } : 'method';
  if (path === '/v1/webhooks/test') return method === 'POST' ? { route: 'webhook-test' } : 'method';
  return undefined;
}

async function handleApi({ state, sender, log }: SandboxRouterDeps, req: Request, res: Response, url: URL): Promise<void> {
  const requestId = newId('req_');
  const method = req.method ?? 'GET';
  const r = routeOf(method, url.pathname);
  const entry = state.logRequest({ method, path: url.pathname + url.search, route: typeof r === 'object' ? r.route : 'unknown', status: 0 });
  const key = req.headers['idempotency-key'];
  if (typeof key === 'string') entry.idempotencyKey = key;
  const arrived = performance.now();
  res.on('finish', () => {
    entry.status = res.statusCode;
    entry.ms = Math.round((performance.now() - arrived) * 10) / 10;
  });

  const bytes = await readBody(req);
  if (bytes !== null && method === 'POST') entry.bodySha256 = createHash('sha256').update(bytes).digest('hex');
  if (bytes === null) return send(res, errorReply(413, requestId, 'payload_too_large', 'The request body is too large'), requestId);
  const raw = bytes.toString('utf8');
  if (r === undefined) return send(res, errorReply(404, requestId, 'not_found', `No route ${method} ${url.pathname}`), requestId);
  if (r === 'method') return send(res, errorReply(405, requestId, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`), requestId);

  // Counted on arrival, whatever happens next (faults, auth, validation).
  if (r.route === 'token') state.stats.tokenRequests++;
  if (r.route === 'create') state.stats.createRequests++;
  const latency = state.settings.latencyMs + (state.takeFault(r.route, ['latency'])?.latencyMs ?? 0);
  if (latency > 0) await sleep(latency);
  const fault = state.takeFault(r.route, ['status', 'drop', 'drop_after_commit', 'delay_after_commit']);
  if (fault?.type === 'drop') return drop(req, res);
  if (fault?.type === 'status') {
    const status = fault.status ?? 503;
    const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {};
    const reply: Reply = fault.body !== undefined ? { status, body: fault.body, headers } : errorReply(status, requestId, status === 429 ? 'rate_limited' : 'service_unavailable', status === 429 ? 'Too many requests' : 'The service is temporarily unavailable', {}, headers);
    return send(res, reply, requestId);
  }

  let reply: Reply;
  if (r.route === 'token') reply = state.issueToken(req.headers['content-type'] ?? '', raw);
  else {
    const auth = state.authenticate(req.headers.authorization, r.route, requestId);
    if ('reply' in auth) reply = auth.reply;
    else {
      entry.clientId = auth.app.clientId;
      if (r.route === 'create') {
        const keyHeader = req.headers['idempotency-key'];
        reply = state.createOrder(auth.app, Array.isArray(keyHeader) ? keyHeader[0] : keyHeader, raw, requestId);
        if (reply.status === 201 && !reply.headers?.['idempotent-replayed']) {
          const { order } = JSON.parse(reply.body) as { order: { id: string; reference: string } };
          log?.info({ orderId: order.id, reference: order.reference }, 'sandbox order created');
        }
        if (state.settings.createHoldMs > 0 && reply.status === 201) await sleep(state.settings.createHoldMs);
        state.releaseHeld(reply);
      } else if (r.route === 'quote') reply = state.quote(auth.app, raw, requestId);
      else if (r.route === 'get') reply = state.getOrder(auth.app, r.id!, requestId);
      else if (r.route === 'list') reply = state.listOrders(auth.app, url.searchParams.get('reference'), requestId);
      else {
        const t = state.webhookTest(auth.app, requestId);
        reply = 'reply' in t ? t.reply : t.answer(await sender.sendOnce(t.event));
      }
    }
  }
  // The work is done (an order may exist); the caller never hears about it.
  if (fault?.type === 'drop_after_commit') return drop(req, res);
  // The work is done; the answer is late (a window to kill the caller in).
  if (fault?.type === 'delay_after_commit') await sleep(fault.latencyMs ?? 5_000);
  send(res, reply, requestId);
}

const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });

async function handleControl({ state, sender, url: selfUrl, reschedule }: SandboxRouterDeps, req: Request, url: URL): Promise<Reply> {
  const method = req.method ?? 'GET';
  const path = url.pathname.replace(/\/+$/, '');
  const raw = (await readBody(req))?.toString('utf8') ?? '';
  let body: unknown = {};
  if (raw.trim()) {
    try {
      body = JSON.parse(raw);
    } catch {
      return json(400, { error: { code: 'invalid_json', message: 'body is not JSON' } });
    }
  }
  const bad = (e: z.ZodError) => json(400, { error: { code: 'invalid_request', message: e.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') } });
  const answer = (r: { status: number; value: unknown }) => json(r.status, r.value);
  const seg = path.split('/').slice(2).map(decodeURIComponent); // after /_sandbox
  const [a, b, c] = seg;

  if (method === 'GET' && (a === undefined || a === 'health')) return json(200, { ok: true, url: selfUrl() });
  if (a === 'state' && method === 'GET') return json(200, state.view(sender.heldCount));
  if (a === 'reset' && method === 'POST') {
    state.reset();
    sender.reset();
    reschedule();
    return json(200, { ok: true });
  }
  if (a === 'settings' && b === undefined) {
    if (method === 'GET') return json(200, state.settings);
    if (method === 'PATCH' || method === 'PUT' || method === 'POST') {
      const p = SettingsPatch.safeParse(body);
      if (!p.success) return bad(p.error);
      const settings = state.patchSettings(p.data);
      if (p.data.stepIntervalMs !== undefined) reschedule();
      if (p.data.outOfOrder === false) sender.flush();
      return json(200, settings);
    }
  }
  if (a === 'apps') {
    if (b === undefined && method === 'GET') return json(200, state.maskedApps());
    if (b !== undefined && c === undefined && (method === 'PUT' || method === 'PATCH' || method === 'POST')) {
      const p = AppPatch.safeParse(body);
      if (!p.success) return bad(p.error);
      return answer(state.putApp(b, p.data));
    }
    if (b !== undefined && c === undefined && method === 'DELETE') return json(state.apps.delete(b) ? 200 : 404, { ok: true });
  }
  if (a === 'tokens' && b === 'revoke' && method === 'POST') return json(200, { revoked: state.revokeTokens((body as { clientId?: unknown }).clientId) });
  if (a === 'faults' && b === undefined) {
    if (method === 'GET') return json(200, state.faults);
    if (method === 'DELETE') {
      state.faults = [];
      return json(200, { ok: true });
    }
    if (method === 'POST') {
      // All checked before any is added: a bad item leaves the faults as they were.
      const added: FaultSpec[] = [];
      for (const item of Array.isArray(body) ? body : [body]) {
        const p = FaultInput.safeParse(item);
        if (!p.success) return bad(p.error);
        added.push(p.data as FaultSpec);
      }
      return answer(state.addFaults(added));
    }
  }
  if (a === 'orders') {
    if (b === undefined && method === 'GET') return json(200, state.snapshots(url.searchParams.get('reference')));
    const o = b === undefined ? undefined : state.findOrder(b);
    if (b !== undefined && !o) return json(404, { error: { code: 'not_found', message: `No order ${b}` } });
    if (o && c === undefined && method === 'GET') return json(200, snapshot(o));
    if (o && c === 'advance' && method === 'POST') {
      const p = AdvanceInput.safeParse(body);
      if (!p.success) return bad(p.error);
      return answer(state.advance(o, stripUndefined(p.data)));
    }
  }
  if (a === 'stats' && method === 'GET') return json(200, state.stats);
  if (a === 'references' && b !== undefined && method === 'GET') return json(200, state.reference(b));
  if (a === 'requests' && method === 'GET') return json(200, state.requests(url.searchParams.get('route')));
  if (a === 'webhooks' && b === undefined && method === 'GET') return json(200, sender.log);
  if (a === 'webhooks' && b === 'flush' && method === 'POST') return json(200, { sent: sender.flush() });
  if (a === 'clock' && method === 'POST') return answer(state.advanceClock((body as { advanceMs?: unknown }).advanceMs));
  return json(404, { error: { code: 'not_found', message: `No control route ${method} ${url.pathname}` } });
}

// ---- control API input schemas
const Outcomes = z.enum(['delivered', 'failed', 'returned', 'cancelled']);
const SettingsPatch = z.strictObject({
  webhooksEnabled: z.boolean().optional(),
  duplicateSends: z.boolean().optional(),
  outOfOrder: z.boolean().optional(),
  outOfOrderBatchSize: z.number().int().min(1).optional(),
  badSignatures: z.boolean().optional(),
  stepIntervalMs: z.number().int().min(0).optional(),
  deliveryIdMode: z.enum(['distinct', 'order', 'dispatch']).optional(),
  acceptedStep: z.boolean().optional(),
  defaultOutcome: Outcomes.optional(),
  latencyMs: z.number().int().min(0).optional(),
  eventExtras: z.boolean().optional(),
  webhookRetryDelaysMs: z.array(z.number().int().min(0)).optional(),
  webhookTimeoutMs: z.number().int().min(1).optional(),
  tokenTtlSec: z.number().int().min(1).optional(),
  createHoldMs: z.number().int().min(0).optional(),
  dedupeInFlight: z.boolean().optional(),
  markTestEvents: z.boolean().optional(),
});
const AppPatch = z.strictObject({
  clientSecret: z.string().min(1).optional(),
  scopes: z.array(z.string()).optional(),
  storeIds: z.array(z.string()).optional(),
  webhook: z.object({ url: z.url(), secret: z.string().min(1) }).nullable().optional(),
  tokenTtlSec: z.number().int().min(1).optional(),
  omitExpiresIn: z.boolean().optional(),
});
const FaultInput = z.strictObject({
  route: z.enum(['token', 'create', 'get', 'list', 'quote', 'webhook-test', 'any']),
  type: z.enum(['status', 'drop', 'drop_after_commit', 'delay_after_commit', 'latency']),
  count: z.number().int().min(1).optional(),
  status: z.number().int().min(100).max(599).optional(),
  retryAfter: z.string().optional(),
  body: z.string().optional(),
  latencyMs: z.number().int().min(0).optional(),
});
const AdvanceInput = z.strictObject({ to: z.string().optional(), steps: z.number().int().min(1).max(20).optional(), outcome: Outcomes.optional() });

// ---- small helpers
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function send(res: http.ServerResponse, reply: Reply, requestId?: string): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
  if (requestId) headers['x-request-id'] = requestId;
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

function drop(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.destroy();
  req.socket.destroy();
}

function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooBig ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
