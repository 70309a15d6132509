// One delivery: what needs the merchant and the action that fixes it first,
// then status and actions, the courier booking, the drop-off, the timeline
// (each step once, in words) and, folded, the exact request and response.
import { useEffect, useState } from 'preact/hooks';
import { post, toast } from '../api.ts';
import { ErrorBanner, Field, Loading, RawJson, StatusBadge } from '../components/common.tsx';
import { SkeletonPage } from '../components/skeleton.tsx';
import { money, when } from '../format.ts';
import { t } from '../i18n.ts';
import { attentionText } from '../reasons.ts';
import { linkTo, navigate } from '../router.ts';
import { useResource } from '../state.ts';
import { courierWords, timelineSteps } from '../timeline.ts';
import type { Action, ActionResult, DeliveryDetail } from '../types.ts';
import { CandidateCard, FixForm } from './delivery-fix.tsx';
import { ChosenSlot, ScheduledAt } from '../components/scheduled.tsx';

type Simple = Exclude<Action, 'fix'>;

/** Reasons the Fix form (or the geocoder's candidate) resolves: fixing is the primary action, not Retry. */
const FIXED_BY_CORRECTION = new Set(['invalid_phone', 'missing_phone', 'missing_coordinates', 'geocode_no_result', 'geocode_low_confidence', 'invalid_field']);

