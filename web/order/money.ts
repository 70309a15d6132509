// Money as integer minor units (bigint cents) and decimal strings; never floats.

/** "250", "250.5", "250.505" → cents, rounding half up past 2 places. Null when not a decimal. */
export function toCents(text: string | number | null | undefined): bigint | null {
  if (text === null || text === undefined) return null;
  const s = String(text).trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  const [, sign, whole, frac = ''] = m;
  let cents = BigInt(whole!) * 100n + BigInt((frac + '00').slice(0, 2));
  if (frac.length > 2 && Number(frac[2]) >= 5) cents += 1n;
  return sign ? -cents : cents;
}

/** cents → "250.00". */
export function formatCents(cents: bigint): string {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  return `${neg ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** Normalises a decimal to exactly two places ("250" → "250.00"); null when not a decimal. */
export function money2(text: string | number | null | undefined): string | null {
  const c = toCents(text);
  return c === null ? null : formatCents(c);
}

/** Integer grams → kilograms as exact decimal text: 1250 → "1.25", 500 → "0.5", 2000 → "2". */
export function gramsToKg(grams: number): string {
  const g = Math.max(0, Math.round(grams));
  const whole = Math.floor(g / 1000);
  const frac = String(g % 1000).padStart(3, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}
