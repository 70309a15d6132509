// The admin JSON API (/api/*), used by the embedded pages (web/frontend) and
// the order-details block (extensions/order-delivery-block).
//
// Every handler works on res.locals.shop, the shop named by the verified
// session token, and every query is filtered by it: another shop's delivery is
// simply not found (404). Merchant actions go through the same services as the
// operator CLI (web/dispatch/service.ts, web/settings/store.ts). Secrets are
// write-only: responses carry `{ set, last4 }`, never a value.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { buildRequest } from '../dispatch/dispatcher.ts';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { MissingCredentialsError } from '../context.ts';
import { DeliveryApiError, serializeCreateOrder } from '../delivery/index.ts';
import { checkCourierUrl, courierUrlPolicy } from '../delivery/address-policy.ts';
import { normalisePhone } from '../dispatch/mapping.ts';
import { toCents } from '../dispatch/money.ts';
import { OverridesSchema, parseOrderSnapshot, type OrderSnapshot, type Overrides } from '../dispatch/order.ts';
import { checkDeliveryNow, CheckNowError } from '../fulfillment/reconcile.ts';
import { attachEvent, countUnmatched, dismissEvent, listUnmatched, resolveDuplicates } from '../fulfillment/unmatched.ts';
import { checkFix } from '../dispatch/fix.ts';
import { ActionError, dispatchNow, fixAndRetry, problemsMessage, recordAndDispatch, redispatch, retryDelivery } from '../dispatch/service.ts';
import { DELIVERY_STATUSES } from '../lifecycle/machine.ts';
import { sendTestWebhook, type TestWebhookResult } from '../fulfillment/test-webhook.ts';
import { DecryptionError } from '../security/crypto.ts';
import { isStorable, storableDate } from '../security/text.ts';
import { DataRequestNotFound, exportDataRequest, listDataRequests } from '../privacy/data-requests.ts';
import {
  applySettingsPatch,
  ENVIRONMENTS,
  fieldErrors,
  parseStoredSettings,
  SettingsValidationError,
  type EnvironmentName,
  type FieldErrors,
} from '../settings/schema.ts';
import {
  courierAccess,
  courierAccessFromRow,
  ensureEnvironments,
  ensureShop,
  EnvironmentPatchSchema,
  environmentView,
  findShop,
  requireShop,
  ShopNotFoundError,
  updateEnvironment,
  webhookUrl,
  type CourierAccess,
  updateSettings,
} from '../settings/store.ts';
import { ShopifyAdminError } from '../shopify/admin-api.ts';
import type { Shopify } from '../shopify/app.ts';
import { fetchOrderAsPayload, numericId, SHOP_LOCATIONS } from '../shopify/operations.ts';
import { cors, requireSessionToken, shopOf } from './auth.ts';
import { environmentChecks, liveReadiness, onboarding, type EnvironmentChecks } from './onboarding.ts';
import { connectionFingerprint, readAdminState, recordCheck, webhookFingerprint, type AdminState } from './state.ts';
import { deliverySummary, eventView, parseStoredJson } from './views.ts';

