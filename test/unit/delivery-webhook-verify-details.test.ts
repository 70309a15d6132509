// Every rejection of the courier webhook verifier with its exact reason and
// detail (what the endpoint stores as lastRejectionReason and the merchant
// reads), and the payload shapes it refuses. Complements delivery-webhook-verify.test.ts.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signDeliveryWebhook, verifyDeliveryWebhook } from '../../web/delivery/webhook-verify.ts';

const SECRET = 'whsec_details';
const TS = 1_700_000_000;
const NOW = TS * 1000;
const event = (over: Record<string, unknown> = {}) => ({ id: 'evt_1', type: 'delivery.status.updated', created_at: '2023-11-14T22:13:20.000Z', data: { delivery_id: 'd1', status: 'picked_up' }, ...over });
const hmac = (body: string | Buffer, ts: number | string = TS, secret = SECRET) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');

function run(opts: { body?: string | Buffer; headers?: Record<string, string | string[] | undefined>; secrets?: string[]; nowMs?: number; toleranceSec?: number } = {}) {
  const body = opts.body ?? JSON.stringify(event());
  const h = { ...signDeliveryWebhook({ secret: SECRET, body: typeof body === 'string' ? body : body.toString('latin1'), timestampSec: TS, eventId: 'evt_1', type: 'delivery.status.updated' }), ...opts.headers };
  if (Buffer.isBuffer(body)) h['x-service-signature'] = `t=${TS},v1=${hmac(body)}`;
  return verifyDeliveryWebhook({ headers: h, rawBody: body, secrets: opts.secrets ?? [SECRET], nowMs: opts.nowMs ?? NOW, toleranceSec: opts.toleranceSec });
}

