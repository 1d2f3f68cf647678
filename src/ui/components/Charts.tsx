/**
 * The live charts, drawn with recharts' own primitives (Surface, CartesianAxis, Curve, Text)
 * rather than its LineChart container. Measured (CPU profile and trace of the page, e2e long
 * tasks): a LineChart redraw runs recharts 3's redux store, whose updates re-render the chart
 * synchronously several times (setChartData, axis and tick reports), 6-16 ms of main-thread CPU
 * per chart even with stable props, explicit ticks and ~120 points; with the trainer and sandbox
 * workers on the same 2 cores a task waits 3-10x its CPU time, so every redraw was a 50-300 ms
 * long task. The primitives take explicit coordinates and never touch that store: a redraw is
 * ~1-3 ms of CPU. The page computes what recharts' container did (chartData.ts): EMA smoothing,
 * min/max downsampling to DRAWN_POINTS, nice ticks, a linear scale.
 *
 * Each chart still redraws on its own turn (one chart per timer task, spread over
 * CHART_INTERVAL_MS, in a transition) and only when its series changed.
 */
import { memo, startTransition, useDeferredValue, useEffect, useMemo, useState } from 'react';
import { CartesianAxis, Curve, Layer, Surface, Text } from 'recharts';
import { allAlgorithms, taskDefinition } from '../../core/registry';
import type { ChartSpec } from '../../core/task';
import { chartView, tickLabel, xTickLabel } from '../chartData';
import { download } from '../download';
import { compareRun } from '../persistence';
import { CHART_INTERVAL_MS, metricsToCsv, metricsToJsonl, smooth, useLab, type ComparedRun, type MetricPoint } from '../store';

/** A chart of a figure no task or algorithm owns: the learned reward model's score (loop.ts). */
const loopCharts: ChartSpec[] = [
  { name: 'reward_model', title: 'reward model score', optional: true, caption: 'Mean score the learned reward model gives the sampled programs (--use-reward-model).' },
];

/** Series measured on held-out data (periodic evaluations), not on training batches. */
export const isHeldOut = (name: string) => name.startsWith('heldout_') || name.startsWith('eval_');

/**
 * A task's charts (its definition's), then what every algorithm reports (each shown once its series
 * has points, so a run sees its own algorithm's and a compared run's), each figure once.
 */
const chartLists = new Map<string, ChartSpec[]>();
function chartsOf(task: string): ChartSpec[] {
  let list = chartLists.get(task);
  if (!list) {
    const all = [...taskDefinition(task).charts, ...allAlgorithms().flatMap((algorithm) => (algorithm.charts ?? []).map((chart) => ({ ...chart, optional: true }))), ...loopCharts];
    list = all.filter((chart, i) => all.findIndex((other) => other.name === chart.name) === i);
    chartLists.set(task, list);
  }
  return list;
}

// Plot geometry (px): a 360 x 180 chart with room for labels such as -2.5e-3 and a last x tick.
const WIDTH = 360;
const HEIGHT = 180;
const LEFT = 54;
const RIGHT = 26;
const TOP = 6;
const BOTTOM = 24;
const plotWidth = WIDTH - LEFT - RIGHT;
const plotHeight = HEIGHT - TOP - BOTTOM;
const axisColor = '#666';
const stepTick = xTickLabel;
const wallTick = (v: number) => `${xTickLabel(v)}s`;
const tickText = { fontSize: 11 };
const xViewBox = { x: LEFT, y: TOP + plotHeight, width: plotWidth, height: BOTTOM };
const yViewBox = { x: 0, y: TOP, width: LEFT, height: plotHeight };

