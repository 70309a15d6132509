// The home page's figures for every day after onboarding (GET /api/dashboard):
// today's and this week's bookings and spend, the median paid → delivered
// time, what needs the merchant (with links), and the 14-day chart.
import { linkTo } from '../router.ts';
import { useResource } from '../state.ts';
import type { HomeDashboard } from '../types.ts';
import { ErrorBanner, Loading } from './common.tsx';
import { DashboardChart } from './dashboard-chart.tsx';

export const ATTENTION_LINK = '/deliveries?status=NEEDS_ATTENTION,FAILED';
export const UNMATCHED_LINK = '/unmatched';

type Spend = HomeDashboard['today']['spend'];

function spendText(spend: Spend): string {
  return spend.length ? spend.map((m) => `${m.currency} ${m.amount}`).join(' · ') : 'No spend';
}

/** 5400 → "1 h 30 min"; 600 → "10 min". */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  const min = Math.round(seconds / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
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

/** `always`: show it even before any booking (after onboarding); otherwise only once there is something to show. */
export function Dashboard(props: { always: boolean }) {
  const r = useResource<HomeDashboard>('/api/dashboard');
  const d = r.data;
  if (r.error) return <ErrorBanner error={r.error} heading="Could not load your figures" />;
  if (!d) return props.always ? <Loading label="Loading your figures…" /> : null;
  const any = d.days.some((x) => x.bookings > 0) || d.attention > 0 || d.unmatched > 0;
  if (!props.always && !any) return null;
  return (
    <s-section heading="Today and this week" accessibilityLabel="Dashboard">
      <s-stack gap="base">
        <s-grid gridTemplateColumns="repeat(auto-fit, minmax(160px, 1fr))" gap="base">
          <Stat testId="bookings-today" label="Bookings today" value={String(d.today.bookings)} detail={spendText(d.today.spend)} />
          <Stat testId="bookings-week" label="Bookings this week" value={String(d.week.bookings)} detail={`Since Monday · ${spendText(d.week.spend)}`} />
          <Stat testId="median-delivery" label="Median paid → delivered" value={duration(d.paidToDelivered.medianSeconds)} detail={`${d.paidToDelivered.deliveries} delivered in 14 days`} />
          <s-box padding="base">
            <s-stack gap="small-200">
              <s-text color="subdued">Needs you</s-text>
              <s-link href={ATTENTION_LINK} onClick={linkTo(ATTENTION_LINK)}>
                <span data-testid="attention-count">{d.attention}</span> {d.attention === 1 ? 'delivery needs' : 'deliveries need'} attention
              </s-link>
              <s-link href={UNMATCHED_LINK} onClick={linkTo(UNMATCHED_LINK)}>
                <span data-testid="unmatched-count">{d.unmatched}</span> unmatched courier {d.unmatched === 1 ? 'event' : 'events'}
              </s-link>
            </s-stack>
          </s-box>
        </s-grid>
        <DashboardChart days={d.days} />
        <s-text color="subdued">
          Days in {d.timeZone}
          {d.timeZoneSource === 'fallback' ? ' (Shopify did not give the shop’s time zone)' : ' (your shop’s time zone)'}. Spend is the courier’s price of each booking.
        </s-text>
      </s-stack>
    </s-section>
  );
}
