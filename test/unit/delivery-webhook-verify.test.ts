// The courier webhook verifier against vectors computed here with node:crypto (and one
// pinned with `openssl dgst -sha256 -hmac`), so a bug shared by signer and verifier shows.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signDeliveryWebhook, verifyDeliveryWebhook, type VerifyFailureReason } from '../../web/delivery/webhook-verify.ts';

const SECRET = 'whsec_sandbox_test';
const TS = 1_700_000_000;
const NOW = TS * 1000 + 5_000; // 5 s after signing
const BODY =
  '{"id":"evt_0001","type":"delivery.status.updated","created_at":"2023-11-14T22:13:20.000Z","data":{"delivery_id":"delivery_0001","status":"driver_assigned"}}';
// printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac whsec_sandbox_test
const PINNED = '2cd533989bd16ae1007fb3781535767670e3205efe0a3b2bcbc409ef958b9533';

const hmac = (secret: string, ts: number | string, body: string | Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');

function headers(over: Partial<Record<string, string | undefined>> = {}, sig = hmac(SECRET, TS, BODY)): Record<string, string | undefined> {
  return {
    'x-service-event': 'delivery.status.updated',
    'x-service-event-id': 'evt_0001',
    'x-service-timestamp': String(TS),
    'x-service-signature-version': 'v1',
    'x-service-signature': `t=${TS},v1=${sig}`,
    ...over,
  };
}

function verify(h: Record<string, string | string[] | undefined>, body: string | Buffer = BODY, extra: { secrets?: string[]; nowMs?: number; toleranceSec?: number } = {}) {
  return verifyDeliveryWebhook({ headers: h, rawBody: body, secrets: extra.secrets ?? [SECRET], nowMs: extra.nowMs ?? NOW, toleranceSec: extra.toleranceSec });
}

describe('verifyDeliveryWebhook: accepted', () => {
  it('matches the pinned openssl vector and node:crypto', () => {
    expect(hmac(SECRET, TS, BODY)).toBe(PINNED);
    const r = verify(headers({}, PINNED));
    expect(r).toMatchObject({ ok: true, eventId: 'evt_0001', timestamp: TS, secretIndex: 0 });
    if (r.ok) expect(r.event.data).toEqual({ delivery_id: 'delivery_0001', status: 'driver_assigned' });
  });

  it.each([
    ['raw body as a Buffer', {}, Buffer.from(BODY, 'utf8')],
    ['header names in mixed case', { mixedCase: true }, BODY],
    ['spaces after commas in the signature header', { sig: ` t=${TS}, v1=${PINNED}` }, BODY],
    ['a second, unknown scheme (v0) next to v1', { sig: `t=${TS},v0=deadbeef,v1=${PINNED}` }, BODY],
    ['several v1 values, the valid one last (rotation)', { sig: `t=${TS},v1=${hmac('old-secret', TS, BODY)},v1=${PINNED}` }, BODY],
    ['several v1 values, the valid one first', { sig: `t=${TS},v1=${PINNED},v1=${'0'.repeat(64)}` }, BODY],
    ['signature header repeated, joined by Node', { sigArray: [`t=${TS},v1=${'1'.repeat(64)}`, `t=${TS},v1=${PINNED}`] }, BODY],
    ['timestamp exactly at the window edge (past)', { nowMs: (TS + 300) * 1000 }, BODY],
    ['timestamp exactly at the window edge (future)', { nowMs: (TS - 300) * 1000 }, BODY],
    ['a multi-byte UTF-8 body', { body: BODY.replace('driver_assigned', 'driver_assigned", "note": "Ñandú ✓') }, ''],
  ] as const)('%s', (_name, opt: Record<string, unknown>, bodyIn) => {
    const body = (opt.body as string | undefined) ?? bodyIn;
    const sigHex = hmac(SECRET, TS, body);
    let h: Record<string, string | string[] | undefined> = headers({}, sigHex);
    if (typeof opt.sig === 'string') h['x-service-signature'] = opt.sig;
    if (opt.sigArray) h['x-service-signature'] = opt.sigArray as string[];
    if (opt.mixedCase) h = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.replace(/(^|-)x/g, '$1X').replace('-service', '-Service'), v]));
    const r = verify(h, body, { nowMs: (opt.nowMs as number | undefined) ?? NOW });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  });

  it('accepts any of several configured secrets and reports which one matched', () => {
    const r = verify(headers(), BODY, { secrets: ['new-secret', SECRET] });
    expect(r).toMatchObject({ ok: true, secretIndex: 1 });
  });

  it('returns the payload as received, unknown fields kept', () => {
    const body = BODY.replace('"data"', '"livemode":false,"data"');
    const r = verify(headers({}, hmac(SECRET, TS, body)), body);
    expect(r.ok && r.event.livemode).toBe(false);
  });
});