/** An API answer other than 200, with field-level errors when a form caused it. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors?: FieldErrors;
  constructor(status: number, message: string, errors?: FieldErrors) {
    super(message);
    this.status = status;
    if (errors) this.errors = errors;
  }
}

export function adminApi(deps: { ctx: AppContext; shopify: Shopify }): Router {
  const { ctx } = deps;
  const r = express.Router();
  r.use(cors());
  r.use(...requireSessionToken(deps.shopify));
  r.use(express.json({ limit: '64kb' }));

  // --- settings, credentials, onboarding ---------------------------------------------------

  r.get('/settings', async (_req, res) => {
    res.json(await settingsPayload(ctx, shopOf(res)));
  });

  r.put('/settings', async (req, res) => {
    await saveAll(ctx, shopOf(res), req.body);
    res.json(await settingsPayload(ctx, shopOf(res)));
  });

  r.get('/onboarding', async (_req, res) => {
    res.json((await settingsPayload(ctx, shopOf(res))).onboarding);
  });

  r.post('/environments/:env/test-connection', async (req, res) => {
    const env = envParam(req);
    const domain = shopOf(res);
    const shop = await requireShop(ctx.db, domain);
    const access = await readAccess(ctx, shop.id, env);
    let result: { ok: boolean; message: string; scope?: string | null; expiresAt?: string };
    try {
      const t = await ctx.courier.for(domain, access).fetchToken();
      result = {
        ok: true,
        message: `Connected: the ${env} courier issued a token${t.scope ? ` with scopes ${t.scope}` : ''}.`,
        scope: t.scope ?? null,
        expiresAt: new Date(t.expiresAt).toISOString(),
      };
    } catch (e) {
      if (!(e instanceof MissingCredentialsError || e instanceof DeliveryApiError)) throw e;
      result = { ok: false, message: e.message };
    }
    const at = new Date(ctx.now()).toISOString();
    await recordCheck(ctx.db, access.environmentId, 'connection', { ok: result.ok, at, message: result.message, fingerprint: connectionFingerprint(access) });
    res.locals.log?.info({ environment: env, ok: result.ok }, 'courier connection tested');
    res.json({ environment: env, ...result, testedAt: at });
  });

  r.post('/environments/:env/test-webhook', async (req, res) => {
    const env = envParam(req);
    const domain = shopOf(res);
    const shop = await requireShop(ctx.db, domain);
    const access = await readAccess(ctx, shop.id, env);
    let result: TestWebhookResult;
    try {
      result = await sendTestWebhook(ctx, domain, env);
    } catch (e) {
      if (!(e instanceof MissingCredentialsError || e instanceof DeliveryApiError)) throw e;
      result = { sent: false, received: false, verified: false, message: e.message };
    }
    const at = new Date(ctx.now()).toISOString();
    const ok = result.sent && result.received && result.verified;
    await recordCheck(ctx.db, access.environmentId, 'webhookTest', { ok, at, message: result.message, fingerprint: webhookFingerprint(access), sent: result.sent, received: result.received, verified: result.verified });
    res.locals.log?.info({ environment: env, ...result }, 'test webhook');
    res.json({ environment: env, ok, ...result, testedAt: at });
  });

  r.get('/locations', async (_req, res) => {
    const data = await ctx.admin.request(shopOf(res), SHOP_LOCATIONS, {});
    const nodes: any[] = data?.locations?.nodes ?? [];
    res.json({
      locations: nodes.map((l) => ({
        id: numericId(l.id),
        gid: l.id,
        name: l.name,
        isActive: l.isActive ?? true,
        fulfillsOnlineOrders: l.fulfillsOnlineOrders ?? true,
        city: l.address?.city ?? null,
        countryCode: l.address?.countryCode ?? null,
      })),
    });
  });

  // --- deliveries ------------------------------------------------------------------------------

  r.get('/deliveries', async (req, res) => {
    res.json(await listDeliveries(ctx, shopOf(res), req.query));
  });

  r.get('/deliveries/:id', async (req, res) => {
    res.json({ delivery: await deliveryDetail(ctx, shopOf(res), String(req.params.id)) });
  });

  r.get('/orders/:orderId/delivery', async (req, res) => {
    const domain = shopOf(res);
    const orderId = orderIdParam(req);
    const shop = await findShop(ctx.db, domain);
    const d = shop ? await ctx.db.delivery.findFirst({ where: { shopId: shop.id, shopifyOrderId: orderId } }) : null;
    res.json({ orderId, delivery: d ? await deliveryDetail(ctx, domain, d.id) : null });
  });

  const act = (name: string, fn: (tx: Tx, domain: string, id: string) => Promise<unknown>, done: string) =>
    r.post(`/deliveries/:id/${name}`, async (req, res) => {
      const domain = shopOf(res);
      const id = String(req.params.id);
      await ctx.db.$transaction((tx) => fn(tx, domain, id));
      ctx.queue.notify();
      res.locals.log?.info({ deliveryId: id, action: name }, 'merchant action');
      res.json({ message: done, delivery: await deliveryDetail(ctx, domain, id) });
    });

  act('dispatch', (tx, domain, id) => dispatchNow(tx, ctx.queue, domain, id), 'Queued for dispatch');
  act('retry', (tx, domain, id) => retryDelivery(tx, ctx.queue, domain, id), 'Queued again');
  act('redispatch', (tx, domain, id) => redispatch(tx, ctx.queue, domain, id), 'Queued for a new delivery');

  r.post('/deliveries/:id/check', async (req, res) => {
    const domain = shopOf(res);
    const id = String(req.params.id);
    const r = await checkDeliveryNow(ctx, domain, id);
    res.locals.log?.info({ deliveryId: id, action: 'check', result: r.result }, 'merchant action');
    const message = r.result === 'failed' ? 'The courier could not be read; see the log' : r.result === 'changed' ? `Courier status: ${r.courierStatus}` : 'No change at the courier';
    res.json({ message, result: r.result, delivery: await deliveryDetail(ctx, domain, id) });
  });

  r.post('/deliveries/:id/resolve', async (req, res) => {
    const domain = shopOf(res);
    const id = String(req.params.id);
    await resolveDuplicates(ctx, domain, id);
    res.locals.log?.info({ deliveryId: id, action: 'resolve' }, 'merchant action');
    res.json({ message: 'Marked resolved', delivery: await deliveryDetail(ctx, domain, id) });
  });

  // --- unmatched courier events ------------------------------------------------------------------

  r.get('/courier-events/unmatched', async (req, res) => {
    const limit = Number(req.query.limit ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new ApiError(400, 'limit must be a whole number from 1 to 500', { limit: 'must be 1 to 500' });
    res.json(await listUnmatched(ctx, shopOf(res), { limit }));
  });

  r.post('/courier-events/:id/attach', async (req, res) => {
    const deliveryId = typeof req.body?.deliveryId === 'string' ? req.body.deliveryId.trim() : '';
    if (!deliveryId) throw new ApiError(422, 'deliveryId is required', { deliveryId: 'required' });
    const r = await attachEvent(ctx, shopOf(res), String(req.params.id), deliveryId);
    ctx.queue.notify();
    res.locals.log?.info({ eventId: req.params.id, deliveryId, action: 'attach' }, 'merchant action');
    res.json({ message: `Attached; ${r.applied} event(s) applied`, ...r });
  });

  r.post('/courier-events/:id/dismiss', async (req, res) => {
    await dismissEvent(ctx, shopOf(res), String(req.params.id));
    res.locals.log?.info({ eventId: req.params.id, action: 'dismiss' }, 'merchant action');
    res.json({ message: 'Dismissed' });
  });

  r.post('/deliveries/:id/fix', async (req, res) => {
    const domain = shopOf(res);
    const id = String(req.params.id);
    const current = await ctx.db.delivery.findFirst({ where: { id, shop: { domain } } });
    if (!current) throw new ApiError(404, `delivery ${id} not found`);
    const fix = parseFix(req.body, snapshotOf(current.orderJson));
    await ctx.db.$transaction((tx) => fixAndRetry(tx, ctx.queue, domain, id, fix));
    ctx.queue.notify();
    res.locals.log?.info({ deliveryId: id, action: 'fix', fields: Object.keys(fix) }, 'merchant action');
    res.json({ message: 'Corrected and queued again', delivery: await deliveryDetail(ctx, domain, id) });
  });

  // Dispatch by Shopify order id: the order block's "Dispatch now", also for orders we never received.
  r.post('/orders/:orderId/dispatch', async (req, res) => {
    const domain = shopOf(res);
    const orderId = orderIdParam(req);
    const shop = await ensureShop(ctx.db, domain);
    const known = await ctx.db.delivery.findFirst({ where: { shopId: shop.id, shopifyOrderId: orderId } });
    let deliveryId: string;
    if (known) {
      await ctx.db.$transaction((tx) => dispatchNow(tx, ctx.queue, domain, known.id));
      deliveryId = known.id;
    } else {
      const payload = await fetchOrderAsPayload(ctx.admin, domain, orderId);
      if (!payload) throw new ApiError(404, `Shopify has no order ${orderId} on this shop`);
      deliveryId = await ctx.db.$transaction((tx) => recordAndDispatch(tx, ctx.queue, domain, payload));
    }
    ctx.queue.notify();
    res.locals.log?.info({ deliveryId, orderId, action: 'dispatch' }, 'merchant action');
    res.json({ message: 'Queued for dispatch', delivery: await deliveryDetail(ctx, domain, deliveryId) });
  });

  r.post('/deliveries/:id/quote', async (req, res) => {
    const domain = shopOf(res);
    const d = await ctx.db.delivery.findFirst({ where: { id: String(req.params.id), shop: { domain } } });
    if (!d) throw new ApiError(404, `delivery ${req.params.id} not found`);
    res.json(await quoteFor(ctx, domain, snapshotOf(d.orderJson), OverridesSchema.parse(JSON.parse(d.overridesJson || '{}'))));
  });

  r.post('/orders/:orderId/quote', async (req, res) => {
    const domain = shopOf(res);
    const orderId = orderIdParam(req);
    const shop = await findShop(ctx.db, domain);
    const d = shop ? await ctx.db.delivery.findFirst({ where: { shopId: shop.id, shopifyOrderId: orderId } }) : null;
    let order: OrderSnapshot;
    if (d) order = snapshotOf(d.orderJson);
    else {
      const payload = await fetchOrderAsPayload(ctx.admin, domain, orderId);
      if (!payload) throw new ApiError(404, `Shopify has no order ${orderId} on this shop`);
      order = parseOrderSnapshot(payload);
    }
    res.json(await quoteFor(ctx, domain, order, d ? OverridesSchema.parse(JSON.parse(d.overridesJson || '{}')) : {}));
  });

  // --- customers/data_request records -----------------------------------------------------------

  r.get('/data-requests', async (_req, res) => {
    res.json({ dataRequests: await listDataRequests(ctx.db, shopOf(res)) });
  });

  r.get('/data-requests/:id', async (req, res) => {
    const exported = await exportDataRequest(ctx.db, shopOf(res), String(req.params.id));
    res.setHeader('Content-Disposition', `attachment; filename="data-request-${exported.id}.json"`);
    res.json(exported);
  });

  r.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  r.use(apiErrors);
  return r;
}

// --- errors -------------------------------------------------------------------------------------

function apiErrors(err: unknown, _req: Request, res: Response, next: NextFunction) {
  if (res.headersSent) return next(err);
  if (err instanceof ApiError) return void res.status(err.status).json(err.errors ? { error: err.message, errors: err.errors } : { error: err.message });
  if (err instanceof SettingsValidationError) return void res.status(422).json({ error: 'Some settings are not valid', errors: err.fields });
  if (err instanceof ActionError || err instanceof CheckNowError) return void res.status(err.status).json({ error: err.message });
  if (err instanceof ShopNotFoundError || err instanceof DataRequestNotFound) return void res.status(404).json({ error: err.message });
  if (err instanceof MissingCredentialsError) return void res.status(422).json({ error: err.message });
  if (err instanceof DeliveryApiError) {
    const status = err.kind === 'transient' || err.kind === 'bad_response' ? 502 : 422;
    return void res.status(status).json({ error: `Courier: ${err.message}`, kind: err.kind });
  }
  if (err instanceof ShopifyAdminError) {
    res.locals.log?.warn({ err: err.message }, 'shopify admin request failed');
    return void res.status(502).json({ error: err.message });
  }
  if (err instanceof DecryptionError) return void res.status(409).json({ error: 'Stored courier secrets cannot be read with the current encryption key; enter them again' });
  next(err);
}

// --- parameters -----------------------------------------------------------------------------------

function envParam(req: Request): EnvironmentName {
  const env = String(req.params.env);
  if (!(ENVIRONMENTS as readonly string[]).includes(env)) throw new ApiError(404, `unknown environment '${env}': expected test or live`);
  return env as EnvironmentName;
}

/** A numeric Shopify order id, from the id or its GID. */
function orderIdParam(req: Request): string {
  // Express has decoded the path segment once already; a second decode would misread '%25'.
  const raw = String(req.params.orderId);
  const id = raw.replace(/^gid:\/\/shopify\/Order\//, '');
  if (!/^\d{1,20}$/.test(id)) throw new ApiError(400, `'${raw.slice(0, 64)}' is not a Shopify order id`, { orderId: 'expected a numeric Shopify order id or its GID' });
  return id;
}

function snapshotOf(orderJson: string): OrderSnapshot {
  return parseOrderSnapshot(JSON.parse(orderJson));
}

// --- settings ---------------------------------------------------------------------------------------

interface ShopState {
  shop: { id: string; domain: string };
  state: AdminState;
  checks: Record<EnvironmentName, EnvironmentChecks>;
}

async function readAccess(ctx: AppContext, shopId: string, env: EnvironmentName): Promise<CourierAccess> {
  return courierAccess(ctx.db, ctx.box, shopId, env, ctx.config.courierBaseUrls);
}

async function settingsPayload(ctx: AppContext, domain: string) {
  const shop = (await findShop(ctx.db, domain)) ?? (await ensureShop(ctx.db, domain));
  await ensureEnvironments(ctx.db, shop.id);
  const rows = await ctx.db.courierEnvironment.findMany({ where: { shopId: shop.id } });
  const settings = parseStoredSettings(shop.settings);
  const state = readAdminState(rows);
  const environments = {} as Record<EnvironmentName, ReturnType<typeof environmentPayload>>;
  const checks = {} as ShopState['checks'];
  const urls = {} as Record<EnvironmentName, string>;
  for (const row of rows) {
    const env = row.environment as EnvironmentName;
    if (!(ENVIRONMENTS as readonly string[]).includes(env)) continue;
    const view = environmentView(row, ctx.box, ctx.now());
    let access: CourierAccess;
    try {
      access = courierAccessFromRow(row, ctx.box, ctx.config.courierBaseUrls);
    } catch (e) {
      if (!(e instanceof DecryptionError)) throw e;
      // Secrets under a key this process lacks: shown as set, never as working.
      access = { environmentId: row.id, environment: env, baseUrl: row.baseUrl ?? ctx.config.courierBaseUrls[env], clientId: row.clientId, clientSecret: null, webhookSecrets: [], pickupStoreId: row.pickupStoreId, locationStores: view.locationStores, endpointId: row.endpointId };
    }
    checks[env] = environmentChecks(view, access, state, env);
    urls[env] = webhookUrl(ctx.config.publicWebhookBaseUrl, view.endpointId);
    environments[env] = environmentPayload(ctx, env, view, checks[env], state, urls[env]);
  }
  return { shop: domain, settings, environments, onboarding: onboarding(settings, checks, urls) };
}

function environmentPayload(ctx: AppContext, env: EnvironmentName, view: ReturnType<typeof environmentView>, checks: EnvironmentChecks, state: AdminState, url: string) {
  const conn = state.connection[env];
  const hook = state.webhookTest[env];
  return {
    ...view,
    defaultBaseUrl: ctx.config.courierBaseUrls[env],
    webhookUrl: url,
    checks,
    lastConnectionTest: conn ? { ok: conn.ok, at: conn.at, message: conn.message, current: conn.ok ? checks.connectionOk : null } : null,
    lastWebhookTest: hook ? { ok: hook.ok, at: hook.at, message: hook.message, sent: hook.sent, received: hook.received, verified: hook.verified } : null,
  };
}

const SaveBody = z
  .object({
    settings: z.record(z.string(), z.unknown()).optional(),
    environments: z.object({ test: z.record(z.string(), z.unknown()).optional(), live: z.record(z.string(), z.unknown()).optional() }).strict().optional(),
  })
  .strict();

/**
 * Validates every part of a save first (so the form gets all its field errors
 * at once and nothing is half-saved), then writes through the settings store.
 */
async function saveAll(ctx: AppContext, domain: string, body: unknown): Promise<void> {
  const parsed = SaveBody.safeParse(body);
  if (!parsed.success) throw new ApiError(400, 'expected { settings?: {...}, environments?: { test?: {...}, live?: {...} } }', fieldErrors(parsed.error));
  const { settings: patch, environments = {} } = parsed.data;
  const shop = await requireShop(ctx.db, domain);
  const current = parseStoredSettings(shop.settings);
  const errors: FieldErrors = {};
  let next = current;
  if (patch) {
    try {
      next = applySettingsPatch(current, patch);
    } catch (e) {
      if (!(e instanceof SettingsValidationError)) throw e;
      Object.assign(errors, e.fields);
    }
  }
  for (const env of ENVIRONMENTS) {
    const p = environments[env];
    if (!p) continue;
    const r = EnvironmentPatchSchema.safeParse(p);
    if (!r.success) for (const [k, v] of Object.entries(fieldErrors(r.error))) errors[`${env}.${k}`] = v;
    else if (r.data.baseUrl) {
      const problem = await checkCourierUrl(r.data.baseUrl, courierUrlPolicy(ctx.config.nodeEnv));
      if (problem) errors[`${env}.baseUrl`] = problem;
    }
  }
  if (next.activeEnvironment === 'live' && current.activeEnvironment !== 'live' && !errors.activeEnvironment) {
    const blocker = liveReadiness((await settingsPayload(ctx, domain)).environments.live.checks);
    if (blocker) errors.activeEnvironment = blocker;
  }
  if (Object.keys(errors).length) throw new SettingsValidationError(errors);

  for (const env of ENVIRONMENTS) {
    const p = environments[env];
    if (p && Object.keys(p).length) await updateEnvironment(ctx.db, ctx.box, domain, env, p, { webhookSecretOverlapMs: ctx.config.webhookSecretOverlapMs, now: ctx.now() });
  }
  if (patch) await updateSettings(ctx.db, domain, patch);
}

// --- deliveries ---------------------------------------------------------------------------------------

/** A filter date, as stored timestamps can hold it (years 0001-9999); `endOfDay` makes a bare date exclusive at the end of that day. */
function filterDate(endOfDay: boolean) {
  return z
    .string()
    .trim()
    .optional()
    .transform((v, c) => {
      if (!v) return undefined;
      const bare = /^\d{4}-\d{2}-\d{2}$/.test(v);
      const ms = bare ? Date.parse(`${v}T00:00:00.000Z`) + (endOfDay ? 86_400_000 : 0) : Date.parse(v);
      if (Number.isNaN(ms)) {
        c.addIssue({ code: 'custom', message: 'expected a date like 2026-11-22 or an ISO 8601 time' });
        return z.NEVER;
      }
      const d = storableDate(ms);
      // The day after 9999-12-31 is no bound at all.
      if (!d && !(endOfDay && bare && v.startsWith('9999-'))) {
        c.addIssue({ code: 'custom', message: 'expected a date between the years 0001 and 9999' });
        return z.NEVER;
      }
      return d ?? undefined;
    });
}

const ListQuery = z.object({
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean) : []))
    .refine((list) => list.every((s) => (DELIVERY_STATUSES as readonly string[]).includes(s)), `expected one or more of ${DELIVERY_STATUSES.join(', ')}`),
  from: filterDate(false),
  /** Exclusive; a bare date means the end of that day (UTC). */
  to: filterDate(true),
  q: z.string().trim().max(100).refine(isStorable, 'must not contain NUL characters or lone UTF-16 surrogates').optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

