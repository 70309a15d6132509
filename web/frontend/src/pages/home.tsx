// Home: what needs the merchant (banners), the dashboard once there is something
// to count (components/dashboard.tsx), and the onboarding checklist (open until
// set up, then folded). Its three reads run together and the page renders once
// they are in, over a skeleton of the same shape: nothing pushes anything else
// down while data arrives (Built for Shopify CLS).
import { useResource } from '../state.ts';
import { t } from '../i18n.ts';
import { ErrorBanner } from '../components/common.tsx';
import { Dashboard, dashboardShown } from '../components/dashboard.tsx';
import { Checklist } from '../components/checklist.tsx';
import { SkeletonPage } from '../components/skeleton.tsx';
import { linkTo, navigate } from '../router.ts';
import type { DeliveryList, HomeDashboard, SettingsPayload } from '../types.ts';

export const ATTENTION_LINK = '/deliveries?status=NEEDS_ATTENTION,FAILED';

function Banners(props: { list: DeliveryList }) {
  const { counts, duplicateBookings = 0, unmatchedEvents = 0 } = props.list;
  const needs = (counts.NEEDS_ATTENTION ?? 0) + (counts.FAILED ?? 0);
  return (
    <>
      {needs > 0 && (
        <s-banner tone="warning" heading={t('home.attention', { count: needs })}>
          <s-link href={ATTENTION_LINK} onClick={linkTo(ATTENTION_LINK)}>
            {t('home.attention.link')}
          </s-link>
        </s-banner>
      )}
      {duplicateBookings > 0 && (
        <s-banner tone="critical" heading={t('home.duplicates', { count: duplicateBookings })}>
          <s-link href="/deliveries" onClick={linkTo('/deliveries')}>
            {t('home.duplicates.link')}
          </s-link>
        </s-banner>
      )}
      {unmatchedEvents > 0 && (
        <s-banner tone="warning" heading={t('home.unmatched', { count: unmatchedEvents })}>
          <s-link href="/unmatched" onClick={linkTo('/unmatched')}>
            {t('home.unmatched.link')}
          </s-link>
        </s-banner>
      )}
    </>
  );
}

export function Home() {
  const s = useResource<SettingsPayload>('/api/settings');
  const attention = useResource<DeliveryList>('/api/deliveries?status=NEEDS_ATTENTION,FAILED&limit=1');
  const dashboard = useResource<HomeDashboard>('/api/dashboard');
  const settled = (r: { data: unknown; error: string | null }) => r.data !== null || r.error !== null;
  if (![s, attention, dashboard].every(settled)) return <SkeletonPage heading={t('home.heading')} blocks={[140, 420]} />;

  const data = s.data;
  const complete = !!data?.onboarding.complete;
  return (
    <s-page heading={t('home.heading')}>
      <s-button slot="secondary-actions" onClick={() => navigate('/settings')}>
        {t('nav.settings')}
      </s-button>
      {attention.data && <Banners list={attention.data} />}
      <ErrorBanner error={s.error} heading={t('home.error.setup')} />
      <ErrorBanner error={dashboard.error} heading={t('home.error.figures')} />
      {dashboard.data && dashboardShown(dashboard.data, complete) && <Dashboard data={dashboard.data} />}
      {data &&
        (complete ? (
          // Set up: the checklist folds away, still one click from here.
          <details data-testid="onboarding-folded" class="fold">
            <summary>{t('home.allSet', { steps: data.onboarding.steps.length })}</summary>
            <Checklist data={data} onChange={(p) => (p ? s.set(p) : void s.reload())} />
          </details>
        ) : (
          <Checklist data={data} onChange={(p) => (p ? s.set(p) : void s.reload())} />
        ))}
    </s-page>
  );
}
