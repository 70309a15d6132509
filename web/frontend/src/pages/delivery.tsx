// One delivery: status, what needs fixing, the merchant's actions, the
// courier booking, the timeline and the exact request/response exchanged.
import { useEffect, useState } from 'preact/hooks';
import { post, toast } from '../api.ts';
import { ErrorBanner, Field, Loading, StatusBadge } from '../components/common.tsx';
import { humanize, money, prettyJson, when } from '../format.ts';
import { linkTo } from '../router.ts';
import { useResource } from '../state.ts';
import type { Action, ActionResult, DeliveryDetail } from '../types.ts';
import { CandidateCard, FixForm } from './delivery-fix.tsx';
import { ScheduledAt } from '../components/scheduled.tsx';

const ACTION_LABELS: Record<Exclude<Action, 'fix'>, string> = {
  dispatch: 'Dispatch now',
  retry: 'Retry',
  redispatch: 'Re-dispatch',
  check: 'Check status now',
  resolve: 'Mark resolved',
};

const ACTION_HELP: Record<Exclude<Action, 'fix'>, string> = {
  dispatch: 'Sends this order to the courier now, whatever the dispatch rules say.',
  retry: 'Sends the order again. If the courier already holds it, nothing is booked twice.',
  redispatch: 'Books a new courier delivery, for example after the courier failed or cancelled.',
  check: 'Asks the courier for this delivery’s status now, without waiting for its next webhook.',
  resolve: 'Clears the flag: you cancelled the extra courier orders, or gave the courier the new address.',
};

