// The connection-time check: a DeliveryClient on the guarded agent never opens
// a connection to a forbidden address, whatever the name resolved to when the
// URL was saved (DNS rebinding). A real HTTP server on 127.0.0.1 counts the
// connections that arrive (https URLs: the guard acts before TLS, so a
// connection, had it been made, would be counted).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkCourierUrl, courierUrlPolicy, guardedAgent, type LookupAll } from '../../web/delivery/address-policy.ts';
import { CourierConfigError, DeliveryClient } from '../../web/delivery/index.ts';

let server: Server;
let port: number;
let hits = 0;
let connections = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ access_token: 'tok_local', token_type: 'Bearer', expires_in: 3600, scope: 'orders:create' }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  hits = 0;
  connections = 0;
});

/** Answers a public address first (when the URL is saved), then loopback (when it is used). */
function rebinding(): LookupAll {
  let calls = 0;
  return async () => [{ address: calls++ === 0 ? '41.0.0.10' : '127.0.0.1', family: 4 }];
}

const client = (baseUrl: string, dispatcher?: ReturnType<typeof guardedAgent>) =>
  new DeliveryClient({ baseUrl, clientId: 'id', clientSecret: 'secret-0123456789', ...(dispatcher ? { dispatcher } : {}), retry: { maxAttempts: 1 } });

describe('guarded courier connections', () => {
  it('reach the local server without the guard (the control)', async () => {
    await client(`http://127.0.0.1:${port}`).fetchToken();
    expect(hits).toBe(1);
  });

  it('refuse an IP literal in a forbidden range before connecting', async () => {
    const agent = guardedAgent({ connectTimeoutMs: 2_000 });
    const e = await client(`http://127.0.0.1:${port}`, agent).fetchToken().catch((x) => x);
    expect(e).toBeInstanceOf(CourierConfigError);
    expect(e.message).toMatch(/Refused to connect.*127\.0\.0\.1 \(loopback\)/);
    expect(connections).toBe(0);
    await agent.close();
  });

  it('refuse a name that resolved publicly at save time and to loopback at connect time', async () => {
    const lookupAll = rebinding();
    const url = `https://courier-rebind.example:${port}`;
    expect(await checkCourierUrl(url, courierUrlPolicy('production'), lookupAll)).toBeNull();
    const agent = guardedAgent({ connectTimeoutMs: 2_000, lookupAll });
    const e = await client(url, agent).fetchToken().catch((x) => x);
    expect(e).toBeInstanceOf(CourierConfigError);
    expect(e.message).toMatch(/courier-rebind\.example resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(connections).toBe(0);
    await agent.close();
  });

  it("resolve names with the guard's own lookup at connect time", async () => {
    const agent = guardedAgent({ connectTimeoutMs: 2_000, lookupAll: async () => { throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' }); } });
    const e = await client(`https://courier-missing.example:${port}`, agent).fetchToken().catch((x) => x);
    expect(e.message).toMatch(/could not be resolved/);
    expect(connections).toBe(0);
    await agent.close();
  });
});
