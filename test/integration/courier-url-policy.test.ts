// Server-side requests from "Test connection": in production a merchant cannot
// point the courier base URL at our own network, neither when saving nor when
// the app connects (a stored URL whose address is forbidden). What the foreign
// server answers reaches the merchant only as a short, sanitised excerpt.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { adminClient } from '../support/admin-client.ts';
import { installSession, startScenario, type Scenario } from '../support/scenario.ts';

let connections = 0;
let server: Server;
let localUrl: string;
beforeAll(async () => {
  // A service on our own network that would love to receive client secrets.
  server = createServer((req, res) => {
    req.resume();
    res.statusCode = 401;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ error: 'invalid_client', error_description: `<html><body>\n${'internal-detail '.repeat(400)}\u202e</body></html>`, scope: 'x' }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  localUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('in production', () => {
  let s: Scenario;
  beforeAll(async () => {
    // No COURIER_TEST_BASE_URL: production refuses the local sandbox's http://127.0.0.1 URL at start-up.
    s = await startScenario({ env: { NODE_ENV: 'production', COURIER_TEST_BASE_URL: '' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it.each([
    ['http://127.0.0.1:4010', /https/],
    ['https://127.0.0.1:4010', /loopback/],
    ['https://10.0.0.1', /private/],
    ['https://169.254.169.254', /metadata/],
    ['https://[::1]', /loopback/],
    ['https://localhost:8443', /loopback/],
    ['https://[::127.0.0.1]', /loopback/], // IPv4-compatible IPv6 (::/96): judged as 127.0.0.1
    ['https://[::169.254.169.254]', /metadata/],
    ['https://[fec0::1]', /site-local/],
    ['https://user:pw@api.courier.example', /user name or password/],
  ])('refuses to save %s, naming the field', async (baseUrl, problem) => {
    const shop = 'ssrf-save.myshopify.com';
    await installSession(s, shop);
    const r = await adminClient(s.app.url, shop).put('/api/settings', { environments: { test: { baseUrl, clientId: 'id', clientSecret: 'secret-0123456789' } } });
    expect(r.status).toBe(422);
    expect(r.body.errors['test.baseUrl']).toMatch(problem);
    const env = await s.app.db.courierEnvironment.findFirst({ where: { shop: { domain: shop }, environment: 'test' } });
    expect(env?.baseUrl ?? null).toBeNull();
    expect(env?.clientId ?? null).toBeNull(); // nothing saved half-way
  });

  it.each([
    ['https://[::127.0.0.1]', /loopback/],
    ['https://[fec0::1]', /site-local/],
  ])('refuses %s as the shop geocoder URL too', async (url, problem) => {
    const shop = 'ssrf-geocoder.myshopify.com';
    await installSession(s, shop);
    const r = await adminClient(s.app.url, shop).put('/api/settings', { geocoder: { provider: 'nominatim', url } });
    expect(r.status).toBe(422);
    expect(r.body.errors['geocoder.url']).toMatch(problem);
  });

  it('refuses to connect to an IPv4-compatible address that reaches this machine, at connection time', async () => {
    const shop = 'ssrf-compat.myshopify.com';
    await installSession(s, shop);
    const api = adminClient(s.app.url, shop);
    expect((await api.put('/api/settings', { environments: { test: { clientId: 'id', clientSecret: 'secret-0123456789' } } })).status).toBe(200);
    await s.app.db.courierEnvironment.updateMany({ where: { shop: { domain: shop }, environment: 'test' }, data: { baseUrl: `https://[::127.0.0.1]:${new URL(localUrl).port}` } });
    connections = 0;
    const r = await api.post('/api/environments/test/test-connection');
    expect(r.body.ok).toBe(false);
    expect(r.body.message).toMatch(/Refused to connect.*loopback/);
    expect(connections).toBe(0);
  });

  it('the operator CLI applies the same policy before writing anything', async () => {
    const shop = 'ssrf-cli.myshopify.com';
    await installSession(s, shop);
    const cli = await runCli({ ...s.app.env, LOG_LEVEL: 'error' }, 'configure', shop, '--base-url', 'https://169.254.169.254', '--client-id', 'cli-id');
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toMatch(/--base-url must not point to a link-local or cloud metadata address/);
    const env = await s.app.db.courierEnvironment.findFirst({ where: { shop: { domain: shop }, environment: 'test' } });
    expect(env?.clientId ?? null).toBeNull();
  });

  it('refuses to connect to a stored URL that points at the local network (checked again at connection time)', async () => {
    const shop = 'ssrf-connect.myshopify.com';
    await installSession(s, shop);
    const api = adminClient(s.app.url, shop);
    expect((await api.put('/api/settings', { environments: { test: { clientId: 'id', clientSecret: 'secret-0123456789' } } })).status).toBe(200);
    // As if the URL had been saved while its name still resolved to a public address.
    await s.app.db.courierEnvironment.updateMany({ where: { shop: { domain: shop }, environment: 'test' }, data: { baseUrl: localUrl } });
    connections = 0;
    const r = await api.post('/api/environments/test/test-connection');
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(r.body.message).toMatch(/Refused to connect.*loopback/);
    expect(connections).toBe(0);
  });
});

describe('in development', () => {
  let s: Scenario;
  beforeAll(async () => {
    s = await startScenario({ env: { NODE_ENV: 'development' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('keeps allowing a local courier, and shows only a short, sanitised excerpt of what it answered', async () => {
    const shop = 'ssrf-dev.myshopify.com';
    await installSession(s, shop);
    const api = adminClient(s.app.url, shop);
    const saved = await api.put('/api/settings', { environments: { test: { baseUrl: localUrl, clientId: 'id', clientSecret: 'secret-0123456789' } } });
    expect(saved.status).toBe(200);
    const r = await api.post('/api/environments/test/test-connection');
    expect(r.body.ok).toBe(false);
    expect(r.body.message).toMatch(/did not accept the client id and secret \(HTTP 401 invalid_client\)/);
    expect(r.body.message.length).toBeLessThan(320);
    expect(r.body.message).not.toMatch(/[<>\n\u202e]/);
    expect(r.text).not.toContain('internal-detail internal-detail internal-detail internal-detail internal-detail internal-detail internal-detail internal-detail internal-detail internal-detail internal-detail');
  });
});