export function DeliveryPage(props: { id: string }) {
  const r = useResource<{ delivery: DeliveryDetail }>(`/api/deliveries/${props.id}`);
  const d = r.data?.delivery ?? null;
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [quote, setQuote] = useState<string | null>(null);

  // While the dispatch job runs, follow it.
  const pending = d?.status === 'PENDING';
  useEffect(() => {
    if (!pending) return;
    let stopped = false;
    let tries = 0;
    const tick = async () => {
      if (stopped) return;
      tries++;
      const v = await r.reload();
      if (!stopped && v?.delivery.status === 'PENDING' && tries < 120) timer = window.setTimeout(tick, 1000);
    };
    let timer = window.setTimeout(tick, 700);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [pending]);

  async function act(action: Exclude<Action, 'fix'>) {
    setBusy(action);
    setActionError(null);
    try {
      const res = await post<ActionResult>(`/api/deliveries/${props.id}/${action}`);
      r.set({ delivery: res.delivery });
      toast(res.message);
    } catch (e) {
      setActionError((e as Error).message);
      toast((e as Error).message, true);
    } finally {
      setBusy(null);
    }
  }

  async function getQuote() {
    setBusy('quote');
    try {
      const q = await post<{ price: string; currency: string | null; environment: string; aboveMax: boolean; maxDeliveryPrice: string | null }>(`/api/deliveries/${props.id}/quote`);
      setQuote(`${money(q.price, q.currency)} from the ${q.environment} courier${q.aboveMax ? ` — above your maximum of ${q.maxDeliveryPrice}` : ''}`);
    } catch (e) {
      setQuote(null);
      toast((e as Error).message, true);
      setActionError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }

  if (!d) {
    return (
      <s-page heading="Delivery">
        <s-link slot="breadcrumb-actions" href="/deliveries" onClick={linkTo('/deliveries')}>
          Deliveries
        </s-link>
        <ErrorBanner error={r.error} heading="Could not load this delivery" />
        {!r.error && <Loading label="Loading the delivery…" />}
      </s-page>
    );
  }

  const simple = d.actions.filter((a): a is Exclude<Action, 'fix'> => a !== 'fix');
  return (
    <s-page heading={`Delivery for ${d.orderName || `order ${d.shopifyOrderId}`}`}>
      <s-link slot="breadcrumb-actions" href="/deliveries" onClick={linkTo('/deliveries')}>
        Deliveries
      </s-link>
      <s-button slot="secondary-actions" onClick={() => void r.reload()}>
        Refresh
      </s-button>
      {pending && (
        <s-banner tone="info" heading="Sending to the courier">
          <Loading label="The order is queued; this page updates when the courier answers." />
        </s-banner>
      )}
      {d.attention && d.actions.length > 0 && (
        <s-banner tone={d.status === 'FAILED' ? 'critical' : 'warning'} heading={d.attention.title}>
          <s-stack gap="small-200">
            {d.attention.detail && <s-text>{d.attention.detail}</s-text>}
            {d.attention.hint && <s-text color="subdued">{d.attention.hint}</s-text>}
          </s-stack>
        </s-banner>
      )}
      {d.attention && d.actions.length === 0 && d.status !== 'PENDING' && (
        <s-banner tone={d.status === 'CANCEL_REQUESTED_IN_SHOPIFY' ? 'critical' : 'info'} heading={d.attention.title}>
          {d.attention.detail}
        </s-banner>
      )}
      <ErrorBanner error={actionError} heading="The action did not go through" />

      <s-section heading="Status">
        <s-stack gap="base">
          <s-stack direction="inline" gap="small-200" alignItems="center">
            <StatusBadge status={d.status} label={d.statusLabel} />
            {d.courierStatus && <s-badge tone="info">Courier: {humanize(d.courierStatus)}</s-badge>}
            {d.environment && <s-badge>{d.environment === 'live' ? 'Live' : 'Test'}</s-badge>}
            <ScheduledAt at={d.scheduledFor} />
          </s-stack>
          {(simple.length > 0 || d.actions.includes('fix')) && (
            <s-stack direction="inline" gap="base">
              {simple.map((a) => (
                <s-button key={a} variant={a === simple[0] ? 'primary' : 'secondary'} loading={busy === a} disabled={busy !== null && busy !== a} onClick={() => act(a)}>
                  {ACTION_LABELS[a]}
                </s-button>
              ))}
              <s-button loading={busy === 'quote'} disabled={busy !== null && busy !== 'quote'} onClick={getQuote}>
                Get a quote
              </s-button>
            </s-stack>
          )}
          {simple.length > 0 && (
            <s-unordered-list>
              {simple.map((a) => (
                <s-list-item key={a}>
                  <s-text type="strong">{ACTION_LABELS[a]}:</s-text> {ACTION_HELP[a]}
                </s-list-item>
              ))}
            </s-unordered-list>
          )}
          {quote && <s-text>Quote: {quote}</s-text>}
        </s-stack>
      </s-section>

      {d.geocodeCandidate && d.actions.includes('fix') && <CandidateCard delivery={d} onFixed={(v) => r.set({ delivery: v })} />}
      {d.actions.includes('fix') && !d.redacted && <FixForm delivery={d} onFixed={(v) => r.set({ delivery: v })} />}

      <s-section heading="Courier booking">
        <s-grid gridTemplateColumns="repeat(auto-fit, minmax(180px, 1fr))" gap="base">
          <Field label="Price">{money(d.price, d.currency)}</Field>
          <Field label="Job id">{d.dispatchJobId ?? '—'}</Field>
          <Field label="Courier order id">{d.courierOrderId ?? '—'}</Field>
          <Field label="Courier delivery id">{d.courierDeliveryId ?? '—'}</Field>
          <Field label="Tracking">
            {d.trackingUrl ? (
              <s-link href={d.trackingUrl} target="_blank">
                Track delivery
              </s-link>
            ) : (
              '—'
            )}
          </Field>
          <Field label="Booked">{when(d.dispatchedAt)}</Field>
          <Field label="Attempts">{`${d.tries} (booking ${d.generation})`}</Field>
          <Field label="Shopify order id">{d.shopifyOrderId}</Field>
        </s-grid>
        {d.lastError && (
          <s-box paddingBlockStart="base">
            <s-text tone="critical">Last error: {d.lastError}</s-text>
          </s-box>
        )}
      </s-section>

      {d.dropoff && (
        <s-section heading="Drop-off">
          <s-grid gridTemplateColumns="repeat(auto-fit, minmax(180px, 1fr))" gap="base">
            <Field label="Recipient">{d.dropoff.name ?? '—'}</Field>
            <Field label="Address">{[d.dropoff.address1, d.dropoff.address2, d.dropoff.city, d.dropoff.zip, d.dropoff.countryCode].filter(Boolean).join(', ') || '—'}</Field>
            <Field label="Phone">{d.dropoff.phone ? `${d.dropoff.phone}${d.overrides?.phone ? ' (corrected)' : ''}` : '—'}</Field>
            <Field label="Map location">
              {d.overrides?.latitude !== undefined
                ? `${d.overrides.latitude}, ${d.overrides.longitude} (corrected)`
                : d.dropoff.latitude !== null && d.dropoff.longitude !== null
                  ? `${d.dropoff.latitude}, ${d.dropoff.longitude}`
                  : '—'}
            </Field>
          </s-grid>
        </s-section>
      )}
      {d.redacted && (
        <s-section heading="Drop-off">
          <s-paragraph>The customer’s personal data was erased at their request.</s-paragraph>
        </s-section>
      )}

      <s-section heading="Timeline (newest first)">
        {d.timeline.length === 0 ? (
          <s-paragraph>No events yet.</s-paragraph>
        ) : (
          <s-unordered-list>
            {[...d.timeline].reverse().map((e) => (
              <s-list-item key={e.id}>
                <s-stack gap="small-400">
                  <s-stack direction="inline" gap="small-200" alignItems="center">
                    <s-text type="strong">{humanize(e.kind)}</s-text>
                    {e.status && <s-badge>{humanize(e.status)}</s-badge>}
                    {!e.applied && <s-badge tone="neutral">Not applied</s-badge>}
                    <s-text color="subdued">
                      {when(e.occurredAt)} · {e.source}
                    </s-text>
                  </s-stack>
                  {e.message && <s-text>{e.message}</s-text>}
                </s-stack>
              </s-list-item>
            ))}
          </s-unordered-list>
        )}
      </s-section>

      <s-section heading="Courier request and response">
        <s-stack gap="base">
          {d.requestId && <s-text color="subdued">Request id {d.requestId}</s-text>}
          <s-heading>Request</s-heading>
          {d.requestText ? <pre class="code">{prettyJson(d.requestText)}</pre> : <s-paragraph>Nothing was sent to the courier for this booking yet.</s-paragraph>}
          <s-heading>Response</s-heading>
          {d.responseText ? <pre class="code">{prettyJson(d.responseText)}</pre> : <s-paragraph>No answer stored.</s-paragraph>}
        </s-stack>
      </s-section>
    </s-page>
  );
}

