// The app's configuration: one zod schema over the environment, parsed once at
// start-up. Anything missing or invalid stops start-up with one line per problem,
// every problem at once, each naming the variable (see formatConfigErrors), never a stack trace.
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from '../db/url.ts';
import { geocoderConfig, type GeocoderConfig } from '../geocoding/config.ts';
import { courierUrlPolicy, courierUrlProblem } from '../delivery/address-policy.ts';
import { decodeKey } from '../security/crypto.ts';

// Only what the operations need (test/unit/shopify-contract.test.ts checks against Shopify's
// published requirements); a write scope grants its read scope.
export const DEFAULT_SCOPES = 'write_orders,write_merchant_managed_fulfillment_orders,write_fulfillments,read_locations,write_shipping,write_app_proxy';

// Placeholders that let a fresh clone start in development with no Shopify app (refused in production).
export const DEV_API_KEY = 'dev-api-key';
export const DEV_API_SECRET = 'dev-api-secret-not-for-production';

/** The local sandbox courier (`npm run sandbox`): the test environment's default outside production only. */
export const DEV_COURIER_TEST_BASE_URL = 'http://127.0.0.1:4010';

/** Where development listens unless HOST says otherwise: never reachable from the network by default. */
export const DEV_HOST = '127.0.0.1';

const key32 = z.string().refine((v) => decodeKey(v) !== null, {
  message: 'expected 32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)',
});

/** Private-network proxies only: a platform load balancer, never a client on the internet. */
export const DEFAULT_TRUST_PROXY = 'loopback, linklocal, uniquelocal';
const TRUST_PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Express's 'trust proxy', safe subset: a hop count, or which peers may set X-Forwarded-For
 * (Express's preset names, IPs, CIDRs). Never `true`: any client could then choose req.ip.
 * Null when invalid. Strict dotted IPv4 only: "10" is a hop count, not the address 0.0.0.10.
 */
export function parseTrustProxy(text: string): number | string[] | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number.isSafeInteger(Number(t)) ? Number(t) : null;
  const list = t.split(',').map((s) => s.trim());
  const ok = (s: string) =>
    TRUST_PROXY_PRESETS.includes(s) || ipaddr.IPv4.isValidFourPartDecimal(s) || ipaddr.IPv4.isValidCIDRFourPartDecimal(s) || ipaddr.IPv6.isValid(s) || ipaddr.IPv6.isValidCIDR(s);
  return list.every(ok) ? list : null;
}

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    SHOPIFY_API_KEY: z.string().min(1, 'expected the app client id from the Partner Dashboard').optional(),
    SHOPIFY_API_SECRET: z.string().min(1, 'expected the app client secret from the Partner Dashboard').optional(),
    SCOPES: z
      .string()
      .regex(/^[a-z_]+(,[a-z_]+)*$/, 'expected comma-separated access scopes, e.g. read_orders,write_orders')
      .default(DEFAULT_SCOPES),
    SHOPIFY_APP_URL: z.url({ protocol: /^https?$/, error: 'expected the public http(s) URL of the app' }).optional(),
    PORT: z.coerce.number({ error: 'expected a TCP port number' }).int().min(0).max(65535).default(3000),
    // The address to listen on: development 127.0.0.1, production all interfaces (the container needs that).
    HOST: z.string().regex(/^[\w.:-]+$/, 'expected an IP address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0').optional(),
    // Production sends Strict-Transport-Security (1 year); this adds includeSubDomains (every subdomain must then serve https).
    HSTS_INCLUDE_SUBDOMAINS: z.stringbool({ error: 'expected true or false' }).default(false),
    DATABASE_URL: z
      .string()
      .default(DEFAULT_DATABASE_URL)
      .superRefine((v, ctx) => {
        try {
          parseDatabaseUrl(v);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: (e as Error).message });
        }
      }),
    ENCRYPTION_KEY: key32.optional(),
    ENCRYPTION_KEY_PREVIOUS: z
      .string()
      .refine((v) => v.split(',').every((k) => decodeKey(k.trim()) !== null), {
        message: 'expected a comma-separated list of earlier 32-byte keys (hex or base64)',
      })
      .optional(),
    // Which peers may set X-Forwarded-For, i.e. the client IP the rate limits see (parseTrustProxy).
    TRUST_PROXY: z.string().default(DEFAULT_TRUST_PROXY).refine((v) => parseTrustProxy(v) !== null, {
      message: 'expected a number of proxy hops (0 = none) or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges',
    }),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // Where merchants' webhook URLs point; defaults to SHOPIFY_APP_URL.
    PUBLIC_WEBHOOK_BASE_URL: z.url({ error: 'expected an http(s) URL' }).optional(),
    // Default courier API base URLs per environment; a shop's own setting wins.
    // Outside production the test default is the local sandbox courier (`npm run sandbox`); production has none.
    COURIER_TEST_BASE_URL: z.url({ protocol: /^https?$/, error: 'expected the http(s) base URL of the courier test API' }).optional(),
    // Development only: route Shopify Admin API traffic for *.myshopify.com to the local shop simulator.
    SHOP_SIMULATOR_URL: z.url({ protocol: /^http$/, error: 'expected the http:// URL of the local shop simulator' }).optional(),
    // PostgreSQL (pg-boss): a job running longer is presumed lost (crashed instance) and retried.
    // Keep it well above the courier client's 30 s deadline.
    JOB_TIMEOUT_SECONDS: z.coerce.number({ error: 'expected seconds' }).int().min(2).max(3_600).default(300),
    RECONCILE_INTERVAL_SECONDS: z.coerce.number({ error: 'expected seconds' }).int().min(0, 'expected 0 (off) or more seconds').max(86_400).default(60),
    // How long a replaced courier webhook secret is still accepted (hours; 0 = not at all).
    WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number({ error: 'expected hours' }).min(0).max(24 * 30).default(24),
    COURIER_LIVE_BASE_URL: z.url({ protocol: /^https?$/, error: 'expected the https base URL of the courier live API' }).optional(),
    // Personal data of deliveries in a final state is erased this many days after their last change.
    PERSONAL_DATA_RETENTION_DAYS: z.coerce.number({ error: 'expected a number of days' }).int().min(1, 'expected at least 1 day').max(3_650).default(90),
    // App-wide geocoder for addresses without coordinates (web/geocoding, docs/geocoding.md); unset = none.
    GEOCODER_PROVIDER: z.enum(['nominatim']).optional(),
    GEOCODER_URL: z.url({ protocol: /^https?$/, error: 'expected the http(s) base URL of the geocoder' }).optional(),
    GEOCODER_API_KEY: z.string().min(1).optional(),
    // Bearer token for GET /metrics (Prometheus); unset = /metrics is off (404).
    METRICS_TOKEN: z.string().min(16, 'expected a token of at least 16 characters').optional(),
    GEOCODER_MIN_CONFIDENCE: z.coerce.number({ error: 'expected a number from 0 to 1' }).min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').default(0.8),
  });