function encodeCursor(d: { createdAt: Date; id: string }): string {
  return Buffer.from(`${d.createdAt.getTime()}:${d.id}`).toString('base64url');
}

function decodeCursor(c: string): { createdAt: Date; id: string } {
  const m = /^(\d{1,15}):([\w-]{1,64})$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  const createdAt = m ? storableDate(Number(m[1])) : null;
  if (!m || !createdAt) throw new ApiError(400, 'invalid cursor', { cursor: 'is not a cursor this API returned' });
  return { createdAt, id: m[2]! };
}

const SEARCH_COLUMNS = ['shopifyOrderId', 'dispatchJobId', 'courierOrderId', 'courierDeliveryId'] as const;
const SEARCH_ID_LIMIT = 1000;

async function literalSearchIds(ctx: AppContext, shopId: string, q: string, name: string): Promise<string[]> {
  const cols = ['orderName', ...SEARCH_COLUMNS];
  const rows = await ctx.db.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT "id" FROM "Delivery" WHERE "shopId" = ? AND ("orderName" = ? OR ${cols.map((c) => `instr("${c}", ?) > 0`).join(' OR ')})
     ORDER BY "createdAt" DESC LIMIT ${SEARCH_ID_LIMIT}`,
    shopId,
    name,
    ...cols.map(() => q),
  );
  return rows.map((r) => r.id);
}

async function listDeliveries(ctx: AppContext, domain: string, query: unknown) {
  const parsed = ListQuery.safeParse(query);
  if (!parsed.success) throw new ApiError(400, 'invalid filter', fieldErrors(parsed.error));
  const f = parsed.data;
  const shop = await findShop(ctx.db, domain);
  if (!shop) return { deliveries: [], nextCursor: null, counts: {}, unmatchedEvents: 0, duplicateBookings: 0 };
  const settings = parseStoredSettings(shop.settings);
  const and: any[] = [{ shopId: shop.id }];
  if (f.status.length) and.push({ status: { in: f.status } });
  if (f.from) and.push({ createdAt: { gte: f.from } });
  if (f.to) and.push({ createdAt: { lt: f.to } });
  if (f.q) {
    const q = f.q.replace(/^gid:\/\/shopify\/Order\//, '');
    const name = q.startsWith('#') ? q : `#${q}`;
    if (ctx.database.provider === 'sqlite' && /[%_\\]/.test(q)) {
      // `contains` is LIKE '%…%' without an ESCAPE clause on SQLite, so % and _ would be
      // wildcards there: match substrings with instr() instead (at most SEARCH_ID_LIMIT rows).
      and.push({ id: { in: await literalSearchIds(ctx, shop.id, q, name) } });
    } else {
      // PostgreSQL: LIKE's default escape character is backslash.
      const like = q.replace(/[\\%_]/g, '\\$&');
      and.push({
        OR: [
          { orderName: { contains: like } },
          { orderName: name },
          ...SEARCH_COLUMNS.map((c) => ({ [c]: { contains: like } })),
        ],
      });
    }
  }
  if (f.cursor) {
    const c = decodeCursor(f.cursor);
    and.push({ OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, id: { lt: c.id } }] });
  }
  const rows = await ctx.db.delivery.findMany({
    where: { AND: and },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: f.limit + 1,
    include: { events: { orderBy: [{ occurredAt: 'desc' }, { receivedAt: 'desc' }], take: 1 } },
  });
  const page = rows.slice(0, f.limit);
  const grouped = await ctx.db.delivery.groupBy({ by: ['status'], where: { shopId: shop.id }, _count: { _all: true } });
  return {
    deliveries: page.map((d) => deliverySummary(d, d.events[0] ?? null, { trackingUrlTemplate: settings.fulfillment.trackingUrlTemplate })),
    nextCursor: rows.length > f.limit ? encodeCursor(page.at(-1)!) : null,
    counts: Object.fromEntries(grouped.map((g) => [g.status, g._count._all])),
    unmatchedEvents: await countUnmatched(ctx, domain),
    // Booked more than once by the courier: listed with every id until the merchant marks it resolved.
    duplicateBookings: await ctx.db.delivery.count({ where: { shopId: shop.id, reasonCode: 'duplicate_courier_orders' } }),
  };
}

