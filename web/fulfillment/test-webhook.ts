// "Send test webhook": ask the courier to send one signed event to the shop's
// endpoint for this environment, then report whether our endpoint received and
// verified it (from the endpoint's last-webhook and last-rejection records).
import type { AppContext } from '../context.ts';
import { MissingCredentialsError } from '../context.ts';
import { DeliveryApiError } from '../delivery/index.ts';
import type { EnvironmentName } from '../settings/schema.ts';
import { courierAccess, requireShop } from '../settings/store.ts';
import type { TestWebhookRecord } from '../delivery/types.ts';
import { idsOfTestAnswer, rememberTest } from './rematch-policy.ts';
import { readTestWebhooks, writeTestWebhooks } from '../db/json-columns.ts';

/** Records a test webhook request on the environment, so its event is recognised (web/fulfillment/events.ts). */
async function recordTest(ctx: AppContext, environmentId: string, rec: TestWebhookRecord): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const env = await tx.courierEnvironment.findUniqueOrThrow({ where: { id: environmentId }, select: { testWebhooks: true } });
    const list = readTestWebhooks(env.testWebhooks);
    await tx.courierEnvironment.update({ where: { id: environmentId }, data: { testWebhooks: writeTestWebhooks(rememberTest(list, rec)) } });
  });
}

export interface TestWebhookResult {
  sent: boolean;
  received: boolean;
  verified: boolean;
  message: string;
}

export async function sendTestWebhook(ctx: AppContext, shopDomain: string, environment: EnvironmentName, opts: { waitMs?: number } = {}): Promise<TestWebhookResult> {
  const shop = await requireShop(ctx.db, shopDomain);
  const access = await courierAccess(ctx.db, ctx.box, shop.id, environment, ctx.config.courierBaseUrls);
  const since = ctx.now() - 1;
  // Recorded before asking: the courier may deliver the event before it answers.
  const rec: TestWebhookRecord = { requestedAt: ctx.now(), answeredAt: null, ids: [] };
  await recordTest(ctx, access.environmentId, rec);
  try {
    const answer = await ctx.courier.for(shopDomain, access).sendTestWebhook();
    await recordTest(ctx, access.environmentId, { ...rec, answeredAt: ctx.now(), ids: idsOfTestAnswer(answer.body) });
  } catch (e) {
    if (e instanceof DeliveryApiError || e instanceof MissingCredentialsError) return { sent: false, received: false, verified: false, message: `The courier did not send a test webhook: ${e.message}` };
    throw e;
  }
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  while (Date.now() < deadline) {
    // A stored event, not lastWebhookAt: intake refreshes that at most once a minute.
    const got = await ctx.db.courierEvent.findFirst({ where: { environmentId: access.environmentId, receivedAt: { gte: new Date(since) } }, select: { receivedAt: true } });
    if (got) {
      return { sent: true, received: true, verified: true, message: `Received and verified a test webhook at ${got.receivedAt.toISOString()}` };
    }
    const env = await ctx.db.courierEnvironment.findUniqueOrThrow({ where: { id: access.environmentId } });
    if (env.lastRejectionAt && env.lastRejectionAt.getTime() >= since) {
      return { sent: true, received: true, verified: false, message: `A webhook arrived but was rejected: ${env.lastRejectionReason}. Check the webhook secret in the courier portal.` };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    sent: true,
    received: false,
    verified: false,
    message: 'The courier accepted the request, but no webhook reached this endpoint. Check the webhook URL in the courier portal.',
  };
}
