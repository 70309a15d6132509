// Reading and writing a shop's settings and courier environments. Secrets are
// encrypted here, on the way in, and decrypted only by courierAccess() for the
// code that calls the courier or verifies its webhooks. Views for people (CLI,
// admin API) carry "set / last 4" and never a secret.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db, Tx } from '../db/client.ts';
import type { CourierAccess } from '../delivery/types.ts';
import { validateBaseUrl } from '../delivery/url.ts';
import { maskSecret, type SecretBox } from '../security/crypto.ts';
import { readLocationStores, writeLocationStores } from '../db/json-columns.ts';
import { reencryptCanary } from '../db/key-check.ts';
import { GEOCODER_PROVIDERS, PUBLIC_NOMINATIM_URL, type GeocoderConfig, type GeocoderProvider } from '../geocoding/config.ts';
import {
  applySettingsPatch,
  ENVIRONMENTS,
  fieldErrors,
  parseStoredSettings,
  SettingsValidationError,
  type EnvironmentName,
  type Settings,
} from './schema.ts';

export class ShopNotFoundError extends Error {
  constructor(domain: string) {
    super(`shop ${domain} is not installed`);
  }
}

export function newEndpointId(): string {
  return `ep_${randomBytes(18).toString('base64url')}`;
}

export async function findShop(db: Tx, domain: string) {
  return db.shop.findUnique({ where: { domain } });
}

export async function requireShop(db: Tx, domain: string) {
  const shop = await findShop(db, domain);
  if (!shop) throw new ShopNotFoundError(domain);
  return shop;
}

/** The shop row, created on first sight (install, or the operator CLI). */
export async function ensureShop(db: Tx, domain: string) {
  return db.shop.upsert({ where: { domain }, create: { domain }, update: {} });
}

export async function getSettings(db: Tx, domain: string): Promise<Settings> {
  return parseStoredSettings((await requireShop(db, domain)).settings);
}

export async function updateSettings(db: Db, domain: string, patch: unknown): Promise<Settings> {
  return db.$transaction(async (tx) => {
    const shop = await requireShop(tx, domain);
    const next = applySettingsPatch(parseStoredSettings(shop.settings), patch);
    await tx.shop.update({ where: { id: shop.id }, data: { settings: JSON.stringify(next) } });
    return next;
  });
}

// --- courier environments ---------------------------------------------------

const secret = z.string().trim().min(8, 'must be at least 8 characters').max(512);
const storeId = z.string().trim().min(1, 'must not be empty').max(128);

export const EnvironmentPatchSchema = z
  .object({
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'expected the courier API base URL, e.g. https://api.courier.example' })
      .superRefine((v, c) => {
        // Credentials in the URL, query strings, plain http to a non-local host. Where it may
        // point (private addresses, https in production) is checked by the caller: checkCourierUrl.
        const r = validateBaseUrl(v);
        if (!r.ok) c.addIssue({ code: 'custom', message: r.problem });
      })
      .nullable(),
    clientId: z.string().trim().min(1, 'must not be empty').max(256).nullable(),
    clientSecret: secret.nullable(),
    webhookSecret: secret.nullable(),
    pickupStoreId: storeId.nullable(),
    /** Shopify location id (numeric string) → pickup store id; null removes a mapping. */
    locationStores: z.record(z.string().regex(/^\d+$/, 'expected a numeric Shopify location id'), storeId.nullable()),
  })
  .partial()
  .strict();

async function ensureEnvironment(tx: Tx, shopId: string, environment: EnvironmentName) {
  // Read first: the row almost always exists, and this runs on every dispatch.
  const existing = await tx.courierEnvironment.findUnique({ where: { shopId_environment: { shopId, environment } } });
  if (existing) return existing;
  return tx.courierEnvironment.upsert({
    where: { shopId_environment: { shopId, environment } },
    create: { shopId, environment, endpointId: newEndpointId() },
    update: {},
  });
}

/** Creates both environments' rows (and so their webhook endpoint ids) if missing. */
export async function ensureEnvironments(db: Tx, shopId: string): Promise<void> {
  for (const env of ENVIRONMENTS) await ensureEnvironment(db, shopId, env);
}

/** How long a replaced webhook secret is still accepted, by default (WEBHOOK_SECRET_OVERLAP_HOURS). */
export const DEFAULT_WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60_000;

