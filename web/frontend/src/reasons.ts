// Why a delivery needs the merchant, in their language: the reason code the
// server sent (web/admin/views.ts REASONS, whose English is the same catalogue's),
// or the server's own words for a code this page does not know.
import { tOr } from './i18n.ts';
import type { DeliverySummary } from './types.ts';

export function attentionText(a: NonNullable<DeliverySummary['attention']>): { title: string; hint: string | null } {
  if (!a.code) return { title: a.title, hint: a.hint };
  return { title: tOr(`reason.${a.code}.title`, a.title), hint: a.hint === null ? null : tOr(`reason.${a.code}.hint`, a.hint) };
}
