// web/ops/http.ts requestContext on a real HTTP server: the access-log line and the per-request
// logger carry the request id, the shop and the webhook id, whether or not the route logged.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestContext } from '../../web/ops/http.ts';
import { createLogger, type Logger } from '../../web/ops/logger.ts';

const lines: Array<Record<string, unknown>> = [];
const log = createLogger({ level: 'debug', destination: new Writable({ write(c, _e, cb) { lines.push(JSON.parse(String(c))); cb(); } }) });
let base: string;
let close: () => void;

beforeAll(async () => {
  const app = express()
    .use(requestContext(log))
    .post('/quiet', (_req, res) => void res.json({ ok: true }))
    .post('/talks', (_req, res) => {
      (res.locals.log as Logger).info({ step: 1 }, 'route line');
      res.json({ ok: true });
    })
    .post('/replaces', (_req, res) => {
      res.locals.log = (res.locals.log as Logger).child({ scope: 'auth' });
      (res.locals.log as Logger).info('replaced line');
      res.json({ ok: true });
    });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

async function post(path: string, requestId: string) {
  lines.length = 0;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-request-id': requestId, 'x-shopify-shop-domain': 'ctx.myshopify.com', 'x-shopify-webhook-id': 'wh-ctx-1' } });
  expect(res.headers.get('x-request-id')).toBe(requestId);
  await res.text();
  await new Promise((r) => setImmediate(r)); // the access line is written on 'finish'
  return lines;
}

const who = { shop: 'ctx.myshopify.com', webhookId: 'wh-ctx-1' };

describe('requestContext', () => {
  it('writes one access line with the request id, shop and webhook id for a route that logs nothing', async () => {
    const out = await post('/quiet', 'req-quiet');
    expect(out).toEqual([expect.objectContaining({ msg: 'request', reqId: 'req-quiet', ...who, method: 'POST', path: '/quiet', status: 200, level: 'info' })]);
  });

  it("gives a route's own lines the same fields", async () => {
    const out = await post('/talks', 'req-talks');
    expect(out).toEqual([
      expect.objectContaining({ msg: 'route line', reqId: 'req-talks', ...who, step: 1 }),
      expect.objectContaining({ msg: 'request', reqId: 'req-talks', ...who, status: 200 }),
    ]);
  });

  it('lets a route replace its logger (the access line keeps the request fields only)', async () => {
    const out = await post('/replaces', 'req-replaced');
    expect(out[0]).toMatchObject({ msg: 'replaced line', reqId: 'req-replaced', ...who, scope: 'auth' });
    expect(out[1]).toMatchObject({ msg: 'request', reqId: 'req-replaced', ...who, status: 200 });
    expect(out[1]).not.toHaveProperty('scope');
    expect(out).toHaveLength(2);
  });
});