/** The live run's colour, then the compared runs' in the order they were ticked. */
const LIVE_COLOR = '#3b6fd8';
export const COMPARE_COLORS = ['#e67e22', '#27ae60', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d'];
const compareColor = (index: number) => COMPARE_COLORS[index % COMPARE_COLORS.length];

interface ChartProps {
  title: string;
  caption: string;
  points: MetricPoint[];
  /** Compared runs' series of the same metric, drawn in COMPARE_COLORS. */
  others: MetricPoint[][];
  x: 'step' | 'wallMs';
  gzip?: number;
  lzma?: number;
  /** Said in the plot while it has no point to draw. */
  empty?: string;
  /** The series before smoothing (it decides a log scale). */
  measured?: MetricPoint[];
}

/** A horizontal dashed reference line across the plot, labelled at its right end. */
function ReferenceValue(props: { y: number; color: string; label: string; below?: boolean }) {
  const points = [{ x: LEFT, y: props.y }, { x: LEFT + plotWidth, y: props.y }];
  return (
    <Layer className="reference">
      <Curve type="linear" points={points} stroke={props.color} strokeDasharray="4 4" fill="none" />
      <Text x={LEFT + plotWidth - 2} y={props.y + (props.below ? 10 : -3)} textAnchor="end" fontSize={10} fill={props.color}>{props.label}</Text>
    </Layer>
  );
}

/** Series of at most this many drawn points get a marker at each. */
const MARKED_POINTS = 24;

/**
 * A line in words, for a screen reader: its points, the last one, and its range, as measured
 * (`measured`, the raw series, when given: the drawn line may be smoothed and thinned), and how
 * many points the arrow keys read when fewer are drawn.
 */
export function chartSummary(data: readonly { x: number; y: number }[], x: 'step' | 'wallMs', measured?: readonly MetricPoint[]): string {
  const raw = measured?.filter((p) => Number.isFinite(p.value)).map((p) => ({ x: x === 'step' ? p.step : p.wallMs / 1000, y: p.value }));
  const points = raw && raw.length > 0 ? raw : data;
  if (points.length === 0) return 'no points yet';
  const last = points[points.length - 1];
  const ys = points.map((p) => p.y);
  const where = x === 'step' ? `step ${last.x}` : `${last.x.toFixed(1)} s`;
  const label = (value: number) => tickLabel(Number(value.toPrecision(4)));
  const drawn = points.length > data.length ? ` (${data.length} drawn)` : '';
  return `${points.length} point${points.length === 1 ? '' : 's'}${drawn}; last ${label(last.y)} at ${where}; lowest ${label(Math.min(...ys))}, highest ${label(Math.max(...ys))}. Arrow keys read each ${drawn ? 'drawn ' : ''}point.`;
}

/** What an empty chart says: nothing yet, or that the run reports the figure without a value. */
export function emptyNote(unvalued: boolean): string {
  return unvalued ? 'no value yet: the updates so far had nothing to learn from (their figure is not a number)' : 'no value yet';
}

export const Chart = memo(function Chart({ title, caption, points, others, x, gzip, lzma, empty, measured }: ChartProps) {
  const view = useMemo(() => chartView(points, x, [gzip ?? NaN, lzma ?? NaN], others, measured), [points, others, x, gzip, lzma, measured]);
  // The point under the pointer (its index in the drawn data), for the hover read-out.
  const [hover, setHover] = useState<number | null>(null);
  const [x0, x1] = view.xDomain;
  const [y0, y1] = view.yDomain;
  const toX = (value: number) => LEFT + ((value - x0) / (x1 - x0 || 1)) * plotWidth;
  const toY = (value: number) => TOP + (1 - ((view.log ? Math.log10(value) : value) - y0) / (y1 - y0 || 1)) * plotHeight;
  const line = view.data.map((p) => ({ x: toX(p.x), y: toY(p.y) }));
  const overlays = view.overlays.map((data) => data.map((p) => ({ x: toX(p.x), y: toY(p.y) })));
  const xTicks = view.xTicks.map((value, index) => ({ value, coordinate: toX(value), index }));
  // A log axis puts its ticks at powers of ten: placed at k, labelled 10^k.
  const yTicks = view.yTicks.map((value, index) => ({ value: view.log ? 10 ** value : value, coordinate: TOP + (1 - (value - y0) / (y1 - y0 || 1)) * plotHeight, index }));
  const onMove = (event: React.MouseEvent<HTMLDivElement>) => {
    if (line.length === 0) return;
    const px = event.clientX - event.currentTarget.getBoundingClientRect().left;
    let nearest = 0;
    for (let i = 1; i < line.length; i++) if (Math.abs(line[i].x - px) < Math.abs(line[nearest].x - px)) nearest = i;
    setHover(nearest);
  };
  const shown = hover !== null && hover < line.length ? hover : null;
  // From the keyboard: focus reads the last point, the arrows (Home, End) move along the line; the read-out is a live region.
  const onKey = (event: React.KeyboardEvent<HTMLDivElement>) => {
    if (line.length === 0) return;
    const at = shown ?? line.length - 1;
    const next = ({ ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: line.length - 1 } as Record<string, number>)[event.key];
    if (next === undefined) return;
    event.preventDefault();
    setHover(Math.max(0, Math.min(line.length - 1, next)));
  };
  return (
    <figure className="chart" data-testid={`chart-${title}`} data-points={points.length} data-drawn={view.data.length} data-log={view.log || undefined} data-compared={others.map((o) => o.length).join(',') || undefined}>
      <figcaption>{title}{view.log ? ' (log scale)' : ''}</figcaption>
      <div
        className="plot"
        tabIndex={0}
        role="group"
        aria-roledescription="chart"
        aria-label={`${title}: ${chartSummary(view.data, x, measured)}`}
        onMouseMove={onMove}
        onMouseLeave={() => setHover(null)}
        onFocus={() => line.length > 0 && setHover(line.length - 1)}
        onBlur={() => setHover(null)}
        onKeyDown={onKey}
      >
        <Surface width={WIDTH} height={HEIGHT}>
          <CartesianAxis className="x-axis" orientation="bottom" {...xViewBox} viewBox={xViewBox} ticks={xTicks} interval={0} stroke={axisColor} tick={tickText} tickFormatter={x === 'step' ? stepTick : wallTick} />
          <CartesianAxis className="y-axis" orientation="left" {...yViewBox} viewBox={yViewBox} ticks={yTicks} interval={0} stroke={axisColor} tick={tickText} tickFormatter={tickLabel} />
          {overlays.map((points, index) => points.length > 1 && <Curve key={index} type="linear" points={points} stroke={compareColor(index)} strokeWidth={1.2} strokeDasharray="5 2" fill="none" className="compared" />)}
          {line.length > 1 && <Curve type="linear" points={line} stroke={LIVE_COLOR} strokeWidth={1.5} fill="none" className="series" />}
          {/* A few points (held-out evaluations, a run's first steps) are marked too: one point is no line. */}
          {overlays.map((points, index) => points.length <= MARKED_POINTS && points.map((p, i) => <circle key={`${index}-${i}`} className="marker compared" cx={p.x} cy={p.y} r={2} fill={compareColor(index)} />))}
          {line.length <= MARKED_POINTS && line.map((p, i) => <circle key={i} className="marker" cx={p.x} cy={p.y} r={2.5} fill={LIVE_COLOR} />)}
          {gzip !== undefined && <ReferenceValue y={toY(gzip)} color="#c0392b" label="gzip" />}
          {lzma !== undefined && <ReferenceValue y={toY(lzma)} color="#8e44ad" label="LZMA" below />}
          {shown !== null && <circle cx={line[shown].x} cy={line[shown].y} r={3} fill={LIVE_COLOR} />}
          {empty && line.length === 0 && overlays.every((points) => points.length === 0) && <Text className="empty-note" x={LEFT + plotWidth / 2} y={TOP + plotHeight / 2} width={plotWidth - 16} textAnchor="middle" verticalAnchor="middle" fontSize={11} fill={axisColor}>{empty}</Text>}
        </Surface>
        {shown !== null && (
          <div className="chart-tooltip" role="status" data-testid="chart-tooltip" style={{ left: Math.min(line[shown].x + 8, WIDTH - 120), top: Math.max(0, line[shown].y - 28) }}>
            {x === 'step' ? 'step' : 'time'} {x === 'step' ? view.data[shown].x : `${view.data[shown].x.toFixed(1)}s`}: <b>{tickLabel(Number(view.data[shown].y.toPrecision(4)))}</b>
          </div>
        )}
      </div>
      <p className="chart-caption">{caption}</p>
    </figure>
  );
});

/**
 * One chart that takes its metric from the store on its own turn: the charts redraw in turn,
 * spread over CHART_INTERVAL_MS, in a transition (React yields between components).
 */
const noPoints: MetricPoint[] = [];
const noRuns: ComparedRun[] = [];

const StaggeredChart = memo(function StaggeredChart(props: { index: number; count: number; name: string; title: string; caption: string; weight: number; x: 'step' | 'wallMs'; gzip?: number; lzma?: number }) {
  const [points, setPoints] = useState<MetricPoint[]>(() => useLab.getState().series.get(props.name) ?? []);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const latest = useLab.getState().series.get(props.name) ?? noPoints; // a new run clears the chart
      startTransition(() => setPoints(latest)); // the same array: React bails out, nothing redraws
      timer = setTimeout(tick, CHART_INTERVAL_MS);
    };
    timer = setTimeout(tick, (CHART_INTERVAL_MS / props.count) * props.index);
    return () => clearTimeout(timer);
  }, [props.name, props.index, props.count]);
  // Held-out figures are measurements of their own, a few points apart: drawn as measured, never smoothed.
  const weight = isHeldOut(props.name) ? 0 : props.weight;
  const smoothed = useMemo(() => smooth(points, weight), [points, weight]);
  // Compared runs are stored whole: smoothed alike, drawn when their set changes.
  const compared = useLab((s) => (s.compared.length ? s.compared : noRuns));
  const others = useMemo(() => compared.map((run) => smooth(run.series.get(props.name) ?? noPoints, weight)), [compared, props.name, weight]);
  const unvalued = useLab((s) => s.unvalued.has(props.name));
  return <Chart title={props.title} caption={props.caption} points={smoothed} others={others} x={props.x} gzip={props.gzip} lzma={props.lzma} empty={emptyNote(unvalued)} measured={points} />;
});

