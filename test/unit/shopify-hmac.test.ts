// X-Shopify-Hmac-Sha256 on a raw body (web/shopify/hmac.ts): the carrier-service
// rate callback checks it before anything is read.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rateRequestBody } from '../../dev/shop-sim/carrier-services.ts';
import { verifyShopifyHmac } from '../../web/shopify/hmac.ts';

describe('verifyShopifyHmac', () => {
  const body = Buffer.from(rateRequestBody({}));
  const digest = (b: Buffer, secret = 'app-secret') => createHmac('sha256', secret).update(b);
  const sign = (b: Buffer, secret?: string) => digest(b, secret).digest('base64');
  const flipped = Buffer.from(body);
  flipped[10] = flipped[10]! ^ 1;
  it.each<[string, Buffer, string | undefined, boolean]>([
    ['signed with the app secret', body, sign(body), true],
    ['another secret', body, sign(body, 'other'), false],
    ['one byte added', Buffer.concat([body, Buffer.from(' ')]), sign(body), false],
    ['one bit changed, same length', flipped, sign(body), false],
    ['no header', body, undefined, false],
    ['an empty header', body, '', false],
    ['an empty body', Buffer.alloc(0), sign(Buffer.alloc(0)), false],
    ['a header of the wrong length', body, 'abc', false],
    ['the digest in hex, not base64', body, digest(body).digest('hex'), false],
  ])('%s', (_what, b, header, ok) => {
    expect(verifyShopifyHmac(b, header, 'app-secret')).toBe(ok);
  });
});
