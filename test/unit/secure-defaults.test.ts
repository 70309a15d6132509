// Secure by default (issue 32): how token-exchange failures are answered, and the
// security headers' options.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { HttpMaxRetriesError, HttpRequestError, HttpResponseError, HttpThrottlingError, InvalidJwtError, InvalidShopError } from '@shopify/shopify-api';
import { describe, expect, it } from 'vitest';
import { exchangeFailure } from '../../web/admin/auth.ts';
import { securityHeaders } from '../../web/ops/security-headers.ts';

const response = (code: number, body: unknown) => new HttpResponseError({ message: `Received an error response (${code}) from Shopify`, code, statusText: '', body: body as Record<string, unknown>, headers: {} });

describe('exchangeFailure', () => {
  it.each([
    ['a dest that is not a shop', new InvalidShopError('Received invalid shop argument'), 401, /dest is not a \*\.myshopify\.com shop/, false],
    ['an invalid token', new InvalidJwtError('Failed to parse session token'), 401, /invalid session token/, true],
    ['invalid_subject_token', response(400, { error: 'invalid_subject_token' }), 401, /invalid_subject_token/, true],
    ['HTTP 401', response(401, {}), 401, /HTTP 401/, false],
    ['HTTP 500', response(500, {}), 503, /HTTP 500/, false],
    ['HTTP 429', new HttpThrottlingError({ message: 'throttled', code: 429, statusText: '', body: {}, headers: {}, retryAfter: 2 }), 503, /HTTP 429/, false],
    ['another 4xx: the app, not the token', response(400, { error: 'invalid_client' }), 502, /HTTP 400 invalid_client/, false],
    ['no response', new HttpRequestError('Http request error, no response available'), 503, /could not be reached/, false],
    ['retries used up', new HttpMaxRetriesError('Exceeded maximum retry count'), 503, /could not be reached/, false],
    ['fetch failed', new TypeError('fetch failed'), 503, /could not be reached/, false],
  ])('%s', (_what, error, status, message, retryRequest) => {
    const f = exchangeFailure(error);
    expect(f.status).toBe(status);
    expect(f.error).toMatch(message);
    expect(!!f.retryRequest).toBe(retryRequest);
    expect(f.retryAfterSeconds).toBe(status === 503 ? 5 : undefined);
  });
});

async function headersOf(opts: { production: boolean; hstsIncludeSubDomains: boolean }): Promise<Headers> {
  const app = express();
  app.use(securityHeaders(opts));
  app.get('/', (_req, res) => void res.setHeader('Content-Security-Policy', "frame-ancestors https://x.myshopify.com").send('ok'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    return (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).headers;
  } finally {
    server.close();
  }
}

describe('securityHeaders', () => {
  it('production: HSTS for a year, includeSubDomains only when the operator asks; a route\'s own CSP is kept', async () => {
    const plain = await headersOf({ production: true, hstsIncludeSubDomains: false });
    expect(plain.get('strict-transport-security')).toBe('max-age=31536000');
    expect(plain.get('content-security-policy')).toBe('frame-ancestors https://x.myshopify.com');
    expect(plain.get('x-frame-options')).toBeNull();
    expect((await headersOf({ production: true, hstsIncludeSubDomains: true })).get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });

  it('elsewhere: no HSTS, the rest the same', async () => {
    const h = await headersOf({ production: false, hstsIncludeSubDomains: true });
    expect(h.get('strict-transport-security')).toBeNull();
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('referrer-policy')).toBe('no-referrer');
  });
});
