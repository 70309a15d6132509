// Courier events that match no delivery: the raw event, when it came and the
// ids tried; attach one to a delivery (its courier id is learned and waiting
// events apply) or dismiss it.
import { useState } from 'preact/hooks';
import { post, toast } from '../api.ts';
import { ErrorBanner, Field, Loading } from '../components/common.tsx';
import { prettyJson, when } from '../format.ts';
import { linkTo } from '../router.ts';
import { useResource } from '../state.ts';
import type { UnmatchedEvent } from '../types.ts';

export function UnmatchedPage() {
  const r = useResource<{ count: number; events: UnmatchedEvent[] }>('/api/courier-events/unmatched');
  return (
    <s-page heading="Unmatched courier events">
      <s-link slot="breadcrumb-actions" href="/" onClick={linkTo('/')}>
        Home
      </s-link>
      <ErrorBanner error={r.error} heading="Could not load the events" />
      {!r.data && !r.error && <Loading label="Loading…" />}
      {r.data && r.data.events.length === 0 && (
        <s-section>
          <s-paragraph>Every courier event matched a delivery.</s-paragraph>
        </s-section>
      )}
      {r.data?.events.map((e) => <EventCard key={e.id} event={e} onDone={() => void r.reload()} />)}
    </s-page>
  );
}

function EventCard(props: { event: UnmatchedEvent; onDone: () => void }) {
  const e = props.event;
  const [delivery, setDelivery] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function act(action: 'attach' | 'dismiss') {
    setBusy(action);
    setError(null);
    try {
      const res = await post<{ message: string }>(`/api/courier-events/${e.id}/${action}`, action === 'attach' ? { deliveryId: delivery.trim() } : {});
      toast(res.message);
      props.onDone();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <s-section heading={`${e.status ?? e.type} for courier id ${e.deliveryRef ?? '—'}`}>
      <s-stack gap="base">
        <ErrorBanner error={error} heading="The action did not go through" />
        <Field label="Received">{when(e.receivedAt)}</Field>
        <Field label="Environment">{e.environment}</Field>
        <Field label="Ids tried">{e.triedIds.join(', ') || '—'}</Field>
        <Field label="Tries">{String(e.attempts)}</Field>
        <pre>{prettyJson(JSON.stringify(e.raw))}</pre>
        <s-text-field label="Delivery id or order name" value={delivery} placeholder="#1001" onInput={(ev) => setDelivery(ev.currentTarget.value)} />
        <s-stack direction="inline" gap="base">
          <s-button variant="primary" loading={busy === 'attach'} disabled={!delivery.trim() || (busy !== null && busy !== 'attach')} onClick={() => act('attach')}>
            Attach to delivery
          </s-button>
          <s-button loading={busy === 'dismiss'} disabled={busy !== null && busy !== 'dismiss'} onClick={() => act('dismiss')}>
            Dismiss
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}
