// Development only (SHOP_SIMULATOR_URL; refused in production by web/config/env.ts):
// send the app's HTTPS traffic for *.myshopify.com to the local shop simulator.
//
// One undici global dispatcher covers both HTTP stacks the app uses: undici.request
// (web/shopify/admin-api.ts) and Node's own global fetch (@shopify/shopify-api's
// OAuth token exchange and its GraphQL client). Both look the dispatcher up per
// request under Symbol.for('undici.globalDispatcher.1'), which undici's
// setGlobalDispatcher sets. Requests keep their path and carry
// `Host: <shop>.myshopify.com`, so the simulator knows the shop; every other
// request goes to the dispatcher that was installed before, untouched.
import { Agent, Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import type { AppConfig } from '../../web/config/env.ts';
import type { Logger } from '../../web/ops/logger.ts';

const SHOPIFY_SHOP_HOST = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/i;

type Headers = Dispatcher.DispatchOptions['headers'];

/** The request headers as a plain object, with any Host replaced by `host`. */
export function withHostHeader(headers: Headers, host: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const put = (k: string, v: unknown) => {
    if (k.toLowerCase() === 'host' || v === undefined || v === null) return;
    const prev = out[k];
    const value = Array.isArray(v) ? v.map(String) : String(v);
    out[k] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(value) ? value : [value])];
  };
  if (Array.isArray(headers)) {
    // Either a flat [name, value, name, value, ...] list or a list of pairs.
    if (headers.length && Array.isArray(headers[0])) for (const [k, v] of headers as unknown as Array<[string, string]>) put(k, v);
    else for (let i = 0; i + 1 < headers.length; i += 2) put(String(headers[i]), headers[i + 1]);
  } else if (headers && typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string]>) put(k, v);
  } else if (headers) {
    for (const [k, v] of Object.entries(headers)) put(k, v);
  }
  out.host = host;
  return out;
}

export class ShopSimulatorDispatcher extends Dispatcher {
  readonly simulatorUrl: string;
  /** The dispatcher that was global before: everything not for *.myshopify.com goes there. */
  readonly passthrough: Dispatcher;
  readonly #simOrigin: string;
  readonly #agent = new Agent({ keepAliveTimeout: 4_000 });
  readonly #log: Logger;

  constructor(simulatorUrl: string, passthrough: Dispatcher, log: Logger) {
    super();
    const u = new URL(simulatorUrl);
    if (u.protocol !== 'http:') throw new Error(`shop simulator URL must be http://, got ${simulatorUrl}`);
    this.simulatorUrl = simulatorUrl;
    this.#simOrigin = u.origin;
    this.passthrough = passthrough;
    this.#log = log;
  }

  /** The shop's domain when the request is for https://<shop>.myshopify.com, else null. */
  static shopOf(origin: Dispatcher.DispatchOptions['origin']): string | null {
    if (!origin) return null;
    let u: URL;
    try {
      u = typeof origin === 'string' ? new URL(origin) : origin;
    } catch {
      return null;
    }
    return u.protocol === 'https:' && SHOPIFY_SHOP_HOST.test(u.hostname) ? u.hostname.toLowerCase() : null;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const shop = ShopSimulatorDispatcher.shopOf(opts.origin);
    if (!shop) return this.passthrough.dispatch(opts, handler);
    this.#log.debug({ shop, method: opts.method, path: opts.path?.split('?')[0] }, 'shopify request routed to the shop simulator');
    return this.#agent.dispatch({ ...opts, origin: this.#simOrigin, headers: withHostHeader(opts.headers, shop) }, handler);
  }

  // Closes only what this dispatcher owns; the passthrough belongs to whoever created it.
  override close(...args: any[]): any {
    return (this.#agent.close as (...a: any[]) => any)(...args);
  }

  override destroy(...args: any[]): any {
    return (this.#agent.destroy as (...a: any[]) => any)(...args);
  }
}

/**
 * Routes https://*.myshopify.com to the simulator for the whole process. Calling
 * it again replaces the target (it never stacks routers).
 */
export function installShopifyRouting(simulatorUrl: string, log: Logger): void {
  const current = getGlobalDispatcher() as Dispatcher;
  const passthrough = current instanceof ShopSimulatorDispatcher ? current.passthrough : current;
  setGlobalDispatcher(new ShopSimulatorDispatcher(simulatorUrl, passthrough, log));
  if (current instanceof ShopSimulatorDispatcher) void current.close().catch(() => {});
  log.debug({ simulatorUrl }, 'https://*.myshopify.com requests are routed to the shop simulator');
}

/**
 * What the development entry point (dev/start.ts) and in-process tests do before
 * starting the app: route Shopify traffic to the simulator when the app's
 * configuration names one (SHOP_SIMULATOR_URL), and say so in the log.
 */
export function routeToShopSimulator(config: Pick<AppConfig, 'shopSimulatorUrl'>, log: Logger): boolean {
  if (!config.shopSimulatorUrl) return false;
  log.warn({ shopSimulatorUrl: config.shopSimulatorUrl }, 'SHOP_SIMULATOR_URL is set: Shopify traffic for *.myshopify.com goes to the local shop simulator, not Shopify (development only)');
  installShopifyRouting(config.shopSimulatorUrl, log);
  // Read by web/server.ts, which warns when the variable is set but nothing routed it.
  (globalThis as Record<symbol, unknown>)[Symbol.for('same-day-dispatch.shopSimulatorRouted')] = config.shopSimulatorUrl;
  return true;
}