// Checked on the raw environment, not inside the schema: zod skips an object's
// refinements once a field is invalid, and every problem must show in one start.
function productionProblems(env: Record<string, string | undefined>): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of ['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET', 'SHOPIFY_APP_URL', 'ENCRYPTION_KEY'] as const) {
    if (!env[name]) problems.push(`Configuration error: ${name} is required when NODE_ENV=production`);
  }
  if (env.SHOP_SIMULATOR_URL) {
    problems.push('Configuration error: SHOP_SIMULATOR_URL is not allowed when NODE_ENV=production (it sends Shopify traffic to a local simulator)');
  }
  for (const [name, placeholder] of [['SHOPIFY_API_KEY', DEV_API_KEY], ['SHOPIFY_API_SECRET', DEV_API_SECRET]] as const) {
    if (env[name] === placeholder) problems.push(`Configuration error: ${name} is the published development placeholder; set the app's own value from the Partner Dashboard`);
  }
  for (const name of ['SHOPIFY_APP_URL', 'PUBLIC_WEBHOOK_BASE_URL'] as const) {
    if (env[name] && URL.canParse(env[name]) && new URL(env[name]).protocol !== 'https:') problems.push(`Configuration error: ${name} must use https when NODE_ENV=production`);
  }
  // Held to the rules a merchant's courier URL is held to (web/delivery/address-policy.ts); names are checked at every connection.
  const policy = courierUrlPolicy('production');
  for (const name of ['COURIER_TEST_BASE_URL', 'COURIER_LIVE_BASE_URL', 'GEOCODER_URL'] as const) {
    const problem = env[name] && URL.canParse(env[name]) ? courierUrlProblem(env[name], policy) : null;
    if (problem) problems.push(`Configuration error: ${name} ${problem} when NODE_ENV=production`);
  }
  return problems;
}

export type RawEnv = z.infer<typeof schema>;

/** Every variable the app reads (.env.example and the README list them all; tests check). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

/** SHOPIFY_APP_URL when unset. The shop simulator's default too: the OAuth state cookie is per host. */
export const defaultAppUrl = (port: number) => `http://localhost:${port}`;

