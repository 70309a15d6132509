// Settings › Customer data requests (Shopify's customers/data_request): each one
// the app recorded, with a download of the report to send the customer. No form.
import { useState } from 'preact/hooks';
import { ApiError, get, toast } from '../api.ts';
import { count, when } from '../format.ts';
import { t } from '../i18n.ts';
import { useResource } from '../state.ts';
// The API's own type (type-only: nothing of the server is bundled).
import type { DataRequestSummary } from '../../../privacy/data-requests.ts';

export function DataRequests() {
  const list = useResource<{ dataRequests: DataRequestSummary[] }>('/api/data-requests');
  const [busy, setBusy] = useState<string | null>(null);

  async function download(id: string) {
    setBusy(id);
    try {
      const report = await get<unknown>(`/api/data-requests/${encodeURIComponent(id)}`);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([JSON.stringify(report, null, 2)], { type: 'application/json' }));
      a.download = `data-request-${id}.json`;
      a.click();
      URL.revokeObjectURL(a.href);
      await list.reload();
    } catch (e) {
      toast(e instanceof ApiError ? e.message : String(e), true);
    } finally {
      setBusy(null);
    }
  }

  const rows = list.data?.dataRequests ?? [];
  return (
    <s-section heading={t('settings.section.privacy')}>
      <s-stack gap="base">
        <s-text color="subdued">{t('privacy.intro')}</s-text>
        {list.error && <s-banner tone="critical">{list.error}</s-banner>}
        {!list.loading && !list.error && rows.length === 0 && <s-text>{t('privacy.none')}</s-text>}
        {rows.length > 0 && (
          <s-table variant="auto">
            <s-table-header-row>
              <s-table-header listSlot="primary">{t('privacy.received')}</s-table-header>
              <s-table-header>{t('privacy.customer')}</s-table-header>
              <s-table-header>{t('privacy.deliveries')}</s-table-header>
              <s-table-header>{t('privacy.downloaded')}</s-table-header>
              <s-table-header>{t('privacy.report')}</s-table-header>
            </s-table-header-row>
            <s-table-body>
              {rows.map((r) => (
                <s-table-row key={r.id}>
                  <s-table-cell>{when(r.receivedAt)}</s-table-cell>
                  <s-table-cell>{r.customerId ?? '-'}</s-table-cell>
                  <s-table-cell>{count(r.deliveries)}</s-table-cell>
                  <s-table-cell>{r.exportedAt ? when(r.exportedAt) : t('privacy.notYet')}</s-table-cell>
                  <s-table-cell>
                    <s-button loading={busy === r.id} onClick={() => void download(r.id)}>
                      {t('privacy.download')}
                    </s-button>
                  </s-table-cell>
                </s-table-row>
              ))}
            </s-table-body>
          </s-table>
        )}
      </s-stack>
    </s-section>
  );
}
