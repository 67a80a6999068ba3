// The overview: how the workspace's codes did over the last day or week — sends, conversion, delivery failures,
// over time, by channel and by country. The numbers come from src/stats (aggregate SQL); this page only shows them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FC } from 'hono/jsx';
import type { Services } from '../../services.js';
import type { Counts, OverviewStats } from '../../stats/overview.js';
import { HOUR_MS, type PeriodName, parsePeriodName } from '../../stats/period.js';
import { modeOfQuery } from '../../vocabulary/modes.js';
import { type BarDatum, CategoryBarChart, type Series, TimeBarChart } from '../charts.js';
import { TestDataToggle, withMode } from '../components.js';
import { BASE, Layout } from '../layout.js';
import { renderPage } from '../render.js';
import { workspaceOf } from '../session.js';

const PERIOD_LABELS: Record<PeriodName, string> = { day: 'Last 24 hours', week: 'Last 7 days' };

// Every send is exactly one of these, so the stacked bars add up to the sends. "Not verified" is told apart:
// still pending, expired unused, canceled (by the API or a newer code), failed (its attempts spent).
const SERIES: (Series & { key: Exclude<keyof Counts, 'sends'> })[] = [
  { key: 'verified', label: 'Verified', fill: '#1f7a4d' },
  { key: 'undelivered', label: 'Undelivered', fill: '#c2410c' },
  { key: 'failed', label: 'Failed (wrong codes)', fill: '#b91c1c' },
  { key: 'expired', label: 'Expired', fill: '#9fb3d1' },
  { key: 'canceled', label: 'Canceled', fill: '#c4b5fd' },
  { key: 'pending', label: 'Pending', fill: '#cbd5e1' },
];
const stack = (c: Counts) => SERIES.map((series) => c[series.key]);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const two = (n: number) => String(n).padStart(2, '0');
const hourOf = (ms: number) => `${two(new Date(ms).getUTCHours())}:00`;
const dateOf = (ms: number) => {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
};

export const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 100)}%`);

export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${two(seconds % 60)} s`;
}

function timelineData(stats: OverviewStats): BarDatum[] {
  const hourly = stats.period.name === 'day';
  return stats.timeline.map((b) => {
    const hour = new Date(b.start).getUTCHours();
    return {
      label: hourly
        ? `${dateOf(b.start)}, ${hourOf(b.start)}–${hourOf(b.start + HOUR_MS)} UTC`
        : dateOf(b.start),
      tick: hourly ? (hour % 3 === 0 ? hourOf(b.start) : undefined) : dateOf(b.start).slice(0, -4),
      minorTick: hourly && hour % 6 !== 0,
      values: stack(b),
    };
  });
}

const CHANNEL_NAMES: Record<string, string> = { sms: 'SMS', voice: 'Voice call' };
const rateNote = (c: Counts & { conversion: number | null }) =>
  `${c.sends} sent · ${percent(c.conversion)} verified${c.undelivered ? ` · ${c.undelivered} undelivered` : ''}`;

const Tile: FC<{ label: string; value: string; hint?: string }> = ({ label, value, hint }) => (
  <div class="stat">
    <span class="label">{label}</span>
    <span class="value">{value}</span>
    {hint && <span class="muted small">{hint}</span>}
  </div>
);

const PeriodSwitch: FC<{ current: PeriodName; test: boolean }> = ({ current, test }) => (
  <nav class="period-switch" aria-label="Period">
    {(Object.keys(PERIOD_LABELS) as PeriodName[]).map((p) => (
      <a
        href={`${BASE}?period=${p}${test ? '&mode=test' : ''}`}
        aria-current={p === current ? 'page' : undefined}
      >
        {PERIOD_LABELS[p]}
      </a>
    ))}
  </nav>
);

const EmptyState: FC<{ period: PeriodName; origin: string }> = ({ period, origin }) => (
  <article class="empty-state">
    <h2>No codes sent in the {PERIOD_LABELS[period].toLowerCase()}</h2>
    <p>
      Charts of sends, conversion and delivery failures appear here once your backend sends codes through the
      API.
      {period === 'day' && (
        <>
          {' '}
          Earlier sends may show in the <a href={`${BASE}?period=week`}>last 7 days</a>.
        </>
      )}
    </p>
    <p>
      To start, <a href={`${BASE}/settings/security/api-keys`}>create an API key</a> and send a code:
    </p>
    <pre>
      <code>{`curl -s ${origin}/v1/otp/send -H "Authorization: Bearer $KEY" \\
  -H 'Content-Type: application/json' -d '{"phone": "+61412345678", "channel": "sms"}'`}</code>
    </pre>
    <p class="small">
      Without a carrier, the development provider keeps each message in the{' '}
      <a href={`${BASE}/inbox`}>Inbox</a>. The <a href="/docs">API reference</a> describes every call.
    </p>
  </article>
);

