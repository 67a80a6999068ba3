// Server-rendered SVG charts. No script and no inline style (the CSP forbids both): colours come from classes in
// dashboard.css (with fill attributes as a fallback). Horizontal positions are percentages and vertical ones
// pixels, so a chart stretches to its column while its text keeps its real size on a phone and on a desktop.
// Every chart is an image with a title and a description, followed by a table of the same numbers.
import type { FC } from 'hono/jsx';

export interface Series {
  /** Names the colour class: `series-<key>`. */
  key: string;
  label: string;
  /** Fallback fill, should the stylesheet not load. */
  fill: string;
}

/** One bar: its label and one value per series (stacked in series order). */
export interface BarDatum {
  label: string;
  /** Short axis label; omitted to leave the bar unlabelled (dense time axes). */
  tick?: string;
  /** Ticks that may be dropped on narrow screens. */
  minorTick?: boolean;
  values: number[];
  /** A closing remark per bar (e.g. "67% verified"), shown beside horizontal bars and in the table. */
  note?: string;
}

interface ChartProps {
  id: string;
  title: string;
  desc: string;
  series: Series[];
  data: BarDatum[];
  /** Heading of the table's first column (e.g. "Hour (UTC)", "Channel"). */
  category: string;
  /** Heading of the table's note column, when the data has notes. */
  noteLabel?: string;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const pct = (n: number) => `${Math.round(n * 1000) / 1000}%`;

/** A round upper bound for the axis (1, 2, 5 × 10^n) so gridlines fall on readable numbers. */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * magnitude >= value) return step * magnitude;
  }
  return 10 * magnitude;
}

const Legend: FC<{ series: Series[] }> = ({ series }) => (
  <ul class="chart-legend" aria-hidden="true">
    {series.map((s) => (
      <li>
        <span class={`swatch series-${s.key}`} />
        {s.label}
      </li>
    ))}
  </ul>
);

/** The numbers behind a chart, for screen readers and for anyone who wants them exact. */
const DataTable: FC<ChartProps> = ({ title, series, data, category, noteLabel }) => (
  <details class="chart-data">
    <summary>Show the numbers</summary>
    <div class="table-wrap">
      <table class="striped">
        <caption class="visually-hidden">{title}</caption>
        <thead>
          <tr>
            <th scope="col">{category}</th>
            {series.map((s) => (
              <th scope="col" class="num">
                {s.label}
              </th>
            ))}
            <th scope="col" class="num">
              Total
            </th>
            {noteLabel && <th scope="col">{noteLabel}</th>}
          </tr>
        </thead>
        <tbody>
          {data.map((d) => (
            <tr>
              <th scope="row">{d.label}</th>
              {d.values.map((v) => (
                <td class="num">{v}</td>
              ))}
              <td class="num">{sum(d.values)}</td>
              {noteLabel && <td>{d.note ?? ''}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </details>
);

const describeBar = (d: BarDatum, series: Series[]) =>
  `${d.label}: ${sum(d.values)} in total; ${series.map((s, i) => `${d.values[i] ?? 0} ${s.label.toLowerCase()}`).join(', ')}`;

const PLOT_TOP = 18;
const PLOT_HEIGHT = 170;
const AXIS_HEIGHT = 24;

/** Vertical stacked bars over time. */
export const TimeBarChart: FC<ChartProps> = (props) => {
  const { id, title, desc, series, data } = props;
  const max = niceMax(Math.max(0, ...data.map((d) => sum(d.values))));
  const scale = PLOT_HEIGHT / max;
  const baseline = PLOT_TOP + PLOT_HEIGHT;
  const slot = 100 / Math.max(1, data.length);
  const gridlines = [0, max / 2, max];
  return (
    <figure class="chart" id={id}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg
        class="chart-svg"
        width="100%"
        height={baseline + AXIS_HEIGHT}
        role="img"
        aria-labelledby={`${id}-svg-title`}
        aria-describedby={`${id}-svg-desc`}
      >
        <title id={`${id}-svg-title`}>{title}</title>
        <desc id={`${id}-svg-desc`}>{desc}</desc>
        {gridlines.map((g) => {
          const y = baseline - g * scale;
          return <line class="chart-grid" x1="0" x2="100%" y1={y} y2={y} stroke="#dfe3e8" />;
        })}
        {data.map((d, i) => {
          let top = baseline;
          return (
            <g>
              <title>{describeBar(d, series)}</title>
              {d.values.map((v, s) => {
                if (v <= 0) return null;
                const h = v * scale;
                top -= h;
                const spec = series[s];
                return (
                  <rect
                    class={`series-${spec?.key ?? s}`}
                    fill={spec?.fill}
                    x={pct(i * slot + slot * 0.15)}
                    width={pct(slot * 0.7)}
                    y={top}
                    height={h}
                  />
                );
              })}
              {d.tick && (
                <text
                  class={d.minorTick ? 'chart-tick tick-minor' : 'chart-tick'}
                  x={pct(i * slot + slot / 2)}
                  y={baseline + 16}
                  text-anchor="middle"
                >
                  {d.tick}
                </text>
              )}
            </g>
          );
        })}
        {/* Axis values sit on their gridlines, above the bars, with a halo so bars never hide them. */}
        {gridlines.slice(1).map((g) => (
          <text class="chart-axis" x="2" y={baseline - g * scale - 4}>
            {g % 1 === 0 ? g : g.toFixed(1)}
          </text>
        ))}
      </svg>
      <Legend series={series} />
      <DataTable {...props} />
    </figure>
  );
};

const ROW_HEIGHT = 46;
const BAR_HEIGHT = 14;

/** Horizontal stacked bars, one per category, longest scale = the largest total. */
export const CategoryBarChart: FC<ChartProps> = (props) => {
  const { id, title, desc, series, data } = props;
  const max = Math.max(1, ...data.map((d) => sum(d.values)));
  return (
    <figure class="chart" id={id}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg
        class="chart-svg"
        width="100%"
        height={data.length * ROW_HEIGHT + 4}
        role="img"
        aria-labelledby={`${id}-svg-title`}
        aria-describedby={`${id}-svg-desc`}
      >
        <title id={`${id}-svg-title`}>{title}</title>
        <desc id={`${id}-svg-desc`}>{desc}</desc>
        {data.map((d, i) => {
          const y = i * ROW_HEIGHT;
          let left = 0;
          return (
            <g>
              <title>{describeBar(d, series)}</title>
              <text class="chart-label" x="0" y={y + 16}>
                {d.label}
              </text>
              <text class="chart-note" x="100%" y={y + 16} text-anchor="end">
                {d.note ?? String(sum(d.values))}
              </text>
              <rect
                class="chart-track"
                x="0"
                width="100%"
                y={y + 24}
                height={BAR_HEIGHT}
                rx="3"
                fill="#eef1f4"
              />
              {d.values.map((v, s) => {
                if (v <= 0) return null;
                const w = (v / max) * 100;
                const x = left;
                left += w;
                const spec = series[s];
                return (
                  <rect
                    class={`series-${spec?.key ?? s}`}
                    fill={spec?.fill}
                    x={pct(x)}
                    width={pct(w)}
                    y={y + 24}
                    height={BAR_HEIGHT}
                  />
                );
              })}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
      <DataTable {...props} />
    </figure>
  );
};
