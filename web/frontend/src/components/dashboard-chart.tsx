// The home page's 14-day chart as inline SVG (no chart library, no CDN): per
// day a group of three bars, bookings, delivered and problems. The SVG is a
// labelled group and each day one labelled image, so screen readers read the
// numbers day by day; the <title>s show them on hover.
import type { HomeDashboard } from '../types.ts';

type Day = HomeDashboard['days'][number];

const SERIES = [
  { key: 'bookings', label: 'Booked', color: '#005bd3' },
  { key: 'delivered', label: 'Delivered', color: '#29845a' },
  { key: 'problems', label: 'Problems', color: '#e51c00' },
] as const;

const W = 640;
const H = 180;
const TOP = 12;
const BOTTOM = 28;
const LEFT = 28;

/** "2026-11-23" → "23 Nov" (the date as the shop's calendar has it, so no zone conversion). */
export function shortDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d!)).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

export function DashboardChart(props: { days: Day[] }) {
  const max = Math.max(1, ...props.days.map((d) => Math.max(d.bookings, d.delivered, d.problems)));
  const plotH = H - TOP - BOTTOM;
  const slot = (W - LEFT) / Math.max(1, props.days.length);
  const bar = Math.max(2, (slot - 6) / SERIES.length);
  const total = props.days.reduce((n, d) => n + d.bookings, 0);
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="group" aria-labelledby="dashboard-chart-title dashboard-chart-desc" data-testid="dashboard-chart" style={{ maxWidth: `${W}px`, display: 'block' }}>
        <title id="dashboard-chart-title">Bookings and outcomes, last {props.days.length} days</title>
        <desc id="dashboard-chart-desc">
          {total} bookings from {props.days[0] ? shortDay(props.days[0].date) : ''} to {props.days.at(-1) ? shortDay(props.days.at(-1)!.date) : ''}; per day: booked, delivered, problems.
        </desc>
        <line x1={LEFT} y1={TOP + plotH} x2={W} y2={TOP + plotH} stroke="#8a8a8a" stroke-width="1" />
        <text x={LEFT - 4} y={TOP + 4} font-size="10" text-anchor="end" fill="#616161">{max}</text>
        <text x={LEFT - 4} y={TOP + plotH} font-size="10" text-anchor="end" fill="#616161">0</text>
        {props.days.map((d, i) => {
          const x0 = LEFT + i * slot + 3;
          const label = `${shortDay(d.date)}: ${d.bookings} booked, ${d.delivered} delivered, ${d.problems} problems`;
          return (
            <g key={d.date} data-date={d.date} role="img" aria-label={label}>
              <title>{label}</title>
              {SERIES.map((s, j) => {
                const v = d[s.key];
                const h = (v / max) * plotH;
                return (
                  <rect key={s.key} data-series={s.key} x={x0 + j * bar} y={TOP + plotH - h} width={bar - 1} height={h} fill={s.color}>
                    <title>{`${s.label}: ${v}`}</title>
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
              {s.label}
            </s-text>
          ))}
        </s-stack>
      </figcaption>
    </figure>
  );
}
