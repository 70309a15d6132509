// The shop simulator's HTTP side as an Express router: the Shopify-facing routes
//   POST /admin/api/<version>/graphql.json   Admin GraphQL (admin-graphql.ts)
//   POST /admin/oauth/access_token           token exchange (App Bridge session token → offline or
//                                            online access token) and refresh_token
// and the /_sim control API (control-routes.ts; loopback clients only). HTTP in and out only.
//
// The shop is the request's Host (the app's routed traffic arrives with
// `Host: <shop>.myshopify.com`, see route.ts), an `x-shop-domain` header, or a
// `/shops/<shop>` path prefix (for tools and browsers).
import type http from 'node:http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { normalizeShop } from './auth.ts';
import { controlRoutes, isReply, CONTROL_API_SUMMARY, type ControlRoute, type Deliver } from './control-routes.ts';
import { HttpError, parseJson } from './errors.ts';
import type { ShopWebhookSender } from './sender.ts';
import { accessToken, graphql, type Reply } from './shopify-api.ts';
import { deliveryView, SHOP_DOMAIN, type SimState } from './state.ts';

const MAX_BODY = 2 * 1024 * 1024;

export interface ShopSimRouterDeps {
  state: SimState;
  sender: ShopWebhookSender;
  /** The simulator's own URL. */
  url: () => string;
}

export function shopSimRouter({ state, sender, url: selfUrl }: ShopSimRouterDeps): Router {
  const deliver: Deliver = async (shop, topic, payload, o = {}) => {
    const d = state.recordDelivery(shop, topic, payload, o);
    const first = sender.send(d);
    if (o.wait !== false) await first;
    return deliveryView(d);
  };
  const routes = controlRoutes(state, deliver, { selfUrl, cancelRetries: () => sender.cancelRetries() });
  const router = express.Router();
  router.use((req, res, next) => {
    handle(state, routes, selfUrl, req, res).catch(next);
  });
  router.use((e: unknown, _req: Request, res: Response, _next: NextFunction) => {
    state.log?.error({ err: e }, 'shop simulator request failed');
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'internal error' }));
  });
  return router;
}

async function handle(state: SimState, routes: ControlRoute[], selfUrl: () => string, req: Request, res: Response): Promise<void> {
  const url = new URL(req.originalUrl, 'http://shop-sim.local');
  let reply: Reply;
  try {
    const raw = await readBody(req);
    if (url.pathname === '/_sim' || url.pathname.startsWith('/_sim/')) reply = await control(routes, req, url, raw);
    else {
      const { shop, path } = shopFor(req, url.pathname);
      const graphqlPath = /^\/admin\/api\/([\w-]+)\/graphql\.json$/.exec(path);
      const tokenPath = path === '/admin/oauth/access_token';
      if (path === '/' && !shop) {
        reply = { status: 200, body: { service: 'shop simulator', control: `${selfUrl()}/_sim/state`, shops: [...state.shops.keys()] } };
      } else if (!graphqlPath && !tokenPath) {
        reply = { status: 404, body: { errors: `Not Found: the simulator serves POST /admin/api/<version>/graphql.json, POST /admin/oauth/access_token and /_sim/*; got ${req.method} ${path}` } };
      } else if (!shop) {
        reply = { status: 400, body: { errors: 'Which shop? Send Host: <shop>.myshopify.com, an x-shop-domain header, or use the /shops/<shop>/... path prefix' } };
      } else if (graphqlPath) {
        const token = req.headers['x-shopify-access-token'];
        reply = req.method === 'POST' ? graphql(state, state.getShop(shop), Array.isArray(token) ? token[0] : token, raw) : { status: 405, body: { errors: 'Admin GraphQL takes POST' } };
      } else {
        reply = req.method === 'POST'
          ? accessToken(state, state.getShop(shop), String(req.headers['content-type'] ?? ''), raw, url.searchParams)
          : { status: 405, body: { error: 'invalid_request', error_description: 'access_token takes POST' } };
      }
    }
  } catch (e) {
    const status = e instanceof HttpError ? e.status : 500;
    if (status >= 500) state.log?.error({ err: e }, 'shop simulator error');
    reply = { status, body: { error: status >= 500 ? `internal error: ${(e as Error).message}` : (e as Error).message } };
  }
  if (reply.wait) await reply.wait.catch(() => undefined);
  if (res.headersSent) return;
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string;
  if (reply.text !== undefined) {
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    payload = reply.text;
  } else {
    headers['content-type'] ??= 'application/json; charset=utf-8';
    payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

const isLoopback = (addr: string | undefined) => addr === '127.0.0.1' || addr === '::1' || addr === '::ffff:127.0.0.1';

async function control(routes: ControlRoute[], req: http.IncomingMessage, url: URL, raw: string): Promise<Reply> {
  if (!isLoopback(req.socket.remoteAddress)) return { status: 403, body: { error: 'the control API answers loopback (127.0.0.1) clients only' } };
  const path = url.pathname.slice('/_sim'.length) || '/';
  const method = req.method ?? 'GET';
  const matching = routes.filter(([, re]) => re.test(path));
  if (!matching.length) return { status: 404, body: { error: `no control route ${method} /_sim${path}`, routes: CONTROL_API_SUMMARY } };
  const route = matching.find(([m]) => m === method);
  if (!route) return { status: 405, body: { error: `${method} is not allowed on /_sim${path}; allowed: ${matching.map(([m]) => m).join(', ')}` } };
  const body = method === 'GET' ? {} : parseJson(raw, 'request body');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'request body must be a JSON object');
  const out = await route[2]({ params: route[1].exec(path)!.slice(1), body, url });
  return isReply(out) ? out : { status: 200, body: out };
}

/** The shop a Shopify-facing request is for, and its path without any /shops/<shop> prefix. */
function shopFor(req: http.IncomingMessage, pathname: string): { shop: string | null; path: string } {
  const m = /^\/shops\/([^/]+)(\/.*)$/.exec(pathname);
  if (m) return { shop: normalizeShop(decodeURIComponent(m[1]!)), path: m[2]! };
  const header = req.headers['x-shop-domain'];
  if (typeof header === 'string' && header) return { shop: normalizeShop(header), path: pathname };
  const hostname = String(req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  return { shop: SHOP_DOMAIN.test(hostname) ? hostname : null, path: pathname };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, `request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
