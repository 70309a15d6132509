// Shopify's servers are the one thing we cannot run: tests intercept the app's
// HTTPS calls to *.myshopify.com with undici's MockAgent and answer them from
// in-memory simulated shops (web/shop-sim/admin-graphql.ts). Everything else
// (the sandbox courier, the app itself on 127.0.0.1) passes through to the real network.
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher, type Dispatcher } from 'undici';
import { handleAdminGraphql, SimShop } from '../../web/shop-sim/admin-graphql.ts';

export interface FakeShopify {
  agent: MockAgent;
  shop(domain: string): SimShop;
  restore(): Promise<void>;
}

export function fakeShopify(): FakeShopify {
  const previous: Dispatcher = getGlobalDispatcher();
  const agent = new MockAgent();
  agent.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
  setGlobalDispatcher(agent);
  const shops = new Map<string, SimShop>();
  return {
    agent,
    shop(domain: string) {
      let s = shops.get(domain);
      if (!s) {
        s = new SimShop(domain, `shpat_test_${domain.split('.')[0]}_token`);
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
            return { statusCode: r.status, data: JSON.stringify(r.body), responseOptions: { headers: { 'content-type': 'application/json' } } };
          })
          .persist();
      }
      return s;
    },
    async restore() {
      setGlobalDispatcher(previous);
      await agent.close();
    },
  };
}
