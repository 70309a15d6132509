// What the Shopify-facing routes do to the simulator's state: Admin GraphQL with the shop's
// access token, the token endpoint (token exchange and refresh_token grants), and opening the
// app in the admin (a signed embedded URL with a fresh session token). No I/O: each returns
// the reply for the router to write.
import { randomUUID } from 'node:crypto';
import type { SimShop } from './admin-graphql.ts';
import { handleAdminGraphql } from './admin-graphql.ts';
import { ID_TOKEN_TYPE, OFFLINE_TOKEN_TYPE, ONLINE_TOKEN_TYPE, signOAuthQuery, signSessionToken, TOKEN_EXCHANGE_GRANT, verifySessionToken } from './auth.ts';
import { hex, type SimState } from './state.ts';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  text?: string;
  /** The router sends the reply when this settles (SimShop.answerAfter). */
  wait?: Promise<unknown>;
}

const INVALID_TOKEN = '[API] Invalid API key or access token (unrecognized login or wrong password)';
/** Shopify's session tokens live one minute. */
const SESSION_TOKEN_TTL_SEC = 60;
const ONLINE_TOKEN_TTL_SEC = 86_399;

const fail = (status: number, error: string, description: string): Reply => ({ status, body: { error, error_description: description } });

export function graphql(state: SimState, s: SimShop, presented: string | undefined, raw: string): Reply {
  const m = state.metaOf(s);
  if (presented === s.accessToken && m.accessTokenExpiresAt !== null && Date.now() >= m.accessTokenExpiresAt) {
    return { status: 401, body: { errors: INVALID_TOKEN } };
  }
  let body: any;
  try {
    body = raw.trim() ? JSON.parse(raw) : null;
  } catch {
    return { status: 400, body: { errors: 'The request body is not valid JSON' } };
  }
  if (!body || typeof body.query !== 'string') return { status: 400, body: { errors: { query: 'Required parameter missing or invalid' } } };
  const r = handleAdminGraphql(s, presented, body);
  // The replacement of a refreshed token is in use: the previous refresh token stops working.
  if (r.status === 200 && m.currentRefreshToken) for (const t of m.refreshTokens.keys()) if (t !== m.currentRefreshToken) m.refreshTokens.delete(t);
  if (r.status === 401) state.log?.warn({ shop: s.domain }, 'graphql request with an invalid access token');
  return { status: r.status, body: r.body, ...(r.wait ? { wait: r.wait } : {}) };
}

