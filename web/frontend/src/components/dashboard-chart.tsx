// The home page's 14-day chart as inline SVG (no chart library, no CDN): per
// day a group of three bars, bookings, delivered and problems. The SVG is a
// labelled group and each day one labelled image, so screen readers read the
// numbers day by day; the <title>s show them on hover.
import { count, shortDay } from '../format.ts';
import { t } from '../i18n.ts';
import type { HomeDashboard } from '../types.ts';

type Day = HomeDashboard['days'][number];

const SERIES = [
  { key: 'bookings', color: '#005bd3' },
  { key: 'delivered', color: '#29845a' },
  { key: 'problems', color: '#e51c00' },
] as const;
const seriesLabel = (key: (typeof SERIES)[number]['key']) => t(`chart.${key}`);

const W = 640;
const H = 180;
const TOP = 12;
const BOTTOM = 28;
const LEFT = 28;

export function DashboardChart(props: { days: Day[] }) {
  const max = Math.max(1, ...props.days.map((d) => Math.max(d.bookings, d.delivered, d.problems)));
  const plotH = H - TOP - BOTTOM;
  const slot = (W - LEFT) / Math.max(1, props.days.length);
  const bar = Math.max(2, (slot - 6) / SERIES.length);
  const total = props.days.reduce((n, d) => n + d.bookings, 0);
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="group" aria-labelledby="dashboard-chart-title dashboard-chart-desc" data-testid="dashboard-chart" style={{ maxWidth: `${W}px`, display: 'block' }}>
        <title id="dashboard-chart-title">{t('chart.title', { days: props.days.length })}</title>
        <desc id="dashboard-chart-desc">
          {t('chart.desc', { total, from: props.days[0] ? shortDay(props.days[0].date) : '', to: props.days.at(-1) ? shortDay(props.days.at(-1)!.date) : '' })}
        </desc>
        <line x1={LEFT} y1={TOP + plotH} x2={W} y2={TOP + plotH} stroke="#8a8a8a" stroke-width="1" />
        <text x={LEFT - 4} y={TOP + 4} font-size="10" text-anchor="end" fill="#616161">{count(max)}</text>
        <text x={LEFT - 4} y={TOP + plotH} font-size="10" text-anchor="end" fill="#616161">0</text>
        {props.days.map((d, i) => {
          const x0 = LEFT + i * slot + 3;
          const label = t('chart.day', { day: shortDay(d.date), booked: d.bookings, delivered: d.delivered, problems: d.problems });
          return (
            <g key={d.date} data-date={d.date} role="img" aria-label={label}>
              <title>{label}</title>
              {SERIES.map((s, j) => {
                const v = d[s.key];
                const h = (v / max) * plotH;
                return (
                  <rect key={s.key} data-series={s.key} x={x0 + j * bar} y={TOP + plotH - h} width={bar - 1} height={h} fill={s.color}>
                    <title>{`${seriesLabel(s.key)}: ${count(v)}`}</title>
                  </rect>
                );
              })}
              {i % 2 === props.days.length % 2 ? null : (
                <text x={x0 + (bar * SERIES.length) / 2} y={H - 10} font-size="10" text-anchor="middle" fill="#616161">
                  {shortDay(d.date)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <s-stack direction="inline" gap="base">
          {SERIES.map((s) => (
            <s-text key={s.key}>
              <span aria-hidden="true" style={{ display: 'inline-block', width: '10px', height: '10px', background: s.color, marginRight: '4px' }} />
              {seriesLabel(s.key)}
            </s-text>
          ))}
        </s-stack>
      </figcaption>
    </figure>
  );
}