export interface EnvironmentWriteOptions {
  /** How long the replaced webhook secret stays valid. */
  webhookSecretOverlapMs?: number;
  now?: number;
}

export async function updateEnvironment(
  db: Db,
  box: SecretBox,
  domain: string,
  environment: EnvironmentName,
  patch: unknown,
  opts: EnvironmentWriteOptions = {},
): Promise<EnvironmentView> {
  const now = opts.now ?? Date.now();
  const parsed = EnvironmentPatchSchema.safeParse(patch);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    throw new SettingsValidationError(Object.fromEntries(Object.entries(errors).map(([k, v]) => [`${environment}.${k}`, v])));
  }
  const p = parsed.data;
  const row = await db.$transaction(async (tx) => {
    const shop = await requireShop(tx, domain);
    const current = await ensureEnvironment(tx, shop.id, environment);
    const data: Record<string, unknown> = {};
    if (p.baseUrl !== undefined) data.baseUrl = p.baseUrl?.replace(/\/+$/, '') ?? null;
    if (p.clientId !== undefined) data.clientId = p.clientId;
    if (p.clientSecret !== undefined) data.clientSecretEnc = p.clientSecret === null ? null : box.encrypt(p.clientSecret);
    if (p.webhookSecret === null) Object.assign(data, { webhookSecretEnc: null, webhookSecretPrevEnc: null, webhookSecretPrevUntil: null });
    else if (p.webhookSecret !== undefined && p.webhookSecret !== readable(box, current.webhookSecretEnc)) {
      // Keep the replaced secret for a while so events signed before the portal switched still
      // verify. Saving the current secret again changes nothing (the form re-sends it).
      const replaced = readable(box, current.webhookSecretEnc) !== null;
      data.webhookSecretEnc = box.encrypt(p.webhookSecret);
      data.webhookSecretPrevEnc = replaced ? current.webhookSecretEnc : null;
      data.webhookSecretPrevUntil = replaced ? new Date(now + (opts.webhookSecretOverlapMs ?? DEFAULT_WEBHOOK_SECRET_OVERLAP_MS)) : null;
    }
    if (p.pickupStoreId !== undefined) data.pickupStoreId = p.pickupStoreId;
    if (p.locationStores !== undefined) {
      const map = readLocationStores(current);
      for (const [loc, store] of Object.entries(p.locationStores)) {
        if (store === null) delete map[loc];
        else map[loc] = store;
      }
      data.locationStores = writeLocationStores(map);
    }
    return tx.courierEnvironment.update({ where: { id: current.id }, data });
  });
  forgetCourierAccess(row.shopId);
  return environmentView(row, box, now);
}

function readable(box: SecretBox, enc: string | null): string | null {
  if (!enc) return null;
  try {
    return box.decrypt(enc);
  } catch {
    return null;
  }
}

/** The webhook secrets accepted now: the current one, then the previous one until it expires. */
export function webhookSecretsOf(row: Pick<EnvRow, 'webhookSecretEnc' | 'webhookSecretPrevEnc' | 'webhookSecretPrevUntil'>, box: SecretBox, now: number): string[] {
  const prevValid = !!row.webhookSecretPrevUntil && row.webhookSecretPrevUntil.getTime() > now;
  return [row.webhookSecretEnc, prevValid ? row.webhookSecretPrevEnc : null].filter((v): v is string => !!v).map((v) => box.decrypt(v));
}

type EnvRow = Awaited<ReturnType<typeof ensureEnvironment>>;

export interface EnvironmentView {
  environment: string;
  baseUrl: string | null;
  clientId: string | null;
  clientSecret: { set: boolean; last4: string | null };
  webhookSecret: { set: boolean; last4: string | null };
  /** The replaced webhook secret while it is still accepted. */
  previousWebhookSecret: { last4: string | null; expiresAt: Date; remainingMinutes: number } | null;
  pickupStoreId: string | null;
  locationStores: Record<string, string>;
  endpointId: string;
  lastWebhookAt: Date | null;
  lastRejectionAt: Date | null;
  lastRejectionReason: string | null;
}

function secretView(box: SecretBox, enc: string | null): { set: boolean; last4: string | null } {
  if (!enc) return { set: false, last4: null };
  try {
    const masked = maskSecret(box.decrypt(enc));
    return { set: true, last4: masked && masked.length > 4 ? masked.slice(-4) : null };
  } catch {
    return { set: true, last4: null };
  }
}

