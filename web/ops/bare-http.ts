// A JSON POST route answered before Express: the webhook intake paths, where Express's router,
// body parser and response helpers cost more CPU than the insert they wrap (issue 24;
// docs/benchmarks.md "A webhook answered before Express"). Same request id, access line
// (startRequest) and security headers as every Express route. It takes only a request it can
// serve exactly as Express would: a Content-Length within the limit and no Content-Encoding;
// anything else (chunked, compressed, too large) is declined and Express answers it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { Logger } from './logger.ts';
import { startRequest, type AccessLogLevel } from './http.ts';

export interface BareAnswer {
  status: number;
  body: object;
  /** The access line's level when a status is expected (web/ops/http.ts). */
  level?: AccessLogLevel;
  /** What the request did, on its access line. */
  fields?: Record<string, unknown>;
}

/** The route: the raw body, a header reader, the request's logger (made when first used), the path. */
export type BareHandler = (raw: Buffer, header: (name: string) => string | undefined, log: () => Logger, path: string) => Promise<BareAnswer>;

/** The same answer through Express, for a request the bare route declined: status, body, access line. */
export function answerOnExpress(res: Response, a: BareAnswer): void {
  if (a.level) res.locals.accessLogLevel = a.level;
  if (a.fields) res.locals.accessLogFields = a.fields;
  res.status(a.status).json(a.body);
}

/** Sets the app's security headers on a response (helmet works on plain Node responses). */
export type HeaderSetter = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** Serves the request and returns true, or returns false (untouched) for Express to serve. */
export function bareJsonPost(opts: { log: Logger; limitBytes: number; securityHeaders: HeaderSetter; handle: BareHandler }) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const length = Number(req.headers['content-length']);
    const encoding = req.headers['content-encoding'];
    if (!Number.isSafeInteger(length) || length > opts.limitBytes || (encoding && encoding !== 'identity')) return false;
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    const r = startRequest(opts.log, header);
    const path = (req.url ?? '').split('?')[0]!;
    const send = (a: BareAnswer) => {
      const body = JSON.stringify(a.body);
      opts.securityHeaders(req, res, () => {});
      res.statusCode = a.status;
      res.setHeader('X-Request-Id', r.reqId);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body);
      r.finish('POST', path, a.status, a.level, a.fields);
    };
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (c: Buffer) => {
      received += c.length;
      chunks.push(c);
    });
    req.on('error', () => {}); // a client gone mid-body: nothing to answer
    req.on('end', () => {
      // As Express's body parser: the body must be exactly the length announced.
      if (received !== length) return send({ status: 400, body: { error: 'request size did not match content length' } });
      opts.handle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received), header, r.log, path).then(send, (e: unknown) => {
        r.log().error({ err: e }, 'unhandled error');
        send({ status: 500, body: { error: 'internal error' } });
      });
    });
    return true;
  };
}
