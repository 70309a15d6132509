// One realistic set-up for integration tests: the real sandbox courier on
// 127.0.0.1, the real app in-process over a fresh database, Shopify's servers
// faked with MockAgent + simulated shops, and a shop installed through the
// same code paths as production (session storage, settings store).
import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandboxCourier, type RunningSandbox, type SandboxOptions } from '../../dev/sandbox/courier.ts';
import { SandboxControl } from '../../dev/sandbox/control.ts';
import { updateEnvironment, updateSettings } from '../../web/settings/store.ts';
import { recordInstall } from '../../web/webhooks/lifecycle.ts';
import type { RuntimeOptions } from '../../web/runtime.ts';
import type { SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { startTestApp, type TestApp } from './app.ts';
import { paidOrder, orderIdOfPayload, type OrderPayload } from './orders.ts';
import { postShopifyWebhook } from './shopify.ts';
import { fakeShopify, type FakeShopify } from './shopify-admin.ts';
import { waitFor } from './process.ts';

export const SANDBOX_CLIENT = { clientId: 'sandbox-client-id', clientSecret: 'sandbox-client-secret' };
export const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef';

export interface Scenario {
  app: TestApp;
  sandbox: RunningSandbox;
  courier: SandboxControl;
  shopify: FakeShopify;
  close(): Promise<void>;
}

/**
 * A test file's scenario: started once, closed after the file, the sandbox courier reset before
 * each test. `use` receives the started scenario (keep it in the file's `s`).
 */
export function useScenario(use: (s: Scenario) => void, opts: Parameters<typeof startScenario>[0] = {}): void {
  let started: Scenario | undefined;
  beforeAll(async () => {
    started = await startScenario(opts);
    use(started);
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(async () => {
    await started!.courier.reset();
  });
}

export async function startScenario(opts: { sandbox?: SandboxOptions; runtime?: Partial<RuntimeOptions>; env?: Record<string, string>; databaseUrl?: string } = {}): Promise<Scenario> {
  const shopify = fakeShopify();
  const sandbox = await startSandboxCourier({ stepIntervalMs: 0, webhooksEnabled: false, ...opts.sandbox });
  const app = await startTestApp({ COURIER_TEST_BASE_URL: sandbox.url, ...opts.env }, { runtime: opts.runtime, databaseUrl: opts.databaseUrl, keepDatabase: !!opts.databaseUrl });
  return {
    app,
    sandbox,
    courier: new SandboxControl(sandbox.url),
    shopify,
    async close() {
      await app.close();
      await sandbox.close();
      await shopify.restore();
    },
  };
}

/** What OAuth leaves behind: the offline session and the Shop row; nothing configured. */
export async function installSession(s: Scenario, domain: string, app: TestApp = s.app): Promise<SimShop> {
  const sim = s.shopify.shop(domain);
  const { shopify } = app.server.services()!;
  const session = new Session({ id: shopify.api.session.getOfflineId(domain), shop: domain, state: 'installed', isOnline: false, accessToken: sim.accessToken, scope: shopify.api.config.scopes?.toString() });
  await shopify.config.sessionStorage.storeSession(session);
  await recordInstall(app.db, session);
  return sim;
}

/** Installs a shop and configures it for the sandbox courier: test environment, auto-dispatch on. */
export async function installShop(s: Scenario, domain: string, opts: { settings?: Record<string, unknown>; environment?: Record<string, unknown>; app?: TestApp } = {}): Promise<SimShop> {
  const app = opts.app ?? s.app;
  const sim = await installSession(s, domain, app);
  const { box } = app.server.services()!;
  await updateSettings(app.db, domain, { autoDispatch: true, ...opts.settings });
  await updateEnvironment(app.db, box, domain, 'test', {
    clientId: SANDBOX_CLIENT.clientId,
    clientSecret: SANDBOX_CLIENT.clientSecret,
    pickupStoreId: 'store_sandbox_001',
    webhookSecret: WEBHOOK_SECRET,
    ...opts.environment,
  });
  return sim;
}

/** Shopify holds the order; then it sends orders/paid. Returns the Shopify order id. */
export async function placeOrder(s: Scenario, sim: SimShop, changes: OrderPayload = {}, opts: { webhookId?: string; appUrl?: string } = {}): Promise<{ orderId: string; payload: OrderPayload }> {
  const payload = paidOrder(changes);
  sim.addOrder(payload);
  const r = await postShopifyWebhook(opts.appUrl ?? s.app.url, 'orders/paid', sim.domain, payload, { webhookId: opts.webhookId });
  if (r.status !== 200) throw new Error(`orders/paid answered ${r.status}: ${JSON.stringify(r.body)}`);
  return { orderId: orderIdOfPayload(payload), payload };
}

export async function deliveryOf(app: TestApp, domain: string, orderId: string) {
  return app.db.delivery.findFirst({ where: { shop: { domain }, shopifyOrderId: orderId }, include: { events: true } });
}

export async function waitForStatus(app: TestApp, domain: string, orderId: string, status: string | string[], timeoutMs = 20_000) {
  const wanted = Array.isArray(status) ? status : [status];
  return waitFor(async () => {
    const d = await deliveryOf(app, domain, orderId);
    return d && wanted.includes(d.status) ? d : null;
  }, `delivery of order ${orderId} to reach ${wanted.join('/')}`, timeoutMs);
}

/**
 * Gives the shop its own courier account in the sandbox (client id/secret,
 * stores, webhook URL = the shop's endpoint for the test environment, signed
 * with the shop's webhook secret), as a merchant would set up in the portal.
 */
export async function connectCourierAccount(s: Scenario, domain: string, opts: { app?: TestApp; webhookSecret?: string } = {}) {
  const app = opts.app ?? s.app;
  const shop = await app.db.shop.findUniqueOrThrow({ where: { domain }, include: { environments: true } });
  const env = shop.environments.find((e) => e.environment === 'test')!;
  const clientId = `client-${domain.split('.')[0]}`;
  const clientSecret = `secret-${domain.split('.')[0]}-0123456789`;
  await s.courier.putApp(clientId, {
    clientSecret,
    storeIds: ['store_sandbox_001', 'store_sandbox_002'],
    webhook: { url: `${app.url}/webhooks/delivery/${env.endpointId}`, secret: opts.webhookSecret ?? WEBHOOK_SECRET },
  });
  await updateEnvironment(app.db, app.server.services()!.box, domain, 'test', { clientId, clientSecret });
  return { clientId, endpointId: env.endpointId, endpointUrl: `${app.url}/webhooks/delivery/${env.endpointId}` };
}
