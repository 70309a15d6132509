import { describe, expect, it } from 'vitest';
import { formatCents, gramsToKg, money2, toCents } from '../../web/order/money.ts';

describe('money', () => {
  it.each([
    ['250', 25000n, '250.00'],
    ['250.5', 25050n, '250.50'],
    ['1249.90', 124990n, '1249.90'],
    ['0.1', 10n, '0.10'],
    ['0.105', 11n, '0.11'], // half up, no float drift (0.105 is 0.10499… as a double)
    ['1.004', 100n, '1.00'],
    ['99999999999999999.99', 9999999999999999999n, '99999999999999999.99'],
    ['-3.10', -310n, '-3.10'],
  ])('%s → %s cents → %s', (text, cents, formatted) => {
    expect(toCents(text)).toBe(cents);
    expect(formatCents(cents)).toBe(formatted);
    expect(money2(text)).toBe(formatted);
  });

  it.each(['', 'abc', '1,50', '1.2.3', null, undefined])('rejects %s', (v) => {
    expect(toCents(v as string)).toBeNull();
  });

  it.each([
    [1250, '1.25'],
    [500, '0.5'],
    [2000, '2'],
    [1, '0.001'],
    [0, '0'],
  ])('%i g → %s kg', (g, kg) => expect(gramsToKg(g)).toBe(kg));
});
