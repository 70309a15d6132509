// The shopify-app-express instance: API version, expiring offline tokens,
// encrypted Prisma session storage, and the library's logs routed into ours.
//
// Shopify-managed installation (scopes in shopify.app.toml): Shopify installs
// the app and opens it embedded with no stored session. With
// future.tokenExchange the embedded page is served at once and the first
// /api request exchanges its App Bridge session token for an expiring offline
// access token (stored encrypted, afterAuth records the install); there is no
// OAuth redirect and no /exitiframe. /api/auth (the authorization-code grant)
// answers 400 saying so (web/app.ts).
import { shopifyApp, type ShopifyApp } from '@shopify/shopify-app-express';
import { ApiVersion, LogSeverity, type Session } from '@shopify/shopify-api';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import type { AppConfig } from '../config/env.ts';
import type { Logger } from '../ops/logger.ts';

export const API_VERSION = ApiVersion.October26;

export type Shopify = ShopifyApp;

export function createShopify(
  config: AppConfig,
  sessionStorage: SessionStorage,
  log: Logger,
  afterAuth: (session: Session) => Promise<void>,
): Shopify {
  const url = new URL(config.shopify.appUrl);
  const shopifyLog = log.child({ component: 'shopify-api' });
  return shopifyApp({
    api: {
      apiKey: config.shopify.apiKey,
      apiSecretKey: config.shopify.apiSecret,
      scopes: config.shopify.scopes,
      hostName: url.host,
      hostScheme: url.protocol === 'https:' ? 'https' : 'http',
      apiVersion: API_VERSION,
      isEmbeddedApp: true,
      logger: {
        level: LogSeverity.Info,
        log: async (severity, message) => {
          const level = severity <= LogSeverity.Error ? 'error' : severity === LogSeverity.Warning ? 'warn' : 'debug';
          shopifyLog[level](message);
        },
      },
    },
    auth: { path: '/api/auth', callbackPath: '/api/auth/callback' },
    webhooks: { path: '/api/webhooks' },
    sessionStorage,
    future: { expiringOfflineAccessTokens: true, tokenExchange: true },
    hooks: { afterAuth: ({ session }) => afterAuth(session) },
  }) as unknown as Shopify;
}