async function deliveryDetail(ctx: AppContext, domain: string, id: string) {
  const d = await ctx.db.delivery.findFirst({
    where: { id, shop: { domain } },
    include: { shop: true, events: { orderBy: [{ occurredAt: 'asc' }, { receivedAt: 'asc' }] } },
  });
  if (!d) throw new ApiError(404, `delivery ${id} not found`);
  const settings = parseStoredSettings(d.shop.settings);
  const timeline = d.events.map(eventView);
  let dropoff = null;
  if (!d.redactedAt) {
    try {
      const o = snapshotOf(d.orderJson);
      const a = o.shipping_address;
      dropoff = a
        ? { name: a.name, address1: a.address1, address2: a.address2, city: a.city, province: a.province, zip: a.zip, countryCode: a.country_code, phone: a.phone ?? o.phone ?? null, latitude: a.latitude, longitude: a.longitude }
        : { name: null, address1: null, address2: null, city: null, province: null, zip: null, countryCode: null, phone: o.phone ?? null, latitude: null, longitude: null };
    } catch {
      dropoff = null;
    }
  }
  return {
    ...deliverySummary(d, timeline.at(-1) ?? null, { trackingUrlTemplate: settings.fulfillment.trackingUrlTemplate }),
    courierDeliveryId: d.courierDeliveryId,
    courierOrderStatus: d.courierOrderStatus,
    requestId: d.requestId,
    idempotencyKey: d.idempotencyKey,
    generation: d.generation,
    tries: d.tries,
    lastError: d.lastError,
    fulfillmentId: d.fulfillmentId,
    dispatchedAt: d.dispatchedAt,
    redacted: !!d.redactedAt,
    dropoff,
    overrides: parseStoredJson(d.overridesJson),
    request: parseStoredJson(d.requestBody),
    response: parseStoredJson(d.responseBody),
    /** The exact bytes exchanged (number literals as sent, e.g. 1249.90). */
    requestText: d.requestBody,
    responseText: d.responseBody,
    timeline,
  };
}