export interface AppConfig {
  nodeEnv: RawEnv['NODE_ENV'];
  isProduction: boolean;
  shopify: { apiKey: string; apiSecret: string; scopes: string[]; appUrl: string; placeholders: boolean };
  port: number;
  /** The address to listen on; null = all interfaces. */
  host: string | null;
  /** Strict-Transport-Security's includeSubDomains (HSTS is sent in production only). */
  hstsIncludeSubDomains: boolean;
  databaseUrl: string;
  /** Current key first, then earlier keys accepted for decryption only. */
  encryptionKeys: Buffer[] | null;
  logLevel: RawEnv['LOG_LEVEL'];
  /** Express's 'trust proxy' setting (TRUST_PROXY). */
  trustProxy: number | string[];
  publicWebhookBaseUrl: string;
  /** Null = none: a shop must set its own (production has no test default). */
  courierBaseUrls: { test: string | null; live: string | null };
  /** Development only (refused in production): where *.myshopify.com Admin traffic goes instead. */
  shopSimulatorUrl: string | null;
  /** pg-boss: how long a job may run before it is presumed lost and retried. */
  jobTimeoutSeconds: number;
  /** How often reconciliation looks for quiet deliveries; 0 = off. */
  reconcileIntervalMs: number;
  /** How long a replaced courier webhook secret is still accepted. */
  webhookSecretOverlapMs: number;
  /** Days after which a final delivery's personal data is erased. */
  personalDataRetentionDays: number;
  /** App-wide geocoder (web/geocoding/config.ts); null = none configured. */
  geocoder: GeocoderConfig | null;
  /** Bearer token /metrics requires; null = /metrics is off. */
  metricsToken: string | null;
}

/** Its message has one line per problem. */
export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // Empty strings count as unset, as they do in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  const problems = [...(parsed.success ? [] : formatConfigErrors(parsed.error)), ...productionProblems(cleaned)];
  if (!parsed.success || problems.length) throw new ConfigError(problems.join('\n'));
  const e = parsed.data;
  const appUrl = (e.SHOPIFY_APP_URL ?? defaultAppUrl(e.PORT)).replace(/\/+$/, '');
  const keys = e.ENCRYPTION_KEY
    ? [e.ENCRYPTION_KEY, ...(e.ENCRYPTION_KEY_PREVIOUS?.split(',') ?? [])].map((k) => decodeKey(k.trim())!)
    : null;
  return {
    nodeEnv: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    shopify: {
      apiKey: e.SHOPIFY_API_KEY ?? DEV_API_KEY,
      apiSecret: e.SHOPIFY_API_SECRET ?? DEV_API_SECRET,
      scopes: e.SCOPES.split(','),
      appUrl,
      placeholders: !e.SHOPIFY_API_KEY || !e.SHOPIFY_API_SECRET,
    },
    port: e.PORT,
    host: e.HOST ?? (e.NODE_ENV === 'production' ? null : DEV_HOST),
    hstsIncludeSubDomains: e.HSTS_INCLUDE_SUBDOMAINS,
    databaseUrl: e.DATABASE_URL,
    encryptionKeys: keys,
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY)!,
    publicWebhookBaseUrl: (e.PUBLIC_WEBHOOK_BASE_URL ?? appUrl).replace(/\/+$/, ''),
    reconcileIntervalMs: e.RECONCILE_INTERVAL_SECONDS * 1000,
    personalDataRetentionDays: e.PERSONAL_DATA_RETENTION_DAYS,
    geocoder: geocoderConfig(e),
    metricsToken: e.METRICS_TOKEN ?? null,
    jobTimeoutSeconds: e.JOB_TIMEOUT_SECONDS,
    webhookSecretOverlapMs: Math.round(e.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000),
    shopSimulatorUrl: e.SHOP_SIMULATOR_URL?.replace(/\/+$/, '') ?? null,
    courierBaseUrls: {
      test: (e.COURIER_TEST_BASE_URL ?? (e.NODE_ENV === 'production' ? null : DEV_COURIER_TEST_BASE_URL))?.replace(/\/+$/, '') ?? null,
      live: e.COURIER_LIVE_BASE_URL?.replace(/\/+$/, '') ?? null,
    },
  };
}

/** One line per problem, naming the variable and what is expected. */
export function formatConfigErrors(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    let message = issue.message;
    if (issue.code === 'invalid_value' && 'values' in issue) message = `expected one of ${issue.values.join(', ')}`;
    return `Configuration error: ${name} ${message.startsWith('is ') ? message : `is invalid: ${message}`}`;
  });
}

