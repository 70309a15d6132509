// /api/* authentication and CORS.
//
// The embedded pages and the order block send App Bridge session tokens
// (`Authorization: Bearer <JWT>`). shopify-app-express checks the token
// (signature with the API secret, audience, expiry) and loads the shop's
// offline session; with none (Shopify-managed installation, first open) or an
// expired one it exchanges the session token for a new offline token (token
// exchange, web/shopify/app.ts). The shop it names is the only shop a request
// can read or change (res.locals.shop).
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
      res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, X-Shopify-API-Request-Failure-Reauthorize, X-Shopify-API-Request-Failure-Reauthorize-Url');
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
    shopify.validateAuthenticatedSession(),
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