/** Phone and/or coordinates; the phone must be a valid number where the order goes. */
function parseFix(body: unknown, order: OrderSnapshot): Overrides {
  const r = checkFix(body, order);
  if (!r.ok) throw new ApiError(422, 'The correction is not valid', r.errors);
  return r.fix;
}

/** A price quote for an order, built exactly as dispatch would build its request (active environment). */
async function quoteFor(ctx: AppContext, domain: string, order: OrderSnapshot, overrides: Overrides) {
  const shop = await requireShop(ctx.db, domain);
  const settings = parseStoredSettings(shop.settings);
  const env = settings.activeEnvironment;
  const access = await readAccess(ctx, shop.id, env);
  const client = ctx.courier.for(domain, access);
  const mapped = await buildRequest(ctx, domain, order, overrides, env, settings, access);
  if (!mapped.ok) throw new ApiError(422, `Cannot quote this order: ${problemsMessage(mapped.problems)}`);
  const q = await client.quote(serializeCreateOrder(mapped.request));
  const max = settings.maxDeliveryPrice;
  return {
    environment: env,
    orderName: order.name,
    price: q.price,
    currency: q.currency,
    maxDeliveryPrice: max,
    aboveMax: max !== null && (toCents(q.price) ?? 0n) > (toCents(max) ?? 0n),
  };
}