function Timeline(props: { d: DeliveryDetail }) {
  const steps = timelineSteps(props.d.timeline).reverse();
  if (!steps.length) return <s-paragraph>{t('timeline.empty')}</s-paragraph>;
  return (
    <ol class="timeline" reversed>
      {steps.map((s) => (
        <li key={s.id} data-tone={s.tone ?? undefined}>
          <s-stack direction="inline" gap="small-200" alignItems="center">
            <s-text type="strong">{t(s.key, s.values)}</s-text>
            {s.inShopify && <s-badge tone="info">{t('timeline.inShopify')}</s-badge>}
            {!s.applied && <s-badge tone="neutral">{t('timeline.notApplied')}</s-badge>}
            <s-text color="subdued">{when(s.at)}</s-text>
          </s-stack>
          {s.detail && (
            <div>
              <s-text color="subdued">{s.detail}</s-text>
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}

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

  async function act(action: Simple) {
    setBusy(action);
    setActionError(null);
    try {
      const res = await post<ActionResult>(`/api/deliveries/${props.id}/${action}`);
      r.set({ delivery: res.delivery });
      toast(action === 'check' ? res.message : t(`action.done.${action}`));
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
      const price = money(q.price, q.currency);
      setQuote(t('delivery.quote.result', { env: q.environment, price: q.aboveMax ? t('quote.aboveMax', { price, max: money(q.maxDeliveryPrice, q.currency) }) : price }));
    } catch (e) {
      setQuote(null);
      toast((e as Error).message, true);
      setActionError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }

  if (!d) {
    if (r.failure?.status === 404) {
      return (
        <s-page heading={t('delivery.notFound.heading')}>
          <s-link slot="breadcrumb-actions" href="/deliveries" onClick={linkTo('/deliveries')}>
            {t('nav.deliveries')}
          </s-link>
          <s-section>
            <s-stack gap="base">
              <s-paragraph>{t('delivery.notFound.body')}</s-paragraph>
              <s-stack direction="inline">
                <s-button variant="primary" onClick={() => navigate('/deliveries')}>
                  {t('delivery.notFound.action')}
                </s-button>
              </s-stack>
            </s-stack>
          </s-section>
        </s-page>
      );
    }
    if (r.error) {
      return (
        <s-page heading={t('delivery.heading')}>
          <ErrorBanner error={r.error} heading={t('delivery.error')}>
            <s-button onClick={() => void r.reload()}>{t('common.tryAgain')}</s-button>
          </ErrorBanner>
        </s-page>
      );
    }
    return <SkeletonPage heading={t('delivery.heading')} />;
  }

  const simple = d.actions.filter((a): a is Simple => a !== 'fix');
  const canFix = d.actions.includes('fix') && !d.redacted;
  const fixFirst = canFix && !!d.attention?.code && FIXED_BY_CORRECTION.has(d.attention.code);
  const attention = d.attention ? attentionText(d.attention) : null;
  const orderName = d.orderName || t('common.orderId', { id: d.shopifyOrderId });
  return (
    <s-page heading={t('delivery.title', { order: orderName })}>
      <s-link slot="breadcrumb-actions" href="/deliveries" onClick={linkTo('/deliveries')}>
        {t('nav.deliveries')}
      </s-link>
      <s-button slot="secondary-actions" onClick={() => void r.reload()}>
        {t('common.refresh')}
      </s-button>
      {pending && (
        <s-banner tone="info" heading={t('delivery.pending.heading')}>
          <Loading label={t('delivery.pending.body')} />
        </s-banner>
      )}
      {attention && d.actions.length > 0 && (
        <s-banner tone={d.status === 'FAILED' ? 'critical' : 'warning'} heading={attention.title}>
          <s-stack gap="small-200">
            {d.attention!.detail && <s-text>{d.attention!.detail}</s-text>}
            {attention.hint && <s-text color="subdued">{attention.hint}</s-text>}
          </s-stack>
        </s-banner>
      )}
      {attention && d.actions.length === 0 && d.status !== 'PENDING' && (
        <s-banner tone={d.status === 'CANCEL_REQUESTED_IN_SHOPIFY' ? 'critical' : 'info'} heading={attention.title}>
          {d.attention!.detail}
        </s-banner>
      )}
      <ErrorBanner error={actionError} heading={t('delivery.actionFailed')} />

      {/* The fix comes first when it is what the reason asks for. */}
      {d.geocodeCandidate && canFix && <CandidateCard delivery={d} onFixed={(v) => r.set({ delivery: v })} />}
      {fixFirst && <FixForm delivery={d} primary={!d.geocodeCandidate} onFixed={(v) => r.set({ delivery: v })} />}

      <s-section heading={t('delivery.status')}>
        <s-stack gap="base">
          <s-stack direction="inline" gap="small-200" alignItems="center">
            <StatusBadge status={d.status} label={d.statusLabel} />
            {d.courierStatus && <s-badge tone="info">{t('delivery.courierSays', { words: t(courierWords(d.courierStatus).key, courierWords(d.courierStatus).values) })}</s-badge>}
            {d.environment && <s-badge>{t(`env.name.${d.environment === 'live' ? 'live' : 'test'}`)}</s-badge>}
            <ChosenSlot slot={d.slot} />
            <ScheduledAt at={d.scheduledFor} />
          </s-stack>
          {(simple.length > 0 || canFix) && (
            <s-stack direction="inline" gap="base">
              {simple.map((a) => (
                <s-button key={a} variant={!fixFirst && a === simple[0] ? 'primary' : 'secondary'} loading={busy === a} disabled={busy !== null && busy !== a} onClick={() => act(a)}>
                  {t(`action.${a}`)}
                </s-button>
              ))}
              <s-button loading={busy === 'quote'} disabled={busy !== null && busy !== 'quote'} onClick={getQuote}>
                {t('action.quote')}
              </s-button>
            </s-stack>
          )}
          {simple.length > 0 && (
            <s-unordered-list>
              {simple.map((a) => (
                <s-list-item key={a}>
                  <s-text type="strong">{t(`action.${a}`)}:</s-text> {t(`action.${a}.help`)}
                </s-list-item>
              ))}
            </s-unordered-list>
          )}
          {quote && <s-text>{quote}</s-text>}
        </s-stack>
      </s-section>

      {canFix && !fixFirst && <FixForm delivery={d} primary={false} onFixed={(v) => r.set({ delivery: v })} />}

      <s-section heading={t('delivery.booking')}>
        <s-grid gridTemplateColumns="repeat(auto-fit, minmax(180px, 1fr))" gap="base">
          <Field label={t('delivery.price')}>{money(d.price, d.currency)}</Field>
          <Field label={t('delivery.jobId')}>{d.dispatchJobId ?? '—'}</Field>
          <Field label={t('delivery.courierOrderId')}>{d.courierOrderId ?? '—'}</Field>
          <Field label={t('delivery.courierDeliveryId')}>{d.courierDeliveryId ?? '—'}</Field>
          <Field label={t('delivery.tracking')}>
            {d.trackingUrl ? (
              <s-link href={d.trackingUrl} target="_blank">
                {t('delivery.track')}
              </s-link>
            ) : (
              '—'
            )}
          </Field>
          <Field label={t('delivery.booked')}>{when(d.dispatchedAt)}</Field>
          <Field label={t('delivery.attempts')}>{t('delivery.attempts.value', { tries: d.tries, booking: d.generation })}</Field>
          <Field label={t('delivery.shopifyOrderId')}>{d.shopifyOrderId}</Field>
        </s-grid>
        {d.lastError && (
          <s-box paddingBlockStart="base">
            <s-text tone="critical">{t('delivery.lastError', { error: d.lastError })}</s-text>
          </s-box>
        )}
      </s-section>

      {d.dropoff && (
        <s-section heading={t('delivery.dropoff')}>
          <s-grid gridTemplateColumns="repeat(auto-fit, minmax(180px, 1fr))" gap="base">
            <Field label={t('delivery.recipient')}>{d.dropoff.name ?? '—'}</Field>
            <Field label={t('delivery.address')}>{[d.dropoff.address1, d.dropoff.address2, d.dropoff.city, d.dropoff.zip, d.dropoff.countryCode].filter(Boolean).join(', ') || '—'}</Field>
            <Field label={t('delivery.phone')}>{d.dropoff.phone ? (d.overrides?.phone ? t('delivery.corrected', { value: d.dropoff.phone }) : d.dropoff.phone) : '—'}</Field>
            <Field label={t('delivery.mapLocation')}>
              {d.overrides?.latitude !== undefined
                ? t('delivery.corrected', { value: `${d.overrides.latitude}, ${d.overrides.longitude}` })
                : d.dropoff.latitude !== null && d.dropoff.longitude !== null
                  ? `${d.dropoff.latitude}, ${d.dropoff.longitude}`
                  : '—'}
            </Field>
          </s-grid>
        </s-section>
      )}
      {d.redacted && (
        <s-section heading={t('delivery.dropoff')}>
          <s-paragraph>{t('delivery.redacted')}</s-paragraph>
        </s-section>
      )}

      <s-section heading={t('delivery.timeline')}>
        <Timeline d={d} />
      </s-section>

      <s-section heading={t('delivery.exchange')}>
        <s-stack gap="base">
          {d.requestId && <s-text color="subdued">{t('delivery.requestId', { id: d.requestId })}</s-text>}
          <RawJson label={t('delivery.request')} text={d.requestText} empty={t('delivery.request.none')} />
          <RawJson label={t('delivery.response')} text={d.responseText} empty={t('delivery.response.none')} />
        </s-stack>
      </s-section>
    </s-page>
  );
}
