// The services the app's handlers, jobs and CLI share, built once per process.
import { createHash } from 'node:crypto';
import type { AppConfig } from './config/env.ts';
import type { Database, Db } from './db/client.ts';
import { DeliveryClient } from './delivery/index.ts';
import type { CourierAccess } from './delivery/types.ts';
import { guardedAgent, type CourierUrlPolicy, type LookupAll } from './delivery/address-policy.ts';
import type { Dispatcher } from 'undici';
import type { JobQueue } from './jobs/queue.ts';
import type { InboxWorker } from './inbox/worker.ts';
import type { IntakeFirst } from './jobs/intake-first.ts';
import type { Logger } from './ops/logger.ts';
import type { SecretBox } from './security/crypto.ts';
import type { AdminApi } from './shopify/admin-api.ts';
import { COURIER_CREATE_SCOPE } from './retry/budget.ts';

export interface AppContext {
  config: AppConfig;
  log: Logger;
  database: Database;
  db: Db;
  box: SecretBox;
  queue: JobQueue;
  /** Shopify Admin GraphQL with the shop's offline token (null in the CLI without Shopify set up). */
  admin: AdminApi;
  courier: CourierClients;
  now: () => number;
  /** The webhook inbox's worker (the server; absent in the CLI). */
  inbox?: InboxWorker;
  /** Told of every webhook received, so background jobs yield to intake (the server; absent in the CLI). */
  intake?: IntakeFirst;
}

export interface CourierClientTuning {
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; deadlineMs?: number };
  requestTimeoutMs?: number;
}

export class MissingCredentialsError extends Error {}

/** Merchant-supplied base URLs go through an agent that refuses private addresses at connect time (production). */
export interface CourierAddressGuard {
  policy: CourierUrlPolicy;
  lookupAll?: LookupAll;
}

/**
 * One DeliveryClient per (shop, environment, credentials): the token cache is
 * keyed the same way, so new credentials never reuse an old token.
 */
export class CourierClients {
  readonly #clients = new Map<string, DeliveryClient>();
  readonly #log: Logger;
  readonly #tuning: CourierClientTuning;
  readonly #guard: CourierAddressGuard | undefined;
  #guarded: Dispatcher | undefined;

  constructor(log: Logger, tuning: CourierClientTuning = {}, guard?: CourierAddressGuard) {
    this.#log = log;
    this.#tuning = tuning;
    this.#guard = guard;
  }

  #dispatcher(): Dispatcher | undefined {
    const g = this.#guard;
    // The operator's COURIER_*_BASE_URL too: the environment is held to the merchants' rules (web/config/env.ts).
    if (!g || g.policy.allowPrivate) return undefined;
    return (this.#guarded ??= guardedAgent({ connectTimeoutMs: 5_000, ...(g.lookupAll ? { lookupAll: g.lookupAll } : {}) }));
  }

  for(shopDomain: string, access: CourierAccess): DeliveryClient {
    if (!access.baseUrl || !access.clientId || !access.clientSecret) {
      const missing = [!access.baseUrl && 'base URL', !access.clientId && 'client id', !access.clientSecret && 'client secret'].filter(Boolean);
      // No base URL and no server default (production has none for test): nothing is sent anywhere.
      const hint = access.baseUrl ? '' : `. Set the ${access.environment} base URL in the courier settings: this server has no default for it`;
      throw new MissingCredentialsError(`Courier ${access.environment} credentials are incomplete: no ${missing.join(', ')}${hint}`);
    }
    const fingerprint = createHash('sha256').update(`${access.baseUrl}\n${access.clientId}\n${access.clientSecret}`).digest('hex').slice(0, 16);
    const key = `${shopDomain}:${access.environment}:${fingerprint}`;
    let client = this.#clients.get(key);
    if (!client) {
      const dispatcher = this.#dispatcher();
      client = new DeliveryClient({
        ...(dispatcher ? { dispatcher } : {}),
        baseUrl: access.baseUrl,
        clientId: access.clientId,
        clientSecret: access.clientSecret,
        tokenCacheKey: key,
        log: this.#log.child({ shop: shopDomain, environment: access.environment }),
        ...this.#tuning,
        // Creates are retried by the dispatch job only (web/retry/budget.ts).
        createRetry: COURIER_CREATE_SCOPE,
      });
      this.#clients.set(key, client);
    }
    return client;
  }
}
