// Per-request context: a request id (honouring X-Request-Id), a child logger on
// res.locals.log carrying it and the shop (made when first used), and one access-log line per request.
// The path is logged with its mount prefix (req.originalUrl), without the query
// string: OAuth callbacks carry codes in it. A route may set res.locals.accessLogLevel
// when a status is expected (a /readyz 503 during start-up is not an error; a flood
// of refused courier webhooks is summarised elsewhere), and res.locals.accessLogFields to say
// what the request did on the same line (a stored courier webhook: one line, not two).
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from './logger.ts';

export type AccessLogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * One request's id, its logger bindings and its access line, whatever serves it (Express, or a
 * route answered before Express: web/ops/bare-http.ts). The child logger is made on first use:
 * most requests (webhook intake) log only the access line, and a child costs the redaction and
 * serialisation of its bindings.
 */
export function startRequest(log: Logger, get: (header: string) => string | undefined, queryShop?: string) {
  const incoming = get('x-request-id');
  const reqId = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
  const shop = get('x-shopify-shop-domain') ?? queryShop;
  const webhookId = get('x-shopify-webhook-id') ?? get('x-service-event-id') ?? undefined;
  const bindings = { reqId, ...(shop ? { shop } : {}), ...(webhookId ? { webhookId } : {}) };
  let child: Logger | undefined;
  const started = process.hrtime.bigint();
  return {
    reqId,
    log: (): Logger => (child ??= log.child(bindings)),
    /** The access line: `level` when the route set one, else by status; `fields` the route's own. */
    finish(method: string, path: string, status: number, level?: AccessLogLevel, fields?: Record<string, unknown>) {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const lvl: AccessLogLevel = level ?? (status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info');
      const line = { ...fields, method, path, status, ms: Math.round(ms * 10) / 10 };
      if (child) child[lvl](line, 'request');
      else log[lvl]({ ...bindings, ...line }, 'request');
    },
  };
}

export function requestContext(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const r = startRequest(log, (h) => req.get(h), typeof req.query.shop === 'string' ? req.query.shop : undefined);
    // A route may replace the logger (auth adds the shop).
    let replaced: Logger | undefined;
    Object.defineProperty(res.locals, 'log', {
      configurable: true,
      enumerable: true,
      get: () => replaced ?? r.log(),
      set: (v: Logger) => void (replaced = v),
    });
    res.setHeader('X-Request-Id', r.reqId);
    res.on('finish', () => {
      // A route whose path is a credential (the tracking page's token) logs a masked one.
      r.finish(req.method, res.locals.logPath ?? req.originalUrl.split('?')[0], res.statusCode, res.locals.accessLogLevel, res.locals.accessLogFields);
    });
    next();
  };
}

/** JSON 404 and error responses; never a stack trace to the client. */
export function notFound(_req: Request, res: Response) {
  res.status(404).json({ error: 'not found' });
}

export function errorHandler(err: any, _req: Request, res: Response, _next: NextFunction) {
  const status = Number.isInteger(err?.status) && err.status >= 400 && err.status < 600 ? err.status : 500;
  const log: Logger | undefined = res.locals.log;
  if (status >= 500) log?.error({ err }, 'unhandled error');
  if (res.headersSent) return;
  const message =
    err?.type === 'entity.too.large' ? 'request body is too large'
    : err?.type === 'entity.parse.failed' ? 'body is not valid JSON'
    : status >= 500 ? 'internal error' : String(err?.message ?? 'bad request');
  res.status(status).json({ error: message });
}
