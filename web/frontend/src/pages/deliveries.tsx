// Deliveries: every order the app handled, newest first, with filters and
// pages. One or two lines a row: the order and when; its status and price; the
// reason it needs the merchant (once), or its latest step in words.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { StatusBadge, ErrorBanner } from '../components/common.tsx';
import { BulkBar, BulkCell, BulkHeader, useBulkSelection } from '../components/bulk-actions.tsx';
import { ago, count, money, STATUS_FILTERS, when } from '../format.ts';
import { t } from '../i18n.ts';
import { attentionText } from '../reasons.ts';
import { linkTo, navigate, pageParam } from '../router.ts';
import { useResource } from '../state.ts';
import { stepWords } from '../timeline.ts';
import type { DeliveryList, DeliverySummary } from '../types.ts';
import { ScheduledAt } from '../components/scheduled.tsx';

const PAGE_SIZE = 20;

/** A local calendar day → the UTC instant it starts (and the next day's start for "to"). */
function dayStart(day: string, plusDays = 0): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).toISOString();
}

/** What the row says: the reason it needs the merchant, else what happened last. */
function Latest(props: { d: DeliverySummary }) {
  const { d } = props;
  if (d.attention) {
    const a = attentionText(d.attention);
    return (
      <s-stack gap="none">
        <s-text type={d.actions.length ? 'strong' : undefined} color={d.actions.length ? undefined : 'subdued'}>
          {a.title}
        </s-text>
        {d.attention.detail && d.actions.length > 0 && (
          <span class="one-line" title={d.attention.detail}>
            <s-text color="subdued">{d.attention.detail}</s-text>
          </span>
        )}
      </s-stack>
    );
  }
  const e = d.lastEvent;
  if (!e) return <s-text color="subdued">—</s-text>;
  const words = stepWords(e);
  return (
    <s-stack gap="none">
      <s-text>{t(words.key, words.values)}</s-text>
      <s-text color="subdued">{ago(e.occurredAt)}</s-text>
    </s-stack>
  );
}

