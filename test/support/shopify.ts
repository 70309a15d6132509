// Builds Shopify webhook requests the way Shopify signs them: base64
// HMAC-SHA256 of the raw body under the app's API secret.
import { createHmac, randomUUID } from 'node:crypto';
import { runningApps, TEST_API_SECRET } from './app.ts';

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
  const answer = { status: res.status, body: (await res.json().catch(() => null)) as any };
  const webhookId = headers['x-shopify-webhook-id'];
  if (res.status === 200 && webhookId && !answer.body?.ignored) Object.assign(answer.body, await processed(appUrl, webhookId));
  return answer;
}

/**
 * Intake only stores a webhook (issue 24): waits until the app's inbox worker has processed it
 * (its after-commit steps included) and returns what it recorded: { ignored, reason } for a
 * webhook acknowledged without effect, { failed, reason } for one left to the operator.
 */
export async function processed(appUrl: string, webhookId: string): Promise<Record<string, unknown>> {
  const ctx = runningApps.get(appUrl);
  if (!ctx) return {};
  const deadline = Date.now() + 15_000;
  for (;;) {
    const row = await ctx.db.webhookInbox.findUnique({ where: { key: webhookId }, select: { state: true, outcome: true } });
    if (row && row.state !== 'pending') {
      await ctx.inbox?.idle();
      if (row.state === 'failed') return { failed: true, reason: row.outcome };
      return row.outcome ? { ignored: true, reason: row.outcome.replace(/^ignored: /, '') } : {};
    }
    if (Date.now() > deadline) throw new Error(`webhook ${webhookId} was not processed within 15 s (inbox row: ${row?.state ?? 'none'})`);
    ctx.inbox?.notify();
    await new Promise((r) => setTimeout(r, 5));
  }
}