export function environmentView(row: EnvRow, box: SecretBox, now = Date.now()): EnvironmentView {
  const prevUntil = row.webhookSecretPrevEnc && row.webhookSecretPrevUntil && row.webhookSecretPrevUntil.getTime() > now ? row.webhookSecretPrevUntil : null;
  return {
    environment: row.environment,
    baseUrl: row.baseUrl,
    clientId: row.clientId,
    clientSecret: secretView(box, row.clientSecretEnc),
    webhookSecret: secretView(box, row.webhookSecretEnc),
    previousWebhookSecret: prevUntil
      ? { last4: secretView(box, row.webhookSecretPrevEnc).last4, expiresAt: prevUntil, remainingMinutes: Math.ceil((prevUntil.getTime() - now) / 60_000) }
      : null,
    pickupStoreId: row.pickupStoreId,
    locationStores: readLocationStores(row),
    endpointId: row.endpointId,
    lastWebhookAt: row.lastWebhookAt,
    lastRejectionAt: row.lastRejectionAt,
    lastRejectionReason: row.lastRejectionReason,
  };
}

export async function environmentViews(db: Tx, box: SecretBox, shopId: string): Promise<Record<EnvironmentName, EnvironmentView>> {
  await ensureEnvironments(db, shopId);
  const rows = await db.courierEnvironment.findMany({ where: { shopId } });
  const out = {} as Record<EnvironmentName, EnvironmentView>;
  for (const r of rows) out[r.environment as EnvironmentName] = environmentView(r, box);
  return out;
}

export function courierAccessFromRow(row: EnvRow, box: SecretBox, defaultBaseUrls: { test: string | null; live: string | null }, now = Date.now()): CourierAccess {
  const env = row.environment as EnvironmentName;
  return {
    environmentId: row.id,
    environment: env,
    baseUrl: row.baseUrl ?? defaultBaseUrls[env],
    clientId: row.clientId,
    clientSecret: row.clientSecretEnc ? box.decrypt(row.clientSecretEnc) : null,
    webhookSecrets: webhookSecretsOf(row, box, now),
    pickupStoreId: row.pickupStoreId,
    locationStores: readLocationStores(row),
    endpointId: row.endpointId,
  };
}

export async function courierAccess(
  db: Tx,
  box: SecretBox,
  shopId: string,
  environment: EnvironmentName,
  defaultBaseUrls: { test: string | null; live: string | null },
): Promise<CourierAccess> {
  return courierAccessFromRow(await ensureEnvironment(db, shopId, environment), box, defaultBaseUrls);
}

/** How long the dispatch job reuses a courier environment's row (other instances' saves show after this). */
export const COURIER_ACCESS_TTL_MS = 10_000;
// The row as stored (secrets still encrypted), per (shop, environment); decrypted per call as before.
const accessRows = new Map<string, { row: EnvRow; until: number }>();

/** courierAccess for the dispatch hot path: the row is reused for a short TTL; this process's saves drop it. */
export async function cachedCourierAccess(
  db: Tx,
  box: SecretBox,
  shopId: string,
  environment: EnvironmentName,
  defaultBaseUrls: { test: string | null; live: string | null },
  now = Date.now(),
): Promise<CourierAccess> {
  const key = `${shopId}:${environment}`;
  const hit = accessRows.get(key);
  if (hit && hit.until > now) return courierAccessFromRow(hit.row, box, defaultBaseUrls);
  const row = await ensureEnvironment(db, shopId, environment);
  accessRows.set(key, { row, until: now + COURIER_ACCESS_TTL_MS });
  return courierAccessFromRow(row, box, defaultBaseUrls);
}

function forgetCourierAccess(shopId: string): void {
  for (const env of ENVIRONMENTS) accessRows.delete(`${shopId}:${env}`);
}

export function webhookUrl(publicBaseUrl: string, endpointId: string): string {
  return `${publicBaseUrl}/webhooks/delivery/${endpointId}`;
}

/**
 * Re-encrypts every secret still under an earlier key with the current one
 * (after ENCRYPTION_KEY was rotated and the old key moved to ENCRYPTION_KEY_PREVIOUS).
 */
