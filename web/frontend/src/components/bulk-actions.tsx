// Bulk actions on the Deliveries page: a checkbox per row, a bar that runs
// dispatch, retry or quote on the selected orders (POST /api/bulk), and the
// result of each order, in its row and in the bar. Which order allows what is
// the server's answer (a refusal per order), not decided here.
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';
import { money } from '../format.ts';
import type { BulkAction, BulkOrderResult, BulkResult, DeliverySummary } from '../types.ts';

/** The endpoint's limit (web/admin/services/bulk-rules.ts BULK_MAX_ORDERS). */
const MAX = 50;
const LABELS: Record<BulkAction, string> = { dispatch: 'Dispatch', retry: 'Retry', quote: 'Get quotes' };
const TONES: Record<BulkOrderResult['outcome'], 'success' | 'warning' | 'critical'> = { ok: 'success', refused: 'warning', not_found: 'critical' };
/** Dispatch and retry only queue: the courier's answer comes later, in the delivery's status. */
const DONE: Record<BulkAction, string> = { dispatch: 'queued', retry: 'queued', quote: 'quoted' };
const outcomeLabel = (action: BulkAction, outcome: BulkOrderResult['outcome']) => (outcome === 'ok' ? (action === 'quote' ? 'Quoted' : 'Queued') : outcome === 'refused' ? 'Refused' : 'Not found');

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

const nameOf = (d: Pick<DeliverySummary, 'orderName' | 'shopifyOrderId'>) => d.orderName || `Order ${d.shopifyOrderId}`;

/** The header cell: select every row on this page. */
export function BulkHeader(props: { bulk: BulkState; rows: DeliverySummary[] }) {
  const ids = props.rows.map((d) => d.shopifyOrderId);
  const all = ids.length > 0 && ids.every((id) => props.bulk.selected.includes(id));
  return (
    <s-table-header>
      <s-checkbox label="Select all on this page" labelAccessibilityVisibility="exclusive" checked={all} disabled={!ids.length} onChange={(e) => props.bulk.setAll(ids, e.currentTarget.checked)} />
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
        <s-checkbox label={`Select ${nameOf(props.row)}`} labelAccessibilityVisibility="exclusive" checked={props.bulk.selected.includes(id)} onChange={(e) => props.bulk.toggle(id, e.currentTarget.checked)} />
        {r && props.bulk.last && <s-badge tone={TONES[r.outcome]}>{outcomeLabel(props.bulk.last.action, r.outcome)}</s-badge>}
      </s-stack>
    </s-table-cell>
  );
}

function resultText(r: BulkOrderResult): string {
  return r.quote ? `${money(r.quote.price, r.quote.currency)}${r.quote.aboveMax ? ` (above your maximum of ${r.quote.maxDeliveryPrice})` : ''}` : r.message;
}

/** The bar over the table: the actions while orders are selected, then each order's result. */
export function BulkBar(props: { bulk: BulkState; onDone: () => void }) {
  const { bulk } = props;
  const { last } = bulk;
  const n = bulk.selected.length;
  if (!n && !last) return null;
  const tooMany = n > MAX;
  return (
    <s-section accessibilityLabel="Bulk actions">
      <s-stack gap="base">
        <s-stack direction="inline" gap="small" alignItems="center">
          <s-text type="strong">{n} selected</s-text>
          {(['dispatch', 'retry', 'quote'] as const).map((a) => (
            <s-button key={a} variant={a === 'dispatch' ? 'primary' : 'secondary'} disabled={!n || tooMany || bulk.busy !== null} loading={bulk.busy === a} onClick={() => void bulk.run(a, props.onDone)}>
              {LABELS[a]}
            </s-button>
          ))}
          <s-button variant="tertiary" onClick={bulk.clear}>
            Clear selection
          </s-button>
        </s-stack>
        {tooMany && <s-banner tone="warning">Select at most {MAX} orders at a time.</s-banner>}
        {bulk.error && <s-banner tone="critical">{bulk.error}</s-banner>}
        {last && (
          <s-stack gap="small-200">
            <s-text>
              {LABELS[last.action]}: {last.counts.ok} {DONE[last.action]}, {last.counts.refused} refused, {last.counts.not_found} not found
            </s-text>
            <s-unordered-list>
              {last.results.map((r) => (
                <s-list-item key={r.orderId}>
                  <s-badge tone={TONES[r.outcome]}>{outcomeLabel(last.action, r.outcome)}</s-badge> {r.orderName ?? `Order ${r.orderId}`}: {resultText(r)}
                </s-list-item>
              ))}
            </s-unordered-list>
          </s-stack>
        )}
      </s-stack>
    </s-section>
  );
}
