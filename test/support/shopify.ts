// Builds Shopify webhook requests the way Shopify signs them: base64
// HMAC-SHA256 of the raw body under the app's API secret.
import { createHmac, randomUUID } from 'node:crypto';
import { TEST_API_SECRET } from './app.ts';

export function shopifyHmac(body: string, secret = TEST_API_SECRET): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

export function shopifyWebhookHeaders(topic: string, shop: string, body: string, opts: { webhookId?: string; secret?: string } = {}) {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-shop-domain': shop,
    'x-shopify-api-version': '2026-10',
    'x-shopify-webhook-id': opts.webhookId ?? randomUUID(),
    'x-shopify-triggered-at': new Date().toISOString(),
    'x-shopify-event-id': randomUUID(),
    'x-shopify-hmac-sha256': shopifyHmac(body, opts.secret),
  };
}

export async function postShopifyWebhook(
  appUrl: string,
  topic: string,
  shop: string,
  payload: unknown,
  opts: { webhookId?: string; secret?: string; headers?: Record<string, string | undefined> } = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...shopifyWebhookHeaders(topic, shop, body, opts), ...opts.headers })) {
    if (v !== undefined) headers[k] = v;
  }
  const res = await fetch(`${appUrl}/api/webhooks`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}