export async function reencryptSecrets(db: Db, box: SecretBox): Promise<{ environments: number; sessions: number; geocoderKeys: number }> {
  let environments = 0;
  let sessions = 0;
  let geocoderKeys = 0;
  for (const row of await db.courierEnvironment.findMany()) {
    const data: Record<string, string> = {};
    for (const f of ['clientSecretEnc', 'webhookSecretEnc', 'webhookSecretPrevEnc'] as const) {
      const v = row[f];
      if (v && box.isStale(v)) data[f] = box.encrypt(box.decrypt(v));
    }
    if (Object.keys(data).length) {
      await db.courierEnvironment.update({ where: { id: row.id }, data });
      forgetCourierAccess(row.shopId);
      environments++;
    }
  }
  for (const row of await db.session.findMany()) {
    const data: Record<string, string> = {};
    if (box.isStale(row.accessToken)) data.accessToken = box.encrypt(box.decrypt(row.accessToken));
    if (row.refreshToken && box.isStale(row.refreshToken)) data.refreshToken = box.encrypt(box.decrypt(row.refreshToken));
    if (Object.keys(data).length) {
      await db.session.update({ where: { id: row.id }, data });
      sessions++;
    }
  }
  for (const row of await db.shop.findMany({ where: { geocoderKeyEnc: { not: null } }, select: { id: true, geocoderKeyEnc: true } })) {
    if (!box.isStale(row.geocoderKeyEnc!)) continue;
    await db.shop.update({ where: { id: row.id }, data: { geocoderKeyEnc: box.encrypt(box.decrypt(row.geocoderKeyEnc!)) } });
    geocoderKeys++;
  }
  await reencryptCanary(db, box);
  return { environments, sessions, geocoderKeys };
}

// --- the shop's own geocoder --------------------------------------------------

/** The shop's geocoder from the settings page; the key is write-only. provider null: none of its own (GEOCODER_* applies). */
export const GeocoderPatchSchema = z
  .object({
    provider: z.enum(GEOCODER_PROVIDERS).nullable().optional(),
    url: z.url({ protocol: /^https?$/, error: 'expected the http(s) base URL of the geocoder' }).max(500).nullable().optional(),
    apiKey: z.string().trim().min(1, 'must not be empty').max(512).nullable().optional(),
  })
  .strict();

export type ShopGeocoderRow = { geocoderProvider: string | null; geocoderUrl: string | null; geocoderKeyEnc: string | null };

/** Stores the shop's geocoder (the key encrypted); throws SettingsValidationError naming the field. */
export async function updateShopGeocoder(db: Db, box: SecretBox, domain: string, patch: unknown): Promise<void> {
  const parsed = GeocoderPatchSchema.safeParse(patch);
  if (!parsed.success) throw new SettingsValidationError(Object.fromEntries(Object.entries(fieldErrors(parsed.error)).map(([k, v]) => [`geocoder.${k}`, v])));
  const p = parsed.data;
  const data: Record<string, unknown> = {};
  if (p.url !== undefined) data.geocoderUrl = p.url?.replace(/\/+$/, '') ?? null;
  if (p.apiKey !== undefined) data.geocoderKeyEnc = p.apiKey === null ? null : box.encrypt(p.apiKey);
  if (p.provider !== undefined) data.geocoderProvider = p.provider;
  if (p.provider === null) Object.assign(data, { geocoderUrl: null, geocoderKeyEnc: null });
  const shop = await requireShop(db, domain);
  await db.shop.update({ where: { id: shop.id }, data });
}

/** The shop's own geocoder, key decrypted (DecryptionError when the key cannot be read); null: none of its own. */
export function shopGeocoder(row: ShopGeocoderRow, box: SecretBox, minConfidence: number): GeocoderConfig | null {
  if (!row.geocoderProvider || !(GEOCODER_PROVIDERS as readonly string[]).includes(row.geocoderProvider)) return null;
  return {
    provider: row.geocoderProvider as GeocoderProvider,
    url: (row.geocoderUrl ?? PUBLIC_NOMINATIM_URL).replace(/\/+$/, ''),
    apiKey: row.geocoderKeyEnc ? box.decrypt(row.geocoderKeyEnc) : null,
    minConfidence,
  };
}

/** For people (admin, CLI): the key as set / last 4, never its value. */
export function shopGeocoderView(row: ShopGeocoderRow, box: SecretBox): { provider: GeocoderProvider; url: string | null; apiKey: { set: boolean; last4: string | null } } | null {
  if (!row.geocoderProvider) return null;
  return { provider: row.geocoderProvider as GeocoderProvider, url: row.geocoderUrl, apiKey: secretView(box, row.geocoderKeyEnc) };
}
