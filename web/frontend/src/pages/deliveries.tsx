// Deliveries: every order the app handled, newest first, with filters and
// pages. What needs the merchant shows its reason in plain words.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { StatusBadge, ErrorBanner } from '../components/common.tsx';
import { BulkBar, BulkCell, BulkHeader, useBulkSelection } from '../components/bulk-actions.tsx';
import { ago, humanize, money, STATUS_FILTERS, when } from '../format.ts';
import { linkTo, navigate, pageParam } from '../router.ts';
import { useResource } from '../state.ts';
import type { DeliveryList } from '../types.ts';
import { ScheduledAt } from '../components/scheduled.tsx';

const PAGE_SIZE = 20;

/** A local calendar day → the UTC instant it starts (and the next day's start for "to"). */
function dayStart(day: string, plusDays = 0): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).toISOString();
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
    const t = to && dayStart(to, 1);
    if (f) params.set('from', f);
    if (t) params.set('to', t);
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
    if (!value) return `${label} (${total})`;
    const n = value.split(',').reduce((a, s) => a + (counts[s] ?? 0), 0);
    return `${label} (${n})`;
  };

  return (
    <s-page heading="Deliveries" inlineSize="large">
      <s-button slot="secondary-actions" onClick={() => void list.reload()}>
        Refresh
      </s-button>
      <ErrorBanner error={list.error} heading="Could not load deliveries" />
      <BulkBar bulk={bulk} onDone={() => void list.reload()} />
      <s-section padding="none" accessibilityLabel="Deliveries">
        <s-table loading={list.loading} variant="auto">
          <s-grid slot="filters" gridTemplateColumns="minmax(200px, 2fr) minmax(160px, 1fr) minmax(140px, 1fr) minmax(140px, 1fr)" gap="small-200" alignItems="end">
            <s-search-field label="Search deliveries" labelAccessibilityVisibility="exclusive" placeholder="Search by order name, order id or courier reference" value={search} onInput={(e) => onSearch(e.currentTarget.value)} />
            <s-select label="Status" labelAccessibilityVisibility="exclusive" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              {STATUS_FILTERS.map((f) => (
                <s-option key={f.value} value={f.value}>
                  {list.data ? statusLabel(f.value, f.label) : f.label}
                </s-option>
              ))}
            </s-select>
            <s-date-field label="From" labelAccessibilityVisibility="exclusive" placeholder="From date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
            <s-date-field label="To" labelAccessibilityVisibility="exclusive" placeholder="To date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
          </s-grid>
          <s-table-header-row>
            <BulkHeader bulk={bulk} rows={rows} />
            <s-table-header listSlot="primary">Order</s-table-header>
            <s-table-header listSlot="inline">Status</s-table-header>
            <s-table-header format="currency">Price</s-table-header>
            <s-table-header>Job id</s-table-header>
            <s-table-header>Last event</s-table-header>
            <s-table-header listSlot="secondary">Attention</s-table-header>
          </s-table-header-row>
          <s-table-body>
            {rows.map((d) => (
              <s-table-row key={d.id}>
                <BulkCell bulk={bulk} row={d} />
                <s-table-cell>
                  <s-stack gap="small-400">
                    <s-link href={`/deliveries/${d.id}`} onClick={linkTo(`/deliveries/${d.id}`)}>
                      {d.orderName || `Order ${d.shopifyOrderId}`}
                    </s-link>
                    <s-text color="subdued">{when(d.createdAt)}</s-text>
                  </s-stack>
                </s-table-cell>
                <s-table-cell>
                  <StatusBadge status={d.status} label={d.statusLabel} />
                  <ScheduledAt at={d.scheduledFor} />
                </s-table-cell>
                <s-table-cell>{money(d.price, d.currency)}</s-table-cell>
                <s-table-cell>{d.dispatchJobId ?? '—'}</s-table-cell>
                <s-table-cell>
                  {d.lastEvent ? (
                    <s-stack gap="small-400">
                      <s-text>{d.lastEvent.message ?? humanize(d.lastEvent.kind)}</s-text>
                      <s-text color="subdued">{ago(d.lastEvent.occurredAt)}</s-text>
                    </s-stack>
                  ) : (
                    '—'
                  )}
                </s-table-cell>
                <s-table-cell>
                  {d.attention && d.actions.length ? (
                    <s-stack gap="small-400">
                      <s-text type="strong">{d.attention.title}</s-text>
                      {d.attention.detail && <s-text color="subdued">{d.attention.detail}</s-text>}
                    </s-stack>
                  ) : d.attention ? (
                    <s-text color="subdued">{d.attention.title}</s-text>
                  ) : (
                    ''
                  )}
                </s-table-cell>
              </s-table-row>
            ))}
          </s-table-body>
        </s-table>
        {list.data && rows.length === 0 && !filtered && (
          <s-empty-state heading="No deliveries yet">
            <s-paragraph>
              When a customer pays for an order with one of your same-day shipping methods, it appears here: booked with the courier, with its delivery price, job id and the latest status from the
              courier. Orders the app could not send (a missing phone number, an address without a map location, a courier refusal) appear here too, with what to fix.
            </s-paragraph>
            <s-button slot="primary-action" onClick={() => navigate('/settings')}>
              Review dispatch rules
            </s-button>
          </s-empty-state>
        )}
        {list.data && rows.length === 0 && filtered && (
          <s-box padding="base">
            <s-stack gap="base" alignItems="center">
              <s-paragraph>No deliveries match these filters.</s-paragraph>
              <s-button
                onClick={() => {
                  setStatus('');
                  setSearch('');
                  setQ('');
                  setFrom('');
                  setTo('');
                }}
              >
                Clear filters
              </s-button>
            </s-stack>
          </s-box>
        )}
      </s-section>
      {(cursors.length > 1 || list.data?.nextCursor) && (
        <s-stack direction="inline" gap="base" justifyContent="center" alignItems="center">
          <s-button disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))} accessibilityLabel="Previous page">
            Previous
          </s-button>
          <s-text color="subdued">Page {cursors.length}</s-text>
          <s-button disabled={!list.data?.nextCursor} onClick={() => list.data?.nextCursor && setCursors((c) => [...c, list.data!.nextCursor!])} accessibilityLabel="Next page">
            Next
          </s-button>
        </s-stack>
      )}
    </s-page>
  );
}