export function Charts() {
  const [weight, setWeight] = useState(0.6);
  const [x, setX] = useState<'step' | 'wallMs'>('step');
  // The slider stays responsive: the charts follow at a lower priority.
  const chartWeight = useDeferredValue(weight);
  const chartX = useDeferredValue(x);
  // Numbers, not objects: the charts' props stay equal between commits.
  const gzip = useLab((s) => s.datasets.train?.references?.gzipRate);
  const lzma = useLab((s) => s.datasets.train?.references?.lzmaRate);
  const task = useLab((s) => s.config.task.name);
  // Re-rendered only when an optional chart appears (a boolean per chart, joined).
  // An optional chart shows for a figure the live run reports; before the live run reports anything, for those the compared runs do.
  const present = useLab((s) => {
    const has = (series: ReadonlyMap<string, MetricPoint[]>, name: string) => (series.get(name)?.length ?? 0) > 0;
    const live = s.series.size > 0;
    return chartsOf(s.config.task.name).map((c) => (!c.optional || has(s.series, c.name) || (!live && s.compared.some((run) => has(run.series, c.name))) ? '1' : '0')).join('');
  });
  const compared = useLab((s) => s.compared);
  // Charts that appear (a run's first metrics bring several) mount in a deferred render, which
  // React slices: mounting them in the store's synchronous update made a 50-90 ms task.
  const deferredPresent = useDeferredValue(present);
  const shown = chartsOf(task).filter((_, i) => deferredPresent[i] === '1');
  return (
    <section className="panel charts" data-testid="charts">
      <div className="chart-controls">
        <label>
          smoothing <input type="range" min={0} max={0.99} step={0.01} value={weight} onChange={(e) => setWeight(Number(e.target.value))} data-testid="smoothing" /> {weight.toFixed(2)}
        </label>
        <label>
          x axis{' '}
          <select value={x} onChange={(e) => setX(e.target.value as 'step' | 'wallMs')} data-testid="x-axis">
            <option value="step">step</option>
            <option value="wallMs">wall time</option>
          </select>
        </label>
        <button onClick={() => download('metrics.csv', metricsToCsv(useLab.getState().series, useLab.getState().compared), 'text/csv')}>Export CSV</button>
        <button onClick={() => download('metrics.jsonl', metricsToJsonl(useLab.getState().series), 'application/jsonl')}>Export JSONL</button>
      </div>
      {compared.length > 0 && (
        <p className="compare-legend" data-testid="compare-legend">
          <span style={{ color: LIVE_COLOR }}>━ live run</span>
          {compared.map((run, index) => (
            <span key={run.id} style={{ color: compareColor(index) }}>
              {' '}╍ {run.name}{' '}
              <button className="link" aria-label={`stop comparing ${run.name}`} onClick={() => void compareRun(run.id, false)}>×</button>
            </span>
          ))}
        </p>
      )}
      <div className="chart-grid">
        {shown.map((chart, index) => (
          <StaggeredChart
            key={chart.name}
            index={index}
            count={shown.length}
            name={chart.name}
            title={chart.title}
            caption={chart.caption}
            weight={chartWeight}
            x={chartX}
            gzip={chart.references ? gzip : undefined}
            lzma={chart.references ? lzma : undefined}
          />
        ))}
      </div>
    </section>
  );
}
