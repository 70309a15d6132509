// Shopify's servers are the one thing we cannot run: tests intercept the app's
// HTTPS calls to *.myshopify.com with undici's MockAgent and answer them from
// in-memory simulated shops (dev/shop-sim/admin-graphql.ts). Everything else
// (the sandbox courier, the app itself on 127.0.0.1) passes through to the real network.
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher, type Dispatcher } from 'undici';
import { handleAdminGraphql, SimShop } from '../../dev/shop-sim/admin-graphql.ts';
import { TOKEN_EXCHANGE_GRANT, verifySessionToken } from '../../dev/shop-sim/server.ts';
import { TEST_API_KEY, TEST_API_SECRET } from './app.ts';

export interface FakeShopify {
  agent: MockAgent;
  /** The shop with the app installed (created on first use). */
  shop(domain: string): SimShop;
  /** A shop without the app: Shopify refuses token exchange for it. */
  notInstalled(domain: string): void;
  restore(): Promise<void>;
}

/** `now`: the clock the shops' Admin API buckets refill by (default: the system clock). */
export function fakeShopify(opts: { now?: () => number } = {}): FakeShopify {
  const previous: Dispatcher = getGlobalDispatcher();
  const agent = new MockAgent();
  agent.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
  setGlobalDispatcher(agent);
  const shops = new Map<string, SimShop>();

  // Token exchange, as Shopify answers it: a shop with the app gets its offline token;
  // a shop without it, or an invalid session token, gets 400 invalid_subject_token.
  function tokenExchange(domain: string, sim: SimShop | null) {
    agent
      .get(`https://${domain}`)
      .intercept({ path: '/admin/oauth/access_token', method: 'POST' })
      .reply((opts) => {
        const body = JSON.parse(String(opts.body)) as Record<string, string>;
        const checked = verifySessionToken(body.subject_token ?? '', { apiKey: TEST_API_KEY, apiSecret: TEST_API_SECRET, shop: domain });
        const json = (statusCode: number, data: unknown) => ({ statusCode, data: JSON.stringify(data), responseOptions: { headers: { 'content-type': 'application/json' } } });
        if (body.grant_type !== TOKEN_EXCHANGE_GRANT || 'error' in checked || !sim) {
          return json(400, { error: 'invalid_subject_token', error_description: 'error' in checked ? checked.error : 'the app is not installed on this shop' });
        }
        return json(200, { access_token: sim.accessToken, scope: 'write_orders', expires_in: 3600, refresh_token: `shprt_fake_${domain}`, refresh_token_expires_in: 7776000 });
      })
      .persist();
  }

  return {
    agent,
    shop(domain: string) {
      let s = shops.get(domain);
      if (!s) {
        s = new SimShop(domain, `shpat_test_${domain.split('.')[0]}_token`, undefined, opts.now);
        shops.set(domain, s);
        const sim = s;
        agent
          .get(`https://${domain}`)
          .intercept({ path: (p: string) => /^\/admin\/api\/[\w-]+\/graphql\.json$/.test(p), method: 'POST' })
          .reply((opts) => {
            const headers = opts.headers as Record<string, string> | string[] | undefined;
            const token = Array.isArray(headers)
              ? headers[headers.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'x-shopify-access-token') + 1]
              : Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'x-shopify-access-token')?.[1];
            const r = handleAdminGraphql(sim, token, JSON.parse(String(opts.body)));
            const data = JSON.stringify(r.body);
            // undici's mock sends a body a function returns once its promise settles (SimShop.answerAfter).
            const held = r.wait && (() => r.wait!.then(() => data, () => data));
            return { statusCode: r.status, data: (held || data) as string, responseOptions: { headers: { 'content-type': 'application/json' } } };
          })
          .persist();
        tokenExchange(domain, sim);
      }
      return s;
    },
    notInstalled(domain: string) {
      tokenExchange(domain, null);
    },
    async restore() {
      setGlobalDispatcher(previous);
      await agent.close();
    },
  };
}