describe('verifyDeliveryWebhook: rejected', () => {
  const reEncoded = JSON.stringify(JSON.parse(BODY), null, 1); // same object, different bytes
  const cases: [string, Record<string, string | string[] | undefined>, string | Buffer, { secrets?: string[]; nowMs?: number; toleranceSec?: number }, VerifyFailureReason][] = [
    ['no signature header', headers({ 'x-service-signature': undefined }), BODY, {}, 'missing_header'],
    ['no timestamp header', headers({ 'x-service-timestamp': undefined }), BODY, {}, 'missing_header'],
    ['no version header', headers({ 'x-service-signature-version': undefined }), BODY, {}, 'missing_header'],
    ['no event id header', headers({ 'x-service-event-id': undefined }), BODY, {}, 'missing_header'],
    ['no event header', headers({ 'x-service-event': undefined }), BODY, {}, 'missing_header'],
    ['empty signature header', headers({ 'x-service-signature': '' }), BODY, {}, 'missing_header'],
    ['version v2', headers({ 'x-service-signature-version': 'v2' }), BODY, {}, 'unsupported_version'],
    ['version V1 (case differs)', headers({ 'x-service-signature-version': 'V1' }), BODY, {}, 'unsupported_version'],
    ['timestamp not a number', headers({ 'x-service-timestamp': '17e8' }), BODY, {}, 'malformed_signature_header'],
    ['signature without t', headers({ 'x-service-signature': `v1=${PINNED}` }), BODY, {}, 'malformed_signature_header'],
    ['signature without v1', headers({ 'x-service-signature': `t=${TS}` }), BODY, {}, 'malformed_signature_header'],
    ['signature element without =', headers({ 'x-service-signature': `t=${TS},${PINNED}` }), BODY, {}, 'malformed_signature_header'],
    ['two different t values', headers({ 'x-service-signature': `t=${TS},t=${TS + 1},v1=${PINNED}` }), BODY, {}, 'malformed_signature_header'],
    ['upper-case hex (spec: lower-case)', headers({ 'x-service-signature': `t=${TS},v1=${PINNED.toUpperCase()}` }), BODY, {}, 'malformed_signature_header'],
    ['truncated hex', headers({ 'x-service-signature': `t=${TS},v1=${PINNED.slice(0, 63)}` }), BODY, {}, 'malformed_signature_header'],
    ['t differs from x-service-timestamp', headers({ 'x-service-timestamp': String(TS + 1) }), BODY, { nowMs: NOW }, 'timestamp_mismatch'],
    ['tampered body', headers(), BODY.replace('driver_assigned', 'delivered'), {}, 'signature_mismatch'],
    ['re-serialised body (same JSON value)', headers(), reEncoded, {}, 'signature_mismatch'],
    ['trailing newline added to the body', headers(), `${BODY}\n`, {}, 'signature_mismatch'],
    ['wrong secret', headers(), BODY, { secrets: ['whsec_other'] }, 'signature_mismatch'],
    ['no secrets configured', headers(), BODY, { secrets: [] }, 'signature_mismatch'],
    ['signature over the body without the timestamp', headers({}, createHmac('sha256', SECRET).update(BODY).digest('hex')), BODY, {}, 'signature_mismatch'],
    ['stale: 301 s old', headers(), BODY, { nowMs: (TS + 301) * 1000 }, 'timestamp_outside_window'],
    ['future: 301 s ahead', headers(), BODY, { nowMs: (TS - 301) * 1000 }, 'timestamp_outside_window'],
    ['stale under a 60 s window', headers(), BODY, { nowMs: (TS + 61) * 1000, toleranceSec: 60 }, 'timestamp_outside_window'],
    ['event id header differs from payload id', headers({ 'x-service-event-id': 'evt_other' }), BODY, {}, 'event_id_mismatch'],
    ['event header differs from payload type', headers({ 'x-service-event': 'delivery.created' }), BODY, {}, 'event_type_mismatch'],
  ];
  it.each(cases)('%s', (_name, h, body, extra, reason) => {
    const r = verify(h, body, extra);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe(reason);
      expect(r.detail).not.toContain(SECRET);
    }
  });

  it.each([
    ['not JSON', 'not json'],
    ['a JSON array', '[1,2]'],
    ['an event without id', '{"type":"delivery.status.updated","created_at":"x","data":{"delivery_id":"d","status":"s"}}'],
    ['a status event without delivery_id', '{"id":"evt_0001","type":"delivery.status.updated","created_at":"x","data":{"status":"s"}}'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ] as const)('a correctly signed body that is %s is malformed_body', (_name, body) => {
    const r = verify(headers({}, hmac(SECRET, TS, body)), body);
    expect(r).toMatchObject({ ok: false, reason: 'malformed_body' });
  });

  it('does not accept a valid signature from a secret that is not configured, even next to a bad one', () => {
    const h = headers({ 'x-service-signature': `t=${TS},v1=${hmac('attacker', TS, BODY)},v1=${PINNED.toUpperCase()}` });
    expect(verify(h)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });
});

describe('signDeliveryWebhook', () => {
  it('builds the five headers the verifier accepts, with extra signatures appended', () => {
    const h = signDeliveryWebhook({ secret: SECRET, body: BODY, timestampSec: TS, eventId: 'evt_0001', type: 'delivery.status.updated', extraSignatures: ['a'.repeat(64)] });
    expect(h).toEqual({
      'x-service-event': 'delivery.status.updated',
      'x-service-event-id': 'evt_0001',
      'x-service-timestamp': String(TS),
      'x-service-signature-version': 'v1',
      'x-service-signature': `t=${TS},v1=${PINNED},v1=${'a'.repeat(64)}`,
    });
    expect(verify(h).ok).toBe(true);
  });
});
