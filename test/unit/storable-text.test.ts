// What every supported database can store (web/security/text.ts), and the
// configuration of the webhook secret overlap window.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../web/config/env.ts';
import { isStorable, storableDate, storableDeep, storableText, wellFormed } from '../../web/security/text.ts';

describe('storableText', () => {
  it.each([
    ['plain', 'plain'],
    ['lone high surrogate', 'a\ud800b', 'a\ufffdb'],
    ['lone low surrogate', '\udc00', '\ufffd'],
    ['high surrogate at the end', 'x\ud83d', 'x\ufffd'],
    ['a real pair stays', '😀', '😀'],
    ['NUL', 'a\u0000b', 'a\ufffdb'],
    ['other control characters stay', 'a\tb\n', 'a\tb\n'],
  ])('%s', (_name, input, expected = input) => {
    expect(storableText(input)).toBe(expected);
    expect(isStorable(input)).toBe(expected === input);
  });

  it('wellFormed leaves NUL alone', () => {
    expect(wellFormed('\u0000\ud800')).toBe('\u0000\ufffd');
  });

  it('storableDeep cleans every string and key of parsed JSON', () => {
    expect(storableDeep({ 'k\u0000': ['\ud800', 1, null, { n: 'x\u0000' }], ok: true })).toEqual({ 'k\ufffd': ['\ufffd', 1, null, { n: 'x\ufffd' }], ok: true });
  });
});

describe('storableDate', () => {
  it.each([
    ['0001-01-01T00:00:00Z', true],
    ['9999-12-31T23:59:59.999Z', true],
    ['0000-12-31T23:59:59.999Z', false], // PostgreSQL has no year 0
    ['+010000-01-01T00:00:00Z', false],
    ['-000001-01-01T00:00:00Z', false],
  ])('%s storable: %s', (iso, ok) => {
    expect(storableDate(Date.parse(iso)) !== null).toBe(ok);
  });

  it('refuses NaN and infinities', () => {
    expect(storableDate(Number.NaN)).toBeNull();
    expect(storableDate(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('WEBHOOK_SECRET_OVERLAP_HOURS', () => {
  it('defaults to 24 hours and takes fractions', () => {
    expect(loadConfig({}).webhookSecretOverlapMs).toBe(24 * 3_600_000);
    expect(loadConfig({ WEBHOOK_SECRET_OVERLAP_HOURS: '0.5' }).webhookSecretOverlapMs).toBe(1_800_000);
    expect(loadConfig({ WEBHOOK_SECRET_OVERLAP_HOURS: '0' }).webhookSecretOverlapMs).toBe(0);
  });

  it('refuses negative hours', () => {
    expect(() => loadConfig({ WEBHOOK_SECRET_OVERLAP_HOURS: '-1' })).toThrow(/WEBHOOK_SECRET_OVERLAP_HOURS/);
  });
});
