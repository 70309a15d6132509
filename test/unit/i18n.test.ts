import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pickLocale, shippedLocale } from '../../web/i18n/locales.ts';
import { translator, type Catalogues } from '../../web/i18n/messages.ts';
import { catalogueProblems, surfacesIn } from '../support/catalogues.ts';

const MESSAGES_DIR = join(import.meta.dirname, '../../web/i18n/messages');

describe('pickLocale: the first shipped candidate, in the caller order', () => {
  it.each([
    [['de-DE'], 'de'],
    [['pt-BR', 'fr-CA'], 'fr'],
    [[null, undefined, 'af-ZA'], 'af'],
    [['es_419'], 'es'],
    [['DE'], 'de'],
    [['zz', 'xx-YY'], 'en'],
    [[], 'en'],
    [['', ' de '], 'de'],
    // customer locale first, then the shop's, then the browser's
    [['fr', 'de', 'es'], 'fr'],
    [['ja', 'de', 'es'], 'de'],
  ] as const)('%j → %s', (candidates, expected) => {
    expect(pickLocale(candidates)).toBe(expected);
  });

  it('shippedLocale is null for what we do not ship', () => {
    expect(shippedLocale('nl-NL')).toBeNull();
    expect(shippedLocale(undefined)).toBeNull();
  });
});

describe('translator', () => {
  const catalogues = {
    en: { days: '{n, plural, one {# day} other {# days}}', only: 'English only' },
    de: { days: '{n, plural, one {# Tag} other {# Tage}}' },
    fr: {},
    es: {},
    af: {},
  } as unknown as Catalogues;

  it('uses the language plural rules', () => {
    expect(translator(catalogues, 'de')('days', { n: 1 })).toBe('1 Tag');
    expect(translator(catalogues, 'de')('days', { n: 3 })).toBe('3 Tage');
    expect(translator(catalogues, 'en')('days', { n: 0 })).toBe('0 days');
  });

  it('falls back to English for a missing key, and throws for a key English lacks', () => {
    expect(translator(catalogues, 'de')('only')).toBe('English only');
    expect(() => translator(catalogues, 'de')('nope')).toThrow(/no message "nope"/);
  });
});

describe('message catalogues', () => {
  it('every shipped language has every key, with the same arguments, in ICU MessageFormat', () => {
    expect(catalogueProblems(MESSAGES_DIR)).toEqual([]);
  });

  it('the check finds missing files and keys, extra keys, renamed arguments and bad syntax', () => {
    const problems = catalogueProblems(join(import.meta.dirname, '../fixtures/i18n-broken'));
    expect(problems).toEqual(
      expect.arrayContaining([
        'demo/de: missing key "days"',
        'demo/fr: "greeting" uses {nom}, English uses {name}',
        'demo/es: key "extra" is not in en.json',
        'demo/af: no af.json',
      ]),
    );
    expect(problems.some((p) => p.startsWith('demo/es "days": not ICU MessageFormat'))).toBe(true);
    expect(surfacesIn(join(import.meta.dirname, '../fixtures/i18n-broken'))).toEqual(['demo']);
  });
});
