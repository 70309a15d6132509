// /api/* authentication and CORS.
//
// The embedded pages and the order block send App Bridge session tokens
// (`Authorization: Bearer <JWT>`). shopify-app-express checks the token
// (signature with the API secret, audience, expiry) and loads the shop's
// offline session; with none (Shopify-managed installation, first open) or an
// expired one it exchanges the session token for a new offline token (token
// exchange, web/shopify/app.ts). The shop it names is the only shop a request
// can read or change (res.locals.shop).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Shopify } from '../shopify/app.ts';

/** Where admin UI extensions run; they call the backend with fetch. */
export const EXTENSION_ORIGINS = ['https://extensions.shopifycdn.com'];

/** CORS for the admin extension's origin. Preflights end here, before authentication. */
export function cors(allowed: readonly string[] = EXTENSION_ORIGINS): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    res.vary('Origin');
    if (origin && allowed.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, X-Shopify-API-Request-Failure-Reauthorize, X-Shopify-API-Request-Failure-Reauthorize-Url, X-Shopify-Retry-Invalid-Session-Request');
    }
    if (req.method === 'OPTIONS') {
      if (origin && allowed.includes(origin)) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Request-Id');
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.status(204).end();
      return;
    }
    next();
  };
}

export interface AuthedLocals {
  shop: string;
}

/** The shop of an authenticated /api request. */
export function shopOf(res: Response): string {
  const shop = (res.locals as Partial<AuthedLocals>).shop;
  if (!shop) throw new Error('shopOf() outside an authenticated route');
  return shop;
}

export function requireSessionToken(shopify: Shopify): RequestHandler[] {
  return [
    // Without a bearer token the library would redirect to OAuth; an API answers 401.
    (req: Request, res: Response, next: NextFunction) => {
      if (!/^Bearer \S+$/.test(req.get('authorization') ?? '')) {
        res.status(401).json({ error: 'missing session token: send Authorization: Bearer <App Bridge session token>' });
        return;
      }
      next();
    },
    checkSessionToken(shopify),
    validateSession(shopify),
    (_req: Request, res: Response, next: NextFunction) => {
      const shop: string | undefined = res.locals.shopify?.session?.shop;
      if (!shop) {
        res.status(401).json({ error: 'no session for this token' });
        return;
      }
      res.locals.shop = shop;
      if (res.locals.log) res.locals.log = res.locals.log.child({ shop });
      next();
    },
  ];
}

