// Settings, courier credentials and onboarding for the admin: the settings
// page's payload, its all-or-nothing save, the connection and webhook tests,
// and the shop's Shopify locations. Secrets are write-only: views carry
// `{ set, last4 }`, never a value.
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { MissingCredentialsError } from '../../context.ts';
import { DeliveryApiError } from '../../delivery/index.ts';
import { checkCourierUrl, courierUrlPolicy } from '../../delivery/address-policy.ts';
import { sendTestWebhook, type TestWebhookResult } from '../../fulfillment/test-webhook.ts';
import { DecryptionError } from '../../security/crypto.ts';
import { applySettingsPatch, ENVIRONMENTS, fieldErrors, parseStoredSettings, SettingsValidationError, type EnvironmentName, type FieldErrors } from '../../settings/schema.ts';
import {
  courierAccess,
  courierAccessFromRow,
  ensureEnvironments,
  ensureShop,
  EnvironmentPatchSchema,
  environmentView,
  findShop,
  GeocoderPatchSchema,
  requireShop,
  updateEnvironment,
  updateShopGeocoder,
  updateSettings,
  webhookUrl,
} from '../../settings/store.ts';
import type { CourierAccess } from '../../delivery/types.ts';
import { numericId, SHOP_LOCATIONS } from '../../shopify/operations.ts';
import { ApiError } from '../errors.ts';
import { geocoderSummary } from './geocode.ts';
import { environmentChecks, liveReadiness, onboarding, type EnvironmentChecks } from '../onboarding.ts';
import { connectionFingerprint, readAdminState, recordCheck, webhookFingerprint, type AdminState } from '../state.ts';

export async function readAccess(ctx: AppContext, shopId: string, env: EnvironmentName): Promise<CourierAccess> {
  return courierAccess(ctx.db, ctx.box, shopId, env, ctx.config.courierBaseUrls);
}

export async function settingsPayload(ctx: AppContext, domain: string) {
  const shop = (await findShop(ctx.db, domain)) ?? (await ensureShop(ctx.db, domain));
  await ensureEnvironments(ctx.db, shop.id);
  const rows = await ctx.db.courierEnvironment.findMany({ where: { shopId: shop.id } });
  const settings = parseStoredSettings(shop.settings);
  const state = readAdminState(rows);
  const environments = {} as Record<EnvironmentName, ReturnType<typeof environmentPayload>>;
  const checks = {} as Record<EnvironmentName, EnvironmentChecks>;
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
  return { shop: domain, settings, environments, onboarding: onboarding(settings, checks, urls), geocoder: geocoderSummary(ctx, shop) };
}

function environmentPayload(ctx: AppContext, env: EnvironmentName, view: ReturnType<typeof environmentView>, checks: EnvironmentChecks, state: AdminState, url: string) {
  const conn = state.connection[env];
  const hook = state.webhookTest[env];
  return {
    ...view,
    environment: env,
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
    geocoder: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * Validates every part of a save first (so the form gets all its field errors
 * at once and nothing is half-saved), then writes through the settings store.
 */
export async function saveAll(ctx: AppContext, domain: string, body: unknown): Promise<void> {
  const parsed = SaveBody.safeParse(body);
  if (!parsed.success) throw new ApiError(400, 'expected { settings?: {...}, environments?: { test?: {...}, live?: {...} }, geocoder?: {...} }', fieldErrors(parsed.error));
  const { settings: patch, environments = {}, geocoder } = parsed.data;
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
  if (geocoder) {
    const r = GeocoderPatchSchema.safeParse(geocoder);
    if (!r.success) for (const [k, v] of Object.entries(fieldErrors(r.error))) errors[`geocoder.${k}`] = v;
    else if (r.data.url) {
      // A merchant's URL: the same address rules as a courier base URL.
      const problem = await checkCourierUrl(r.data.url, courierUrlPolicy(ctx.config.nodeEnv));
      if (problem) errors['geocoder.url'] = problem;
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
  if (geocoder && Object.keys(geocoder).length) await updateShopGeocoder(ctx.db, ctx.box, domain, geocoder);
  if (patch) await updateSettings(ctx.db, domain, patch);
}

/** Asks the courier for a token with the environment's credentials, and records the result. */
export async function testConnection(ctx: AppContext, domain: string, env: EnvironmentName) {
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
  return { environment: env, ...result, testedAt: at };
}

/** Asks the courier to send a test webhook, and records whether our endpoint verified it. */
export async function testWebhook(ctx: AppContext, domain: string, env: EnvironmentName) {
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
  return { environment: env, ok, ...result, testedAt: at };
}

export async function shopLocations(ctx: AppContext, domain: string) {
  const data = await ctx.admin.request(domain, SHOP_LOCATIONS, {});
  const nodes: any[] = data?.locations?.nodes ?? [];
  return {
    locations: nodes.map((l) => ({
      id: numericId(l.id),
      gid: l.id,
      name: l.name,
      isActive: l.isActive ?? true,
      fulfillsOnlineOrders: l.fulfillsOnlineOrders ?? true,
      city: l.address?.city ?? null,
      countryCode: l.address?.countryCode ?? null,
    })),
  };
}
