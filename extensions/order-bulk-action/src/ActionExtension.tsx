// Orders list → select orders → More actions → Same-day delivery: dispatch,
// retry or quote them, and show what happened to each. Relative fetches go to
// the app, and Shopify adds the ID token the backend verifies.
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { useState } from 'preact/hooks';
import type { BulkAction, BulkOrderResult, BulkResult } from '../../../web/admin/contract.ts';
import { BULK_MAX, bulkRequest, sendBulk } from './request.ts';

export default async () => {
  render(<Extension />, document.body);
};

const LABELS: Record<BulkAction, string> = { dispatch: 'Dispatch', retry: 'Retry', quote: 'Get quotes' };
const TONES: Record<BulkOrderResult['outcome'], 'success' | 'warning' | 'critical'> = { ok: 'success', refused: 'warning', not_found: 'critical' };
/** Dispatch and retry only queue: the courier's answer comes later, in the delivery's status. */
const DONE: Record<BulkAction, string> = { dispatch: 'queued', retry: 'queued', quote: 'quoted' };
const outcomeLabel = (action: BulkAction, outcome: BulkOrderResult['outcome']) => (outcome === 'ok' ? (action === 'quote' ? 'Quoted' : 'Queued') : outcome === 'refused' ? 'Refused' : 'Not found');

function Extension() {
  const selected = shopify.data.selected;
  const [busy, setBusy] = useState<BulkAction | null>(null);
  const [result, setResult] = useState<BulkResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const tooMany = selected.length > BULK_MAX;

  async function run(action: BulkAction) {
    setBusy(action);
    setError(null);
    try {
      setResult(await sendBulk(bulkRequest(action, selected)));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }

  const button = (action: BulkAction, slot: 'primary-action' | 'secondary-actions') => (
    <s-button slot={slot} variant={slot === 'primary-action' ? 'primary' : 'secondary'} disabled={tooMany || busy !== null} loading={busy === action} onClick={() => run(action)}>
      {LABELS[action]}
    </s-button>
  );

  return (
    <s-admin-action heading={`Same-day delivery: ${selected.length} order${selected.length === 1 ? '' : 's'}`}>
      <s-stack gap="base">
        {tooMany && <s-banner tone="warning">Select at most {BULK_MAX} orders at a time.</s-banner>}
        {error && <s-banner tone="critical">{error}</s-banner>}
        {!result && !tooMany && <s-text>Dispatch books a courier for each order the app may send; Retry sends failed ones again; Get quotes prices them without booking.</s-text>}
        {result && (
          <s-stack gap="small">
            <s-text type="strong">
              {LABELS[result.action]}: {result.counts.ok} {DONE[result.action]}, {result.counts.refused} refused, {result.counts.not_found} not found
            </s-text>
            {result.results.map((r) => (
              <s-stack key={r.orderId} direction="inline" gap="small">
                <s-badge tone={TONES[r.outcome]}>{outcomeLabel(result.action, r.outcome)}</s-badge>
                <s-text type="strong">{r.orderName ?? `Order ${r.orderId}`}</s-text>
                <s-text>{r.message}</s-text>
              </s-stack>
            ))}
          </s-stack>
        )}
      </s-stack>
      {result ? (
        <s-button slot="primary-action" variant="primary" onClick={() => shopify.close()}>
          Done
        </s-button>
      ) : (
        button('dispatch', 'primary-action')
      )}
      {button('quote', 'secondary-actions')}
      {button('retry', 'secondary-actions')}
    </s-admin-action>
  );
}
