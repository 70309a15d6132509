// The home page's figures for every day after onboarding (GET /api/dashboard):
// today's and this week's bookings and spend, the median paid → delivered
// time, what needs the merchant (with links), and the 14-day chart.
import { count, duration, money } from '../format.ts';
import { t } from '../i18n.ts';
import { linkTo } from '../router.ts';
import type { HomeDashboard } from '../types.ts';
import { DashboardChart } from './dashboard-chart.tsx';

export const ATTENTION_LINK = '/deliveries?status=NEEDS_ATTENTION,FAILED';
export const UNMATCHED_LINK = '/unmatched';

type Spend = HomeDashboard['today']['spend'];

function spendText(spend: Spend): string {
  return spend.length ? spend.map((m) => money(m.amount, m.currency)).join(' · ') : t('dashboard.noSpend');
}

function Stat(props: { label: string; value: string; detail?: string; testId: string }) {
  return (
    <s-box padding="base">
      <s-stack gap="small-200">
        <s-text color="subdued">{props.label}</s-text>
        <s-heading>
          <span data-testid={props.testId}>{props.value}</span>
        </s-heading>
        {props.detail && <s-text color="subdued">{props.detail}</s-text>}
      </s-stack>
    </s-box>
  );
}

/** After onboarding always; before it, only once there is something to count. */
export function dashboardShown(d: HomeDashboard, onboarded: boolean): boolean {
  return onboarded || d.days.some((x) => x.bookings > 0) || d.attention > 0 || d.unmatched > 0;
}

export function Dashboard(props: { data: HomeDashboard }) {
  const d = props.data;
  return (
    <s-section heading={t('dashboard.heading')} accessibilityLabel={t('dashboard.label')}>
      <s-stack gap="base">
        <s-grid gridTemplateColumns="repeat(auto-fit, minmax(160px, 1fr))" gap="base">
          <Stat testId="bookings-today" label={t('dashboard.today')} value={count(d.today.bookings)} detail={spendText(d.today.spend)} />
          <Stat testId="bookings-week" label={t('dashboard.week')} value={count(d.week.bookings)} detail={t('dashboard.week.detail', { spend: spendText(d.week.spend) })} />
          <Stat
            testId="median-delivery"
            label={t('dashboard.median')}
            value={duration(d.paidToDelivered.medianSeconds)}
            detail={t('dashboard.median.detail', { count: d.paidToDelivered.deliveries })}
          />
          <s-box padding="base">
            <s-stack gap="small-200">
              <s-text color="subdued">{t('dashboard.needsYou')}</s-text>
              <s-link href={ATTENTION_LINK} onClick={linkTo(ATTENTION_LINK)} data-testid="attention-count" data-count={d.attention}>
                {t('dashboard.attention', { count: d.attention })}
              </s-link>
              <s-link href={UNMATCHED_LINK} onClick={linkTo(UNMATCHED_LINK)} data-testid="unmatched-count" data-count={d.unmatched}>
                {t('dashboard.unmatched', { count: d.unmatched })}
              </s-link>
            </s-stack>
          </s-box>
        </s-grid>
        <DashboardChart days={d.days} />
        <s-text color="subdued">{t(d.timeZoneSource === 'fallback' ? 'dashboard.zone.fallback' : 'dashboard.zone.shop', { zone: d.timeZone })}</s-text>
      </s-stack>
    </s-section>
  );
}
