// Bulk actions on the Deliveries page: a checkbox per row, a bar that runs
// dispatch, retry or quote on the selected orders (POST /api/bulk), and the
// result of each order, in its row and in the bar. Which order allows what is
// the server's answer (a refusal per order), not decided here.
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';
import { count, money } from '../format.ts';
import { t } from '../i18n.ts';
import type { BulkAction, BulkOrderResult, BulkResult, DeliverySummary } from '../types.ts';

/** The endpoint's limit (web/admin/services/bulk-rules.ts BULK_MAX_ORDERS). */
const MAX = 50;
const label = (a: BulkAction) => t(`bulk.action.${a}`);
const TONES: Record<BulkOrderResult['outcome'], 'success' | 'warning' | 'critical'> = { ok: 'success', refused: 'warning', not_found: 'critical' };
/** Dispatch and retry only queue: the courier's answer comes later, in the delivery's status. */
const outcomeLabel = (action: BulkAction, outcome: BulkOrderResult['outcome']) => t(outcome === 'ok' ? (action === 'quote' ? 'bulk.quoted' : 'bulk.queued') : outcome === 'refused' ? 'bulk.refused' : 'bulk.notFound');

export interface BulkState {
  selected: string[];
  results: Record<string, BulkOrderResult>;
  last: BulkResult | null;
  busy: BulkAction | null;
  error: string | null;
  toggle(orderId: string, on: boolean): void;
  setAll(orderIds: string[], on: boolean): void;
  clear(): void;
  run(action: BulkAction, onDone: () => void): Promise<void>;
}

export function useBulkSelection(): BulkState {
  const [selected, setSelected] = useState<string[]>([]);
  const [last, setLast] = useState<BulkResult | null>(null);
  const [busy, setBusy] = useState<BulkAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  const results = Object.fromEntries((last?.results ?? []).map((r) => [r.orderId, r]));
  return {
    selected, results, last, busy, error,
    toggle: (id, on) => setSelected((s) => (on ? (s.includes(id) ? s : [...s, id]) : s.filter((x) => x !== id))),
    setAll: (ids, on) => setSelected((s) => (on ? [...s, ...ids.filter((id) => !s.includes(id))] : s.filter((x) => !ids.includes(x)))),
    clear: () => {
      setSelected([]);
      setLast(null);
    },
    async run(action, onDone) {
      setBusy(action);
      setError(null);
      try {
        setLast(await post<BulkResult>('/api/bulk', { action, orderIds: selected }));
        onDone();
      } catch (e) {
        setError(e instanceof ApiError ? e.message : String(e));
      } finally {
        setBusy(null);
      }
    },
  };
}

const nameOf = (d: Pick<DeliverySummary, 'orderName' | 'shopifyOrderId'>) => d.orderName || t('common.orderId', { id: d.shopifyOrderId });

/** The header cell: select every row on this page. */
export function BulkHeader(props: { bulk: BulkState; rows: DeliverySummary[] }) {
  const ids = props.rows.map((d) => d.shopifyOrderId);
  const all = ids.length > 0 && ids.every((id) => props.bulk.selected.includes(id));
  return (
    <s-table-header>
      <s-checkbox label={t('bulk.selectAll')} labelAccessibilityVisibility="exclusive" checked={all} disabled={!ids.length} onChange={(e) => props.bulk.setAll(ids, e.currentTarget.checked)} />
    </s-table-header>
  );
}

/** A row's checkbox, with the last bulk result for its order. */
export function BulkCell(props: { bulk: BulkState; row: DeliverySummary }) {
  const id = props.row.shopifyOrderId;
  const r = props.bulk.results[id];
  return (
    <s-table-cell>
      <s-stack gap="small-400">
        <s-checkbox label={t('bulk.select', { order: nameOf(props.row) })} labelAccessibilityVisibility="exclusive" checked={props.bulk.selected.includes(id)} onChange={(e) => props.bulk.toggle(id, e.currentTarget.checked)} />
        {r && props.bulk.last && <s-badge tone={TONES[r.outcome]}>{outcomeLabel(props.bulk.last.action, r.outcome)}</s-badge>}
      </s-stack>
    </s-table-cell>
  );
}

function resultText(r: BulkOrderResult): string {
  if (!r.quote) return r.message;
  const price = money(r.quote.price, r.quote.currency);
  return r.quote.aboveMax ? t('quote.aboveMax', { price, max: money(r.quote.maxDeliveryPrice, r.quote.currency) }) : price;
}

/** The bar over the table: the actions while orders are selected, then each order's result. */
export function BulkBar(props: { bulk: BulkState; onDone: () => void }) {
  const { bulk } = props;
  const { last } = bulk;
  const n = bulk.selected.length;
  if (!n && !last) return null;
  const tooMany = n > MAX;
  return (
    <s-section accessibilityLabel={t('bulk.label')}>
      <s-stack gap="base">
        <s-stack direction="inline" gap="small" alignItems="center">
          <s-text type="strong">{t('bulk.selected', { count: n })}</s-text>
          {(['dispatch', 'retry', 'quote'] as const).map((a) => (
            <s-button key={a} variant={a === 'dispatch' ? 'primary' : 'secondary'} disabled={!n || tooMany || bulk.busy !== null} loading={bulk.busy === a} onClick={() => void bulk.run(a, props.onDone)}>
              {label(a)}
            </s-button>
          ))}
          <s-button variant="tertiary" onClick={bulk.clear}>
            {t('bulk.clear')}
          </s-button>
        </s-stack>
        {tooMany && <s-banner tone="warning">{t('bulk.tooMany', { max: MAX })}</s-banner>}
        {bulk.error && <s-banner tone="critical">{bulk.error}</s-banner>}
        {last && (
          <s-stack gap="small-200">
            <s-text>{t(`bulk.summary.${last.action}`, { ok: count(last.counts.ok), refused: count(last.counts.refused), notFound: count(last.counts.not_found) })}</s-text>
            <s-unordered-list>
              {last.results.map((r) => (
                <s-list-item key={r.orderId}>
                  <s-badge tone={TONES[r.outcome]}>{outcomeLabel(last.action, r.outcome)}</s-badge> {r.orderName ?? t('common.orderId', { id: r.orderId })}: {resultText(r)}
                </s-list-item>
              ))}
            </s-unordered-list>
          </s-stack>
        )}
      </s-stack>
    </s-section>
  );
}
