// The sandbox's router alone on a real HTTP server, over a state it is handed: what HTTP
// does to the state and what the state's replies look like on the wire.
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { DEFAULT_SANDBOX_APP, DEFAULT_SANDBOX_SETTINGS } from '../../dev/sandbox/model.ts';
import { sandboxRouter } from '../../dev/sandbox/router.ts';
import { SandboxState } from '../../dev/sandbox/state.ts';
import { WebhookSender } from '../../dev/sandbox/webhooks.ts';
import { listenOnLoopback, type Listening } from '../support/listen.ts';

let server: Listening;
let url: string;
let reschedules = 0;
const state = new SandboxState({ settings: { ...DEFAULT_SANDBOX_SETTINGS }, apps: [DEFAULT_SANDBOX_APP], now: Date.now, emit: (e) => sender.emit(e) });
const sender = new WebhookSender(() => state.settings, () => state.now());

beforeAll(async () => {
  const app = express();
  app.use(sandboxRouter({ state, sender, url: () => url, reschedule: () => void reschedules++ }));
  server = await listenOnLoopback(app);
  url = server.url;
});
afterAll(async () => {
  await sender.close();
  await server.close();
});

describe('sandboxRouter', () => {
  it('answers API requests from the state, with a request id, and logs them', async () => {
    const res = await request(`${url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${DEFAULT_SANDBOX_APP.clientId}&client_secret=${DEFAULT_SANDBOX_APP.clientSecret}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(state.tokens.has(((await res.body.json()) as { access_token: string }).access_token)).toBe(true);
    const wrong = await request(`${url}/v1/orders/x`, { method: 'DELETE' });
    expect(wrong.statusCode).toBe(405);
    expect(((await wrong.body.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    expect(state.requestLog.map((r) => [r.route, r.status])).toEqual([['token', 200], ['unknown', 405]]);
  });

  it('applies control changes to the state, rejecting bad input with the field named', async () => {
    const patch = (body: unknown) => request(`${url}/_sandbox/settings`, { method: 'PATCH', body: JSON.stringify(body) }).then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any }));
    expect(await patch({ stepIntervalMs: 5 })).toMatchObject({ status: 200, body: { stepIntervalMs: 5 } });
    expect(state.settings.stepIntervalMs).toBe(5);
    expect(reschedules).toBe(1);
    const bad = await patch({ latencyMs: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^latencyMs: /);
    const faults = await request(`${url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify([{ route: 'create', type: 'drop' }, { route: 'nowhere', type: 'drop' }]) });
    expect(faults.statusCode).toBe(400);
    expect(state.faults).toEqual([]); // nothing added half-way
  });
});