export function DeliveriesPage() {
  const [status, setStatus] = useState(pageParam('status'));
  const [search, setSearch] = useState(pageParam('q'));
  const [q, setQ] = useState(pageParam('q'));
  const [from, setFrom] = useState(pageParam('from'));
  const [to, setTo] = useState(pageParam('to'));
  const [cursors, setCursors] = useState<string[]>(['']);
  const debounce = useRef<number | undefined>(undefined);
  const bulk = useBulkSelection();

  // Filters live in the URL too, so a reload or a shared link keeps them.
  useEffect(() => {
    const params = new URLSearchParams();
    if (status) params.set('status', status);
    if (q) params.set('q', q);
    if (from) params.set('from', from);
    if (to) params.set('to', to);
    navigate(`/deliveries?${params}`, { replace: true });
    setCursors(['']);
  }, [status, q, from, to]);

  const path = useMemo(() => {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (status) params.set('status', status);
    if (q) params.set('q', q);
    const f = from && dayStart(from);
    const tt = to && dayStart(to, 1);
    if (f) params.set('from', f);
    if (tt) params.set('to', tt);
    const cursor = cursors.at(-1);
    if (cursor) params.set('cursor', cursor);
    return `/api/deliveries?${params}`;
  }, [status, q, from, to, cursors]);
  const list = useResource<DeliveryList>(path);
  const rows = list.data?.deliveries ?? [];
  const filtered = !!(status || q || from || to);
  const counts = list.data?.counts ?? {};
  const total = Object.values(counts).reduce((a, b) => a + b, 0);

  function onSearch(value: string) {
    setSearch(value);
    window.clearTimeout(debounce.current);
    debounce.current = window.setTimeout(() => setQ(value.trim()), 300);
  }

  const statusLabel = (value: string, label: string) => {
    if (!list.data) return label;
    const n = value ? value.split(',').reduce((a, s) => a + (counts[s] ?? 0), 0) : total;
    return t('deliveries.filter.count', { label, count: n });
  };

  return (
    <s-page heading={t('deliveries.heading')} inlineSize="large">
      <s-button slot="secondary-actions" onClick={() => void list.reload()}>
        {t('common.refresh')}
      </s-button>
      <ErrorBanner error={list.error} heading={t('deliveries.error')} />
      <BulkBar bulk={bulk} onDone={() => void list.reload()} />
      <s-section padding="none" accessibilityLabel={t('deliveries.heading')}>
        <s-table loading={list.loading} variant="auto">
          <s-grid slot="filters" gridTemplateColumns="minmax(200px, 2fr) minmax(160px, 1fr) minmax(140px, 1fr) minmax(140px, 1fr)" gap="small-200" alignItems="end">
            <s-search-field label={t('deliveries.search')} labelAccessibilityVisibility="exclusive" placeholder={t('deliveries.search.placeholder')} value={search} onInput={(e) => onSearch(e.currentTarget.value)} />
            <s-select label={t('deliveries.status')} labelAccessibilityVisibility="exclusive" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              {STATUS_FILTERS.map((f) => (
                <s-option key={f.value} value={f.value}>
                  {statusLabel(f.value, t(f.key))}
                </s-option>
              ))}
            </s-select>
            <s-date-field label={t('deliveries.from')} labelAccessibilityVisibility="exclusive" placeholder={t('deliveries.from.placeholder')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
            <s-date-field label={t('deliveries.to')} labelAccessibilityVisibility="exclusive" placeholder={t('deliveries.to.placeholder')} value={to} onChange={(e) => setTo(e.currentTarget.value)} />
          </s-grid>
          <s-table-header-row>
            <BulkHeader bulk={bulk} rows={rows} />
            <s-table-header listSlot="primary">{t('deliveries.col.order')}</s-table-header>
            <s-table-header listSlot="inline">{t('deliveries.col.status')}</s-table-header>
            <s-table-header format="currency">{t('deliveries.col.price')}</s-table-header>
            <s-table-header listSlot="secondary">{t('deliveries.col.latest')}</s-table-header>
          </s-table-header-row>
          <s-table-body>
            {rows.map((d) => (
              <s-table-row key={d.id}>
                <BulkCell bulk={bulk} row={d} />
                <s-table-cell>
                  <s-stack gap="none">
                    <s-link href={`/deliveries/${d.id}`} onClick={linkTo(`/deliveries/${d.id}`)}>
                      {d.orderName || t('common.orderId', { id: d.shopifyOrderId })}
                    </s-link>
                    <s-text color="subdued">{when(d.createdAt)}</s-text>
                  </s-stack>
                </s-table-cell>
                <s-table-cell>
                  <s-stack gap="none">
                    <StatusBadge status={d.status} label={d.statusLabel} />
                    <ScheduledAt at={d.scheduledFor} />
                  </s-stack>
                </s-table-cell>
                <s-table-cell>{money(d.price, d.currency)}</s-table-cell>
                <s-table-cell>
                  <Latest d={d} />
                </s-table-cell>
              </s-table-row>
            ))}
          </s-table-body>
        </s-table>
        {list.data && rows.length === 0 && !filtered && (
          <s-empty-state heading={t('deliveries.empty.heading')}>
            <s-paragraph>{t('deliveries.empty.body')}</s-paragraph>
            <s-button slot="primary-action" onClick={() => navigate('/settings/dispatch')}>
              {t('deliveries.empty.action')}
            </s-button>
          </s-empty-state>
        )}
        {list.data && rows.length === 0 && filtered && (
          <s-box padding="base">
            <s-stack gap="base" alignItems="center">
              <s-paragraph>{t('deliveries.noMatch')}</s-paragraph>
              <s-button
                onClick={() => {
                  setStatus('');
                  setSearch('');
                  setQ('');
                  setFrom('');
                  setTo('');
                }}
              >
                {t('deliveries.clearFilters')}
              </s-button>
            </s-stack>
          </s-box>
        )}
      </s-section>
      {(cursors.length > 1 || list.data?.nextCursor) && (
        <s-stack direction="inline" gap="base" justifyContent="center" alignItems="center">
          <s-button disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))} accessibilityLabel={t('deliveries.previous.label')}>
            {t('deliveries.previous')}
          </s-button>
          <s-text color="subdued">{t('deliveries.page', { page: count(cursors.length) })}</s-text>
          <s-button disabled={!list.data?.nextCursor} onClick={() => list.data?.nextCursor && setCursors((c) => [...c, list.data!.nextCursor!])} accessibilityLabel={t('deliveries.next.label')}>
            {t('deliveries.next')}
          </s-button>
        </s-stack>
      )}
    </s-page>
  );
}