/** POST /admin/oauth/access_token: token exchange, or refresh_token for an expiring offline token. */
export function accessToken(state: SimState, s: SimShop, contentType: string, raw: string, query: URLSearchParams): Reply {
  let p: Record<string, unknown>;
  try {
    p = !raw.trim()
      ? Object.fromEntries(query)
      : contentType.includes('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(raw))
        : JSON.parse(raw);
  } catch {
    return fail(400, 'invalid_request', 'The body must be JSON or application/x-www-form-urlencoded');
  }
  if (!p || typeof p !== 'object') return fail(400, 'invalid_request', 'The body must be a JSON object');
  if (p.client_id !== state.apiKey || p.client_secret !== state.apiSecret) return fail(401, 'invalid_client', 'client_id or client_secret is not this app\'s');
  const expiring = p.expiring === '1' || p.expiring === 1 || p.expiring === true;
  if (p.grant_type === TOKEN_EXCHANGE_GRANT) return tokenExchange(state, s, p, expiring);
  if (p.grant_type !== 'refresh_token') return fail(400, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE_GRANT} or refresh_token`);
  const m = state.metaOf(s);
  const rt = String(p.refresh_token ?? '');
  const until = m.refreshTokens.get(rt);
  if (!rt || until === undefined) return fail(400, 'invalid_grant', `The refresh token is not valid for ${s.domain} (unknown, replaced and superseded, or revoked on uninstall)`);
  if (until <= Date.now()) return fail(400, 'invalid_grant', 'The refresh token has expired; the merchant must open the app to re-authorise');
  const tokens = state.issueTokens(s, m.scope ?? '', true);
  // The used refresh token stays valid until the new access token is first used (Shopify, Aug 2026).
  m.refreshTokens.set(rt, until);
  state.log?.info({ shop: s.domain }, 'access token refreshed');
  return { status: 200, body: tokens, headers: { 'cache-control': 'no-store' } };
}

/**
 * Token exchange: an embedded app trades the App Bridge session token it was
 * sent for an access token. Shopify answers 400 invalid_subject_token when the
 * session token is expired or otherwise invalid.
 */
function tokenExchange(state: SimState, s: SimShop, p: Record<string, unknown>, expiring: boolean): Reply {
  if (p.subject_token_type !== ID_TOKEN_TYPE) return fail(400, 'invalid_request', `subject_token_type must be ${ID_TOKEN_TYPE}`);
  const requested = p.requested_token_type;
  if (requested !== OFFLINE_TOKEN_TYPE && requested !== ONLINE_TOKEN_TYPE) {
    return fail(400, 'invalid_request', `requested_token_type must be ${OFFLINE_TOKEN_TYPE} or ${ONLINE_TOKEN_TYPE}`);
  }
  const checked = verifySessionToken(String(p.subject_token ?? ''), { apiKey: state.apiKey, apiSecret: state.apiSecret, shop: s.domain });
  if ('error' in checked) return fail(400, 'invalid_subject_token', `The session token is not valid: ${checked.error}`);
  const m = state.metaOf(s);
  if (!m.installed) return fail(400, 'invalid_subject_token', `The app is not installed on ${s.domain}`);
  const scope = m.scope ?? '';
  if (requested === ONLINE_TOKEN_TYPE) {
    // Documented shape; the simulated GraphQL API accepts the shop's offline token only.
    const sub = String(checked.claims.sub ?? '1');
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: `shpua_${hex(16)}`, scope, expires_in: ONLINE_TOKEN_TTL_SEC, associated_user_scope: scope,
        associated_user: { id: /^\d+$/.test(sub) ? Number(sub) : sub, first_name: 'Sim', last_name: 'Merchant', email: `owner@${s.domain}`, email_verified: true, account_owner: true, locale: 'en', collaborator: false },
      },
    };
  }
  const tokens = state.issueTokens(s, scope, expiring);
  state.log?.info({ shop: s.domain, expiring }, 'token exchange: offline access token issued');
  return { status: 200, body: tokens, headers: { 'cache-control': 'no-store' } };
}

/** What Shopify does when a merchant opens the app in the admin: a signed embedded URL with a fresh session token. */
export function openApp(state: SimState, s: SimShop, path: string, userId: string) {
  const { apiKey, apiSecret } = state;
  const now = Math.floor(Date.now() / 1000);
  const sessionToken = signSessionToken(
    { iss: `https://${s.domain}/admin`, dest: `https://${s.domain}`, aud: apiKey, sub: userId, exp: now + SESSION_TOKEN_TTL_SEC, nbf: now, iat: now, jti: randomUUID(), sid: randomUUID() },
    apiSecret,
  );
  const name = s.domain.replace(/\.myshopify\.com$/, '');
  const params: Record<string, string> = {
    embedded: '1', host: Buffer.from(`admin.shopify.com/store/${name}`).toString('base64url'), id_token: sessionToken,
    locale: 'en', session: hex(32), shop: s.domain, timestamp: String(now),
  };
  params.hmac = signOAuthQuery(params, apiSecret);
  const url = new URL(path.startsWith('/') ? path : `/${path}`, `${state.settings.appUrl}/`);
  url.search = new URLSearchParams(params).toString();
  return { url: url.toString(), sessionToken, expiresAt: new Date((now + SESSION_TOKEN_TTL_SEC) * 1000).toISOString() };
}
