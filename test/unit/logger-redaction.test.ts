// No secret reaches a log line: every secret field name, at every depth the
// logger redacts, in the objects the app logs (courier access, headers, rows).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../web/ops/logger.ts';

// Written out, not imported: dropping a name from the logger's list must fail here.
const SECRET_FIELDS = [
  'accessToken', 'access_token', 'refreshToken', 'refresh_token', 'clientSecret', 'client_secret',
  'webhookSecret', 'webhook_secret', 'webhookSecrets', 'webhookSecretPrev', 'apiSecret', 'apiSecretKey', 'password', 'secret', 'secrets', 'token',
  'authorization', 'Authorization', 'cookie', 'x-shopify-access-token', 'X-Shopify-Access-Token', 'x-shopify-hmac-sha256', 'x-service-signature',
  'encryptionKey', 'encryptionKeys', 'clientSecretEnc', 'webhookSecretEnc', 'webhookSecretPrevEnc',
];

function capture() {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', destination: new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } }) });
  return { log, lines };
}

describe('logger redaction', () => {
  it.each(SECRET_FIELDS)('%s is redacted at the top, one and two levels down, and in headers', (field) => {
    const { log, lines } = capture();
    const value = `S3CRET-${field}-value`;
    log.info({ [field]: value }, 'top');
    log.info({ access: { [field]: value } }, 'one down');
    log.info({ req: { env: { [field]: value } } }, 'two down');
    log.info({ res: { headers: { [field]: value } } }, 'headers');
    log.info({ [field]: [value, `${value}-2`] }, 'a list');
    expect(lines).toHaveLength(5);
    for (const l of lines) {
      expect(l).not.toContain('S3CRET');
      expect(l).toContain('[redacted]');
    }
  });

  it("in a list's objects, in an Error's own fields (its message kept) and in a child logger's bindings; the logged object itself is left as it was", () => {
    const { log, lines } = capture();
    const logged = { calls: [{ url: '/a', token: 'S3CRET-list' }], meta: { ok: true } };
    log.info(logged, 'list');
    log.error({ err: Object.assign(new Error('upstream said no'), { headers: { authorization: 'Bearer S3CRET-err' } }) }, 'error');
    log.child({ access: { clientId: 'client-1', clientSecret: 'S3CRET-binding' } }).info('child');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).not.toContain('S3CRET');
    expect(JSON.parse(lines[0]!).calls).toEqual([{ url: '/a', token: '[redacted]' }]);
    expect(JSON.parse(lines[1]!).err).toMatchObject({ type: 'Error', message: 'upstream said no', headers: { authorization: '[redacted]' } });
    expect(JSON.parse(lines[2]!).access).toEqual({ clientId: 'client-1', clientSecret: '[redacted]' });
    expect(logged.calls[0]!.token).toBe('S3CRET-list');
  });

  it('three levels down is past its reach (a secret is never put that deep in a log object)', () => {
    const { log, lines } = capture();
    log.info({ a: { b: { c: { token: 'deep' } } } }, 'deep');
    expect(JSON.parse(lines[0]!).a.b.c.token).toBe('deep');
  });

  it('a courier access object as the app builds it keeps its ids and loses its secrets', () => {
    const { log, lines } = capture();
    log.warn({ access: { environment: 'test', clientId: 'client-1', clientSecret: 'cs_live_abc', webhookSecrets: ['whsec_now', 'whsec_before'], endpointId: 'ep_1' } }, 'x');
    expect(lines[0]).toContain('client-1');
    expect(lines[0]).toContain('ep_1');
    expect(lines[0]).not.toMatch(/cs_live_abc|whsec_now|whsec_before/);
  });
});
