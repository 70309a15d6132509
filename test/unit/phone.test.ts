// The one phone check (web/phone/phone.ts): dispatch's drop-off phone, a merchant's fix,
// the checkout quote and the rates.quotePhone setting all parse through it.
import { describe, expect, it } from 'vitest';
import { normalisePhone, toE164 } from '../../web/phone/phone.ts';
import { applySettingsPatch, DEFAULT_SETTINGS } from '../../web/settings/schema.ts';

describe('toE164', () => {
  it.each<[string, string, string | null, string | null]>([
    ['international, no country', '+27 21 555 0199', null, '+27215550199'],
    ['international, padded', '  +27 82 555 1234 ', null, '+27825551234'],
    ['international, another country than the given one', '+1 613 555 0100', 'ZA', '+16135550100'],
    ['national, read in its country', '082 555 1234', 'ZA', '+27825551234'],
    ['national, no country: refused', '082 555 1234', null, null],
    ['national, the wrong country: refused', '082 555 1234', 'US', null],
    ['too short', '+27 21', null, null],
    ['not a phone', 'call the shop', null, null],
    ['empty', '', 'ZA', null],
  ])('%s', (_what, raw, country, expected) => {
    expect(toE164(raw, country)).toBe(expected);
  });
});

describe('normalisePhone: the first valid candidate, as E.164', () => {
  it.each<[string, Array<string | null | undefined>, string | null, ReturnType<typeof normalisePhone>]>([
    ['the first valid one', ['082 555 1234', '021 555 0000'], 'ZA', { e164: '+27825551234' }],
    ['an unusable first one falls through', ['0825', '021 555 0000'], 'ZA', { e164: '+27215550000' }],
    ['blanks and nulls are skipped', [null, '  ', undefined, '+27 21 555 0199'], 'ZA', { e164: '+27215550199' }],
    ['none present', [null, undefined, ' '], 'ZA', { problem: { code: 'missing_phone', message: 'No phone number on the shipping address or the order' } }],
    ['none valid: the problem names the first, trimmed', [' 0825 ', '12'], 'ZA', { problem: { code: 'invalid_phone', message: "Phone '0825' is not a valid ZA number" } }],
    ['no country: international only', ['082 555 1234'], null, { problem: { code: 'invalid_phone', message: "Phone '082 555 1234' is not a valid international number" } }],
  ])('%s', (_what, candidates, country, expected) => {
    expect(normalisePhone(candidates, country)).toEqual(expected);
  });
});

describe('rates.quotePhone uses the same check', () => {
  it.each<[string, string, boolean]>([
    ['international', '+27 21 555 0199', true],
    ['another country', '+1 613 555 0100', true],
    ['national (no country to read it in)', '021 555 0199', false],
    ['too short', '+27 21', false],
  ])('%s', (_what, quotePhone, ok) => {
    const patch = () => applySettingsPatch(DEFAULT_SETTINGS, { rates: { quotePhone } });
    if (ok) expect(patch().rates.quotePhone).toBe(quotePhone);
    else expect(patch).toThrow(expect.objectContaining({ fields: { 'rates.quotePhone': expect.stringContaining('international format') } }));
  });
});
