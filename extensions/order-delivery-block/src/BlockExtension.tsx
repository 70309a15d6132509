// The order's same-day delivery, in the order page. Reads and acts through the
// app's admin API; fetch to relative URLs goes to the app, and Shopify adds
// the ID token the backend verifies.
import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export default async () => {
  render(<Extension />, document.body);
};

interface Delivery {
  id: string;
  status: string;
  statusLabel: string;
  price: string | null;
  currency: string | null;
  dispatchJobId: string | null;
  courierStatus: string | null;
  trackingUrl: string | null;
  attention: { title: string; detail: string | null; hint: string | null } | null;
  actions: Array<'dispatch' | 'retry' | 'fix' | 'redispatch'>;
  /** The delivery slot the customer chose on the cart. */
  slot: { start: string; end: string } | null;
}

function slotText(slot: { start: string; end: string }): string {
  const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(slot.start));
  return `${day}–${new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(new Date(slot.end))}`;
}

type Tone = 'info' | 'success' | 'warning' | 'critical' | 'neutral';
const TONES: Record<string, Tone> = {
  PENDING: 'info',
  SKIPPED: 'neutral',
  NEEDS_ATTENTION: 'warning',
  FAILED: 'critical',
  CREATED: 'success',
  IN_PROGRESS: 'info',
  DELIVERED: 'success',
  CANCEL_REQUESTED_IN_SHOPIFY: 'critical',
  // Outside the delivery window: the banner below gives the planned time, with Dispatch now.
  SCHEDULED: 'warning',
};

async function call<T>(path: string, method: 'GET' | 'POST' = 'GET'): Promise<T> {
  const res = await fetch(path, method === 'POST' ? { method, headers: { 'Content-Type': 'application/json' }, body: '{}' } : {});
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error ?? `The app answered HTTP ${res.status}`);
  return body as T;
}

function Extension() {
  const orderGid = shopify.data.selected[0]?.id ?? '';
  const orderId = orderGid.split('/').pop() ?? '';
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  const [loading, setLoading] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function load() {
    try {
      const r = await call<{ delivery: Delivery | null }>(`/api/orders/${orderId}/delivery`);
      setDelivery(r.delivery);
      setError(null);
      return r.delivery;
    } catch (e) {
      setError((e as Error).message);
      return null;
    } finally {
      setLoading(false);
    }
  }

  useEffect(() => {
    void load();
  }, [orderId]);

  // Follow a queued dispatch until the courier answers.
  useEffect(() => {
    if (delivery?.status !== 'PENDING') return;
    const t = setTimeout(() => void load(), 1500);
    return () => clearTimeout(t);
  }, [delivery]);

  async function act(path: string, done: string) {
    setBusy(true);
    try {
      const r = await call<{ delivery: Delivery }>(path, 'POST');
      setDelivery(r.delivery);
      setError(null);
      setNotice(done);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const collapsed = delivery ? `${delivery.statusLabel}${delivery.price ? ` · ${delivery.currency ?? ''} ${delivery.price}` : ''}` : 'No delivery';

  return (
    <s-admin-block heading="Same-day delivery" collapsedSummary={collapsed}>
      <s-stack gap="base">
        {loading && <s-spinner accessibilityLabel="Loading the delivery" />}
        {error && <s-banner tone="critical">{error}</s-banner>}
        {notice && !error && <s-text color="subdued">{notice}</s-text>}
        {!loading && !delivery && (
          <s-stack gap="small">
            <s-text>No courier delivery for this order yet.</s-text>
            <s-button variant="primary" loading={busy} onClick={() => act(`/api/orders/${orderId}/dispatch`, 'Queued for dispatch')}>
              Dispatch now
            </s-button>
          </s-stack>
        )}
        {delivery && (
          <s-stack gap="small">
            <s-stack direction="inline" gap="small">
              <s-badge tone={TONES[delivery.status] ?? 'neutral'}>{delivery.statusLabel}</s-badge>
              {delivery.courierStatus && <s-badge tone="info">{delivery.courierStatus.replace(/_/g, ' ')}</s-badge>}
            </s-stack>
            {delivery.slot && <s-text>Delivery slot: {slotText(delivery.slot)}</s-text>}
            <s-text>Price: {delivery.price ? `${delivery.currency ?? ''} ${delivery.price}` : '—'}</s-text>
            <s-text>Job id: {delivery.dispatchJobId ?? '—'}</s-text>
            {delivery.trackingUrl ? (
              <s-link href={delivery.trackingUrl} target="_blank">
                Track the delivery
              </s-link>
            ) : (
              <s-text>Tracking: —</s-text>
            )}
            {delivery.attention && delivery.actions.length > 0 && (
              <s-banner tone="warning" heading={delivery.attention.title}>
                {delivery.attention.detail ?? delivery.attention.hint ?? ''}
              </s-banner>
            )}
            {delivery.actions.includes('retry') && (
              <s-button variant="primary" loading={busy} onClick={() => act(`/api/deliveries/${delivery.id}/retry`, 'Queued again')}>
                Retry
              </s-button>
            )}
            {delivery.actions.includes('dispatch') && (
              <s-button variant="primary" loading={busy} onClick={() => act(`/api/deliveries/${delivery.id}/dispatch`, 'Queued for dispatch')}>
                Dispatch now
              </s-button>
            )}
          </s-stack>
        )}
      </s-stack>
    </s-admin-block>
  );
}
