// web/ops/bare-http.ts on a real HTTP server: it serves a Content-Length body within the limit (the
// route's answer, the security headers, the request id, one access line with the request's fields)
// and declines, untouched, what Express must answer (chunked, compressed, too large).
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareJsonPost } from '../../web/ops/bare-http.ts';
import { createLogger } from '../../web/ops/logger.ts';
import { securityHeaders } from '../../web/ops/security-headers.ts';

const lines: Array<Record<string, unknown>> = [];
const log = createLogger({ level: 'debug', destination: new Writable({ write(c, _e, cb) { lines.push(JSON.parse(String(c))); cb(); } }) });
let base: string;
let close: () => void;

beforeAll(async () => {
  const bare = bareJsonPost({
    log,
    limitBytes: 64,
    securityHeaders: securityHeaders({ production: false, hstsIncludeSubDomains: false }),
    handle: async (raw, header, reqLog) => {
      if (raw.toString() === 'throw') throw new Error('boom');
      if (raw.toString() === 'talk') reqLog().info('route line');
      return { status: raw.length ? 201 : 422, body: { got: raw.toString(), topic: header('x-topic') ?? null } };
    },
  });
  const server = createServer((req, res) => {
    if (!bare(req, res)) res.end('declined');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

function send(body: string, opts: { chunked?: boolean; headers?: Record<string, string> } = {}) {
  lines.length = 0;
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const headers = { 'x-topic': 'orders/paid', 'x-shopify-shop-domain': 'bare.myshopify.com', ...(opts.chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...opts.headers };
    const req = request(`${base}/hook?x=1`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (opts.chunked) req.write(body.slice(0, 2));
    req.end(opts.chunked ? body.slice(2) : body);
  });
}

describe('a JSON POST answered before Express', () => {
  it("serves a Content-Length body: the route's status and JSON, security headers, the request id, one access line", async () => {
    const r = await send('hello', { headers: { 'x-request-id': 'req-7' } });
    expect(r).toMatchObject({ status: 201, text: JSON.stringify({ got: 'hello', topic: 'orders/paid' }) });
    expect(r.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-7', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', method: 'POST', path: '/hook', status: 201, reqId: 'req-7', shop: 'bare.myshopify.com' })]);
  });

  it("the route's own lines and the access line share the request's fields; an empty body is the route's to judge", async () => {
    await send('talk', { headers: { 'x-request-id': 'req-8' } });
    expect(lines.map((l) => [l.msg, l.reqId, l.shop])).toEqual([['route line', 'req-8', 'bare.myshopify.com'], ['request', 'req-8', 'bare.myshopify.com']]);
    expect((await send('')).status).toBe(422);
  });

  it('a route that throws gets a 500 with no detail, logged as an error', async () => {
    const r = await send('throw');
    expect(r).toMatchObject({ status: 500, text: JSON.stringify({ error: 'internal error' }) });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([['error', 'unhandled error'], ['error', 'request']]);
  });

  it('declines, for Express, a chunked body, a compressed one and one over the limit', async () => {
    expect((await send('hello', { chunked: true })).text).toBe('declined');
    expect((await send('hello', { headers: { 'content-encoding': 'gzip' } })).text).toBe('declined');
    expect((await send('x'.repeat(65))).text).toBe('declined');
    expect((await send('x'.repeat(64))).status).toBe(201);
    expect((await send('hello', { headers: { 'content-encoding': 'identity' } })).status).toBe(201);
  });
});