describe('rejections name what is wrong', () => {
  it.each([
    ['no event header', { headers: { 'x-service-event': undefined } }, 'missing_header', 'x-service-event is missing'],
    ['a blank event id header', { headers: { 'x-service-event-id': '  ' } }, 'missing_header', 'x-service-event-id is missing'],
    ['no timestamp header', { headers: { 'x-service-timestamp': undefined } }, 'missing_header', 'x-service-timestamp is missing'],
    ['no version header', { headers: { 'x-service-signature-version': undefined } }, 'missing_header', 'x-service-signature-version is missing'],
    ['no signature header', { headers: { 'x-service-signature': undefined } }, 'missing_header', 'x-service-signature is missing'],
    ['version v2', { headers: { 'x-service-signature-version': 'v2' } }, 'unsupported_version', 'signature version "v2" is not v1'],
    ['a long version is cut', { headers: { 'x-service-signature-version': 'v'.repeat(40) } }, 'unsupported_version', `signature version "${'v'.repeat(16)}" is not v1`],
    ['a timestamp that is not a number', { headers: { 'x-service-timestamp': '17e8' } }, 'malformed_signature_header', 'x-service-timestamp is not a decimal Unix time'],
    ['an element without =', { headers: { 'x-service-signature': `t=${TS},garbage` } }, 'malformed_signature_header', 'x-service-signature element without "="'],
    ['an element starting with =', { headers: { 'x-service-signature': `t=${TS},=abc` } }, 'malformed_signature_header', 'x-service-signature element without "="'],
    ['no t', { headers: { 'x-service-signature': `v1=${'a'.repeat(64)}` } }, 'malformed_signature_header', 'x-service-signature has no t'],
    ['two different t', { headers: { 'x-service-signature': `t=${TS},t=${TS + 1},v1=${'a'.repeat(64)}` } }, 'malformed_signature_header', 'x-service-signature has conflicting t values'],
    ['no v1', { headers: { 'x-service-signature': `t=${TS},v0=${'a'.repeat(64)}` } }, 'malformed_signature_header', 'x-service-signature has no v1 signature'],
    ['v1 in upper case', { headers: { 'x-service-signature': `t=${TS},v1=${'A'.repeat(64)}` } }, 'malformed_signature_header', 'v1 must be 64 lower-case hexadecimal characters'],
    ['t differs from the timestamp header', { headers: { 'x-service-signature': `t=${TS + 1},v1=${'a'.repeat(64)}` } }, 'timestamp_mismatch', 't in x-service-signature differs from x-service-timestamp'],
    ['no secret configured', { secrets: [] }, 'signature_mismatch', 'no webhook secret is configured'],
    ['only empty secrets', { secrets: ['', ''] }, 'signature_mismatch', 'no webhook secret is configured'],
    ['the wrong secret', { secrets: ['whsec_other'] }, 'signature_mismatch', 'no v1 signature matches the body with any configured secret'],
    ['stale', { nowMs: NOW + 301_000 }, 'timestamp_outside_window', 'timestamp is 301 s in the past (window 300 s)'],
    ['from the future', { nowMs: NOW - 400_000 }, 'timestamp_outside_window', 'timestamp is 400 s in the future (window 300 s)'],
    ['outside a custom window', { nowMs: NOW + 61_000, toleranceSec: 60 }, 'timestamp_outside_window', 'timestamp is 61 s in the past (window 60 s)'],
    ['a body that is not UTF-8', { body: Buffer.from([0x7b, 0xff, 0x7d]) }, 'malformed_body', 'body is not UTF-8 JSON'],
    ['JSON with an invalid UTF-8 byte inside a string', { body: Buffer.concat([Buffer.from(JSON.stringify(event()).split('picked_up')[0]!), Buffer.from([0xff]), Buffer.from('"}}')]) }, 'malformed_body', 'body is not UTF-8 JSON'],
    ['a JSON array', { body: '[1]' }, 'malformed_body', 'body is not a JSON object'],
    ['JSON null', { body: 'null' }, 'malformed_body', 'body is not a JSON object'],
    ['a JSON string', { body: '"x"' }, 'malformed_body', 'body is not a JSON object'],
    ['no id', { body: JSON.stringify(event({ id: '' })) }, 'malformed_body', 'event has no id'],
    ['a numeric id', { body: JSON.stringify(event({ id: 7 })) }, 'malformed_body', 'event has no id'],
    ['an empty type', { body: JSON.stringify(event({ type: '' })) }, 'malformed_body', 'event has no type'],
    ['a numeric type', { body: JSON.stringify(event({ type: 3 })) }, 'malformed_body', 'event has no type'],
    ['no created_at', { body: JSON.stringify(event({ created_at: 5 })) }, 'malformed_body', 'event has no created_at'],
    ['data is a list', { body: JSON.stringify(event({ data: [] })) }, 'malformed_body', 'event has no data object'],
    ['data is text', { body: JSON.stringify(event({ data: 'x' })) }, 'malformed_body', 'event has no data object'],
    ['data is null', { body: JSON.stringify(event({ data: null })) }, 'malformed_body', 'event has no data object'],
    ['no delivery_id', { body: JSON.stringify(event({ data: { delivery_id: '', status: 'x' } })) }, 'malformed_body', 'event data has no delivery_id'],
    ['a numeric delivery_id', { body: JSON.stringify(event({ data: { delivery_id: 1, status: 'x' } })) }, 'malformed_body', 'event data has no delivery_id'],
    ['an empty status', { body: JSON.stringify(event({ data: { delivery_id: 'd', status: '' } })) }, 'malformed_body', 'event data has no status'],
    ['a numeric status', { body: JSON.stringify(event({ data: { delivery_id: 'd', status: 2 } })) }, 'malformed_body', 'event data has no status'],
    ['the payload id differs', { body: JSON.stringify(event({ id: 'evt_2' })) }, 'event_id_mismatch', 'x-service-event-id differs from the payload id'],
  ] as const)('%s', (_n, opts, reason, detail) => {
    expect(run(opts as Parameters<typeof run>[0])).toEqual({ ok: false, reason, detail });
  });

  it('the payload type differs from the header', () => {
    const body = JSON.stringify(event({ type: 'delivery.created', data: {} }));
    expect(run({ body })).toEqual({ ok: false, reason: 'event_type_mismatch', detail: 'x-service-event differs from the payload type' });
  });

  it('other event types need no delivery_id or status', () => {
    const body = JSON.stringify(event({ type: 'webhook.test', data: {} }));
    const r = run({ body, headers: { 'x-service-event': 'webhook.test' } });
    expect(r.ok).toBe(true);
  });

  it('the second secret matches: its index is reported; an array header is joined', () => {
    const body = JSON.stringify(event());
    const r = run({ body, secrets: ['whsec_old', SECRET], headers: { 'x-service-event-id': ['evt_1'] } });
    expect(r).toMatchObject({ ok: true, secretIndex: 1, timestamp: TS, eventId: 'evt_1' });
  });

  it('trims header values and signature elements; empty elements are skipped', () => {
    const body = JSON.stringify(event());
    const r = run({ body, headers: { 'x-service-event-id': ' evt_1 ', 'x-service-signature': ` t = ${TS} ,, v1 = ${hmac(body)} ,` } });
    expect(r.ok).toBe(true);
  });

  it('signDeliveryWebhook adds extra v1 signatures after the real one', () => {
    const h = signDeliveryWebhook({ secret: SECRET, body: 'b', timestampSec: TS, eventId: 'e', type: 't', extraSignatures: ['x', 'y'] });
    expect(h['x-service-signature']).toBe(`t=${TS},v1=${hmac('b')},v1=x,v1=y`);
    expect(signDeliveryWebhook({ secret: SECRET, body: 'b', timestampSec: TS, eventId: 'e', type: 't' })['x-service-signature']).toBe(`t=${TS},v1=${hmac('b')}`);
  });
});
