// Courier events that match no delivery: the raw event, when it came and the
// ids tried; attach one to a delivery (its courier id is learned and waiting
// events apply) or dismiss it.
import { useState } from 'preact/hooks';
import { post, toast } from '../api.ts';
import { ErrorBanner, Field, RawJson } from '../components/common.tsx';
import { SkeletonPage } from '../components/skeleton.tsx';
import { when } from '../format.ts';
import { t } from '../i18n.ts';
import { linkTo } from '../router.ts';
import { useResource } from '../state.ts';
import type { UnmatchedEvent } from '../types.ts';

export function UnmatchedPage() {
  const r = useResource<{ count: number; events: UnmatchedEvent[] }>('/api/courier-events/unmatched');
  if (!r.data && !r.error) return <SkeletonPage heading={t('unmatched.heading')} />;
  return (
    <s-page heading={t('unmatched.heading')}>
      <s-link slot="breadcrumb-actions" href="/" onClick={linkTo('/')}>
        {t('nav.home')}
      </s-link>
      <ErrorBanner error={r.error} heading={t('unmatched.error')} />
      {r.data && r.data.events.length === 0 && (
        <s-section>
          <s-paragraph>{t('unmatched.none')}</s-paragraph>
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
    <s-section heading={t('unmatched.event', { status: e.status ?? e.type, ref: e.deliveryRef ?? '—' })}>
      <s-stack gap="base">
        <ErrorBanner error={error} heading={t('delivery.actionFailed')} />
        <s-grid gridTemplateColumns="repeat(auto-fit, minmax(160px, 1fr))" gap="base">
          <Field label={t('unmatched.received')}>{when(e.receivedAt)}</Field>
          <Field label={t('unmatched.environment')}>{t(`env.name.${e.environment === 'live' ? 'live' : 'test'}`)}</Field>
          <Field label={t('unmatched.idsTried')}>{e.triedIds.join(', ') || '—'}</Field>
          <Field label={t('unmatched.tries')}>{String(e.attempts)}</Field>
        </s-grid>
        <RawJson label={t('unmatched.raw')} text={JSON.stringify(e.raw)} empty="" />
        <s-text-field label={t('unmatched.target')} value={delivery} placeholder="#1001" onInput={(ev) => setDelivery(ev.currentTarget.value)} />
        <s-stack direction="inline" gap="base">
          <s-button variant="primary" loading={busy === 'attach'} disabled={!delivery.trim() || (busy !== null && busy !== 'attach')} onClick={() => act('attach')}>
            {t('unmatched.attach')}
          </s-button>
          <s-button loading={busy === 'dismiss'} disabled={busy !== null && busy !== 'dismiss'} onClick={() => act('dismiss')}>
            {t('unmatched.dismiss')}
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}
