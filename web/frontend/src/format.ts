export function money(price: string | null, currency: string | null): string {
  if (!price) return '—';
  return currency ? `${currency} ${price}` : price;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function ago(iso: string | null | undefined): string {
  if (!iso) return '';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return when(iso);
}

/** "courier_status" → "Courier status". */
export function humanize(kind: string): string {
  const s = kind.replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
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

export const STATUS_FILTERS: Array<{ value: string; label: string }> = [
  { value: '', label: 'All' },
  { value: 'NEEDS_ATTENTION,FAILED', label: 'Needs attention' },
  { value: 'PENDING', label: 'Queued' },
  { value: 'CREATED', label: 'Created' },
  { value: 'IN_PROGRESS', label: 'In progress' },
  { value: 'DELIVERED', label: 'Delivered' },
  { value: 'SKIPPED', label: 'Skipped' },
  { value: 'CANCEL_REQUESTED_IN_SHOPIFY', label: 'Cancel with courier' },
  { value: 'SCHEDULED', label: 'Scheduled' },
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
