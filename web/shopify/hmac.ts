// Shopify's body signature, X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw
// body with the app secret. The carrier-service rate callback (web/rates/route.ts)
// checks it here: the library's shopify.api.webhooks.validate also requires the
// webhook headers (topic, webhook id), which that callback does not carry. Pure.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** True when `header` signs `rawBody` with `secret`; compared in constant time. */
export function verifyShopifyHmac(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  if (!header || rawBody.length === 0) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(header, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