const Charts: FC<{ stats: OverviewStats }> = ({ stats }) => {
  const { totals, channels, countries, period } = stats;
  const hourly = period.name === 'day';
  return (
    <>
      <section class="stats overview-stats" aria-label="Totals">
        <Tile label="Codes sent" value={String(totals.sends)} />
        <Tile label="Verified" value={String(totals.verified)} />
        <Tile label="Conversion rate" value={percent(totals.conversion)} hint="verified ÷ sent" />
        <Tile
          label="Delivery failures"
          value={String(totals.undelivered)}
          hint={
            totals.sends ? `${percent(totals.undelivered / totals.sends)} of sends undelivered` : undefined
          }
        />
        <Tile
          label="Not verified"
          value={String(totals.sends - totals.verified - totals.undelivered)}
          hint={`${totals.pending} pending · ${totals.expired} expired · ${totals.canceled} canceled · ${totals.failed} failed`}
        />
        <Tile label="Median time to verify" value={duration(totals.medianSecondsToVerify)} />
      </section>
      <section class="chart-panel chart-wide">
        <TimeBarChart
          id="chart-timeline"
          title={hourly ? 'Codes sent per hour (UTC)' : 'Codes sent per day (UTC)'}
          desc={`${totals.sends} codes sent, ${totals.verified} verified and ${totals.undelivered} undelivered, ${hourly ? 'hour by hour over the last 24 hours' : 'day by day over the last 7 days'}.`}
          series={SERIES}
          data={timelineData(stats)}
          category={hourly ? 'Hour (UTC)' : 'Day (UTC)'}
        />
      </section>
      <div class="charts">
        <section class="chart-panel">
          <CategoryBarChart
            id="chart-channels"
            title="By channel"
            desc={channels.map((c) => `${CHANNEL_NAMES[c.channel] ?? c.channel}: ${rateNote(c)}.`).join(' ')}
            series={SERIES}
            data={channels.map((c) => ({
              label: CHANNEL_NAMES[c.channel] ?? c.channel,
              values: stack(c),
              note: `${percent(c.conversion)} verified · ${c.undelivered} undelivered`,
            }))}
            category="Channel"
            noteLabel="Conversion · failures"
          />
        </section>
        <section class="chart-panel">
          <CategoryBarChart
            id="chart-countries"
            title="By destination country"
            desc={countries.map((c) => `${c.country}: ${rateNote(c)}.`).join(' ')}
            series={SERIES}
            data={countries.map((c) => ({
              label: c.country,
              values: stack(c),
              note: `${c.sends} sent · ${percent(c.conversion)}`,
            }))}
            category="Country"
            noteLabel="Sent · conversion"
          />
        </section>
      </div>
    </>
  );
};

const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

export function registerOverviewPage(app: FastifyInstance, services: Pick<Services, 'overview'>): void {
  app.get<{ Querystring: { period?: string; mode?: string } }>('/', async (request, reply) => {
    const workspace = workspaceOf(request);
    // Live data unless the "Test data" toggle asks for the test data.
    const mode = modeOfQuery(request.query);
    const test = mode === 'test';
    const stats = await services.overview.load(workspace.id, parsePeriodName(request.query.period), mode);
    const { period } = stats;
    return renderPage(request, reply, (ctx) => (
      <Layout ctx={ctx} title="Overview">
        <div class="page-head">
          <hgroup>
            <h1>Overview</h1>
            <p>
              {workspace.name} · since {dateOf(period.since)}
              {period.name === 'day' ? `, ${hourOf(period.since)}` : ''} UTC
            </p>
          </hgroup>
          <PeriodSwitch current={period.name} test={test} />
        </div>
        <TestDataToggle
          test={test}
          href={(on) => BASE + withMode(new URLSearchParams({ period: period.name }), on)}
        />
        {stats.totals.sends === 0 ? (
          <EmptyState period={period.name} origin={originOf(request)} />
        ) : (
          <Charts stats={stats} />
        )}
      </Layout>
    ));
  });
}