/** The shop a session token claim names (`https://x.myshopify.com/admin`, or a bare host, → x.myshopify.com). */
function shopOfClaim(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  try {
    return new URL(/^https?:\/\//i.test(v) ? v : `https://${v}`).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * Our own check of the session token before the library's: a bad token gets a
 * JSON 401 (the library answers with its error text as text/html), is logged
 * only by fingerprint, and a token whose `iss` and `dest` name different shops
 * is refused (the library takes the shop from `dest` alone).
 */
function checkSessionToken(shopify: Shopify): RequestHandler {
  return async (req, res, next) => {
    const token = (req.get('authorization') ?? '').replace(/^Bearer /, '');
    const fingerprint = createHash('sha256').update(token).digest('hex').slice(0, 12);
    let problem: string;
    try {
      const payload = await shopify.api.session.decodeSessionToken(token);
      const iss = shopOfClaim(payload.iss);
      if (iss !== shopOfClaim(payload.dest)) problem = 'the session token iss and dest name different shops';
      // Token exchange would throw on it (a 500 in the library): say what is wrong instead.
      else if (!iss || !shopify.api.utils.sanitizeShop(iss)) problem = 'the session token dest is not a *.myshopify.com shop';
      else return next();
    } catch (e) {
      // The library's message may quote the token: keep only its class and a short, token-free text.
      problem = `invalid session token (${String((e as Error)?.message ?? e).split(token).join('[token]').slice(0, 120)})`;
    }
    res.locals.log?.warn({ tokenFingerprint: fingerprint, problem }, 'session token refused');
    const invalid = problem.startsWith('invalid');
    // As the library does: App Bridge fetches a fresh token and repeats the request (an expired token, say).
    if (invalid) res.setHeader('X-Shopify-Retry-Invalid-Session-Request', '1');
    res.status(401).json({ error: invalid ? 'invalid session token' : problem });
  };
}

/** How a failed token exchange is answered: never the library's plain-text 500. */
export interface ExchangeFailure {
  status: 401 | 502 | 503;
  error: string;
  /** App Bridge fetches a fresh session token and repeats the request. */
  retryRequest?: boolean;
  retryAfterSeconds?: number;
}

/**
 * The token's content (401), Shopify unreachable or overloaded (503, try again), or
 * Shopify refusing the app itself (502: our configuration, not the merchant's request).
 */
export function exchangeFailure(e: unknown): ExchangeFailure {
  // By class name: the library may hold its own copy of @shopify/shopify-api (CommonJS), so instanceof fails.
  const kind = (e as object | null)?.constructor?.name ?? '';
  if (kind === 'InvalidShopError') return { status: 401, error: 'the session token dest is not a *.myshopify.com shop' };
  if (kind === 'InvalidJwtError') return { status: 401, error: 'invalid session token', retryRequest: true };
  const response = (e as { response?: { code?: unknown; body?: unknown } } | null)?.response;
  if (response && typeof response.code === 'number') {
    const { code, body } = response;
    const oauthError = typeof (body as { error?: unknown } | undefined)?.error === 'string' ? (body as { error: string }).error.slice(0, 64) : null;
    if (code === 400 && oauthError === 'invalid_subject_token') return { status: 401, error: 'Shopify refused the session token (invalid_subject_token)', retryRequest: true };
    if (code === 401) return { status: 401, error: 'Shopify refused the session token (HTTP 401)' };
    if (code === 429 || code >= 500) return { status: 503, error: `Shopify could not exchange the session token (HTTP ${code}); try again shortly`, retryAfterSeconds: 5 };
    return { status: 502, error: `Shopify refused the token exchange (HTTP ${code}${oauthError ? ` ${oauthError}` : ''})` };
  }
  // No usable answer (connection refused, DNS, timeout, retries used up, not JSON): the network, not the request.
  return { status: 503, error: 'Shopify could not be reached to exchange the session token; try again shortly', retryAfterSeconds: 5 };
}

// The library answers every token-exchange failure itself (plain text, a 500 for most):
// the failure is recorded per request here and the library's answer replaced by ours.
const exchangeAttempts = new AsyncLocalStorage<{ error?: unknown }>();
const recording = new WeakSet<object>();

function validateSession(shopify: Shopify): RequestHandler {
  const auth = shopify.api.auth;
  if (!recording.has(auth)) {
    recording.add(auth);
    const exchange = auth.tokenExchange;
    auth.tokenExchange = async (params) => {
      try {
        return await exchange(params);
      } catch (e) {
        const attempt = exchangeAttempts.getStore();
        if (attempt) attempt.error = e;
        throw e;
      }
    };
  }
  const validate = shopify.validateAuthenticatedSession();
  return (req, res, next) => {
    const attempt: { error?: unknown } = {};
    const send = res.send;
    res.send = function (this: Response, body?: unknown) {
      res.send = send;
      if (attempt.error === undefined || res.statusCode < 400) return send.call(this, body);
      const f = exchangeFailure(attempt.error);
      const message = String((attempt.error as Error)?.message ?? attempt.error).split((req.get('authorization') ?? '').replace(/^Bearer /, '') || '\0').join('[token]');
      res.locals.log?.warn({ status: f.status, err: message.slice(0, 200) }, 'token exchange failed');
      if (f.retryRequest) res.setHeader('X-Shopify-Retry-Invalid-Session-Request', '1');
      else res.removeHeader('X-Shopify-Retry-Invalid-Session-Request');
      if (f.retryAfterSeconds) res.setHeader('Retry-After', String(f.retryAfterSeconds));
      return res.status(f.status).json({ error: f.error });
    } as Response['send'];
    void exchangeAttempts.run(attempt, () =>
      validate(req, res, (err?: unknown) => {
        res.send = send;
        next(err);
      }),
    );
  };
}

/** GET /api/auth: a missing or invalid `shop` is the caller's mistake (400), not a crash. */
export function requireShopParam(shopify: Shopify): RequestHandler {
  return (req, res, next) => {
    const shop = req.query.shop;
    if (typeof shop === 'string' && shopify.api.utils.sanitizeShop(shop)) return next();
    res.status(400).json({ error: 'invalid shop', errors: { shop: 'expected a shop domain like my-store.myshopify.com' } });
  };
}
