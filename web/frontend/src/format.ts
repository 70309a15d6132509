// Numbers, money, dates and durations in the merchant's language; dates and
// times in the shop's time zone (i18n.ts).
import { locale, t, timeZone } from './i18n.ts';

/** A decimal string in its currency ("79.50", "ZAR" → "R 79,50" in af). The string is formatted as is: no float. */
export function money(price: string | null | undefined, currency: string | null | undefined): string {
  if (!price) return '—';
  if (!currency || currency === 'XXX') return price;
  try {
    // Intl formats a decimal string exactly (ES2023 Intl.NumberFormat v3).
    return new Intl.NumberFormat(locale(), { style: 'currency', currency }).format(price as unknown as number);
  } catch {
    return `${currency} ${price}`;
  }
}

export function count(n: number): string {
  return new Intl.NumberFormat(locale()).format(n);
}

export function when(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short', timeZone: timeZone() }).format(new Date(iso));
}

export function time(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(locale(), { timeStyle: 'short', timeZone: timeZone() }).format(new Date(iso));
}

/** "3 min ago", "vor 2 Std."; older than a day: the date. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (s < 60) return t('time.justNow');
  const rtf = new Intl.RelativeTimeFormat(locale(), { numeric: 'auto', style: 'short' });
  if (s < 3600) return rtf.format(-Math.floor(s / 60), 'minute');
  if (s < 86400) return rtf.format(-Math.floor(s / 3600), 'hour');
  return when(iso);
}

/** 5400 → "1 hr, 30 min", "1 Std., 30 Min." (Intl.DurationFormat: the language's own units and order). */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  const min = Math.round(seconds / 60);
  const parts = { hours: Math.floor(min / 60), minutes: min % 60 };
  const DurationFormat = (Intl as unknown as { DurationFormat?: new (l: string, o: object) => { format(d: object): string } }).DurationFormat;
  if (DurationFormat) return new DurationFormat(locale(), { style: 'short' }).format(parts);
  const unit = (value: number, u: 'hour' | 'minute') => new Intl.NumberFormat(locale(), { style: 'unit', unit: u, unitDisplay: 'short' }).format(value);
  return parts.hours ? `${unit(parts.hours, 'hour')} ${unit(parts.minutes, 'minute')}` : unit(parts.minutes, 'minute');
}

/** "2026-11-23" → "23 Nov" (a date of the shop's calendar: no zone conversion). */
export function shortDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Intl.DateTimeFormat(locale(), { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(Date.UTC(y!, m! - 1, d!)));
}

export function percent(fraction: number): string {
  return new Intl.NumberFormat(locale(), { style: 'percent', maximumFractionDigits: 0 }).format(fraction);
}

export const STATUS_TONES: Record<string, 'info' | 'success' | 'warning' | 'critical' | 'neutral' | 'caution'> = {
  PENDING: 'info',
  SKIPPED: 'neutral',
  NEEDS_ATTENTION: 'warning',
  FAILED: 'critical',
  CREATED: 'success',
  IN_PROGRESS: 'info',
  DELIVERED: 'success',
  CANCEL_REQUESTED_IN_SHOPIFY: 'critical',
  SCHEDULED: 'caution',
};

/** The list's status filter: its value and the message key of its label. */
export const STATUS_FILTERS: Array<{ value: string; key: string }> = [
  { value: '', key: 'deliveries.filter.all' },
  { value: 'NEEDS_ATTENTION,FAILED', key: 'deliveries.filter.attention' },
  { value: 'PENDING', key: 'status.PENDING' },
  { value: 'SCHEDULED', key: 'status.SCHEDULED' },
  { value: 'CREATED', key: 'status.CREATED' },
  { value: 'IN_PROGRESS', key: 'status.IN_PROGRESS' },
  { value: 'DELIVERED', key: 'status.DELIVERED' },
  { value: 'SKIPPED', key: 'status.SKIPPED' },
  { value: 'CANCEL_REQUESTED_IN_SHOPIFY', key: 'status.CANCEL_REQUESTED_IN_SHOPIFY' },
];

/** Indents JSON text without re-serialising it, so number literals stay exactly as sent (1249.90, not 1249.9). */
export function prettyJson(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  const nl = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        depth++;
        out += c + nl();
      }
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      out += nl() + c;
    } else if (c === ',') out += `,${nl()}`;
    else if (c === ':') out += ': ';
    else if (!/\s/.test(c)) out += c;
  }
  return out;
}
