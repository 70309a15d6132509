// Shopify Flow's calls to the app, mounted before any JSON body parser: the
// signature (X-Shopify-Hmac-Sha256, the app secret; web/shopify/hmac.ts) covers
// the raw body and is checked first. A request that fails it gets 401 and
// changes nothing; a bad body gets 400 naming the field.
//
//   POST /flow/actions     the runtime URL of both Flow actions (extensions/flow-*-order)
//   POST /flow/lifecycle   the trigger lifecycle callback (extensions/flow-trigger-lifecycle)
//
// Shopify's own Flow helper answers a bad signature with 400; any 4xx other than
// 429 is a refusal Flow does not retry, and 401 says what is wrong.
import express, { type Request, type Response, type Router } from 'express';
import type { AppContext } from '../context.ts';
import { isUniqueViolation } from '../db/client.ts';
import { errorMessage } from '../ops/errors.ts';
import { findShop } from '../settings/store.ts';
import { verifyShopifyHmac } from '../shopify/hmac.ts';
import { acceptAction } from './actions.ts';
import { FLOW_ACTION_PATH, FLOW_LIFECYCLE_PATH, triggerOfDefinition } from './catalogue.ts';
import { parseActionRequest, parseLifecycleCallback, type LifecycleCallback, type Parsed } from './requests.ts';

/** The signed JSON body, or null once an answer was sent. */
function signedBody<T>(ctx: AppContext, req: Request, res: Response, parse: (b: unknown) => Parsed<T>): T | null {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (!verifyShopifyHmac(raw, req.get('x-shopify-hmac-sha256'), ctx.config.shopify.apiSecret)) {
    (res.locals.log ?? ctx.log).warn({ path: req.path }, 'flow request with a bad signature rejected');
    res.status(401).json({ message: 'HMAC validation failed: X-Shopify-Hmac-Sha256 must sign the body with the app secret' });
    return null;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    res.status(400).json({ message: 'body is not valid JSON' });
    return null;
  }
  const p = parse(body);
  if (!p.ok) {
    res.status(400).json({ message: `${p.field}: ${p.message}`, field: p.field });
    return null;
  }
  return p.value;
}

/** Keeps the newest word per (shop, trigger definition): an older callback arriving late changes nothing. */
export async function recordTriggerUsage(ctx: AppContext, shopId: string, c: LifecycleCallback): Promise<void> {
  const trigger = triggerOfDefinition(c.definitionId) ?? '*';
  const data = { trigger, enabled: c.enabled, changedAt: c.at };
  const newer = () => ctx.db.flowTriggerUsage.updateMany({ where: { shopId, definitionId: c.definitionId, changedAt: { lt: c.at } }, data });
  if ((await newer()).count) return;
  if (await ctx.db.flowTriggerUsage.findUnique({ where: { shopId_definitionId: { shopId, definitionId: c.definitionId } }, select: { id: true } })) return;
  try {
    await ctx.db.flowTriggerUsage.create({ data: { shopId, definitionId: c.definitionId, ...data } });
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    await newer();
  }
}

export function flowRoutes(ctx: AppContext): Router {
  const r = express.Router();
  const raw = express.raw({ type: '*/*', limit: '1mb' });

  r.post(FLOW_ACTION_PATH, raw, async (req, res) => {
    const a = signedBody(ctx, req, res, parseActionRequest);
    if (!a) return;
    const log = (res.locals.log ?? ctx.log).child({ component: 'flow', shop: a.shop, action: a.action.handle, actionRunId: a.actionRunId });
    try {
      const shop = await findShop(ctx.db, a.shop);
      if (!shop || shop.uninstalledAt) {
        res.status(404).json({ message: `Same-Day Dispatch is not installed on ${a.shop}`, code: 'not_installed', action_run_id: a.actionRunId });
        return;
      }
      const answer = await acceptAction(ctx, shop.id, a);
      log.info({ status: answer.status, code: answer.body.code }, 'flow action answered');
      res.status(answer.status).json(answer.body);
    } catch (e) {
      // Flow calls again after a 5xx, with the same action_run_id.
      log.error({ err: errorMessage(e) }, 'flow action could not be recorded');
      res.status(503).json({ message: 'Same-Day Dispatch could not take the action just now; Flow will send it again', action_run_id: a.actionRunId });
    }
  });

  r.post(FLOW_LIFECYCLE_PATH, raw, async (req, res) => {
    const c = signedBody(ctx, req, res, parseLifecycleCallback);
    if (!c) return;
    const log = (res.locals.log ?? ctx.log).child({ component: 'flow', shop: c.shop, definitionId: c.definitionId, enabled: c.enabled });
    try {
      const shop = await findShop(ctx.db, c.shop);
      // Answered 2xx whatever happens here: otherwise the merchant cannot turn the workflow on.
      if (!shop || shop.uninstalledAt) {
        log.warn('flow lifecycle callback for a shop without the app; nothing recorded');
        res.status(200).json({ ok: true, ignored: 'the app is not installed on this shop' });
        return;
      }
      if (!triggerOfDefinition(c.definitionId)) log.warn('flow lifecycle callback names a trigger we do not know; every trigger is sent to this shop while it is enabled');
      await recordTriggerUsage(ctx, shop.id, c);
      log.info('flow trigger usage recorded');
      res.status(200).json({ ok: true });
    } catch (e) {
      log.error({ err: errorMessage(e) }, 'flow lifecycle callback could not be recorded');
      res.status(503).json({ message: 'could not record the callback; try again' });
    }
  });
  return r;
}
