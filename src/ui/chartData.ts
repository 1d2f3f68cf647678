/**
 * What a chart draws, computed outside recharts so that a redraw costs recharts as little as
 * possible: the series is smoothed (EMA, in store.ts), thinned to at most DRAWN_POINTS by
 * min/max buckets (spikes survive, unlike a stride), and given explicit numeric domains and
 * "nice" ticks. With explicit ticks recharts skips its own tick search (decimal.js and text
 * measurement on every redraw), which was a large part of its cost per chart.
 */
import type { MetricPoint } from './store';

/** Points drawn per chart; the store keeps up to MAX_POINTS per metric for export. */
export const DRAWN_POINTS = 300;

export interface ChartPoint {
  x: number;
  y: number;
}

export interface ChartView {
  data: ChartPoint[];
  /** Other runs' series on the same axes (compared runs), thinned like `data`. */
  overlays: ChartPoint[][];
  xDomain: [number, number];
  xTicks: number[];
  /** With `log`, the y domain and ticks are log10 of the values (data y stays the value). */
  yDomain: [number, number];
  yTicks: number[];
  log: boolean;
}

/** A series worth a log scale: every value positive and the largest at least 100 times the smallest (a loss falling for decades). */
export function spansDecades(values: readonly number[]): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (!(v > 0)) return false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return values.length > 1 && max / min >= 100;
}

/** Ticks of a log10 axis: the whole powers of ten around [min, max] (log10 values). */
function logTicks(min: number, max: number): { domain: [number, number]; ticks: number[] } {
  const start = Math.floor(min);
  const end = Math.max(start + 1, Math.ceil(max));
  const every = Math.max(1, Math.ceil((end - start) / 5));
  const ticks: number[] = [];
  for (let k = start; k <= end; k += every) ticks.push(k);
  if (ticks[ticks.length - 1] !== end) ticks.push(end);
  return { domain: [start, end], ticks };
}

/** An x tick that fits under its mark: 1500 -> 1.5k, 2000000 -> 2M. */
export function xTickLabel(value: number): string {
  const size = Math.abs(value);
  if (size >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (size >= 1e4 || (size >= 1000 && value % 100 === 0)) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(value);
}

/**
 * At most `max` points: the first and the last, and in between, per bucket of equal index
 * width, the bucket's minimum and maximum in x order. A spike in the raw series stays visible.
 */
export function downsample(points: readonly ChartPoint[], max: number): ChartPoint[] {
  if (points.length <= max) return points.slice();
  const buckets = Math.max(1, Math.floor((max - 2) / 2));
  const inner = points.length - 2;
  const kept: ChartPoint[] = [points[0]];
  for (let b = 0; b < buckets; b++) {
    const start = 1 + Math.floor((b * inner) / buckets);
    const end = 1 + Math.floor(((b + 1) * inner) / buckets);
    if (end <= start) continue;
    let low = start;
    let high = start;
    for (let i = start + 1; i < end; i++) {
      if (points[i].y < points[low].y) low = i;
      if (points[i].y > points[high].y) high = i;
    }
    if (low === high) kept.push(points[low]);
    else if (low < high) kept.push(points[low], points[high]);
    else kept.push(points[high], points[low]);
  }
  kept.push(points[points.length - 1]);
  return kept;
}

/** About `count` round tick values covering [min, max] (1, 2 or 5 times a power of ten apart). */
export function niceTicks(min: number, max: number, count = 4): { domain: [number, number]; ticks: number[] } {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return { domain: [0, 1], ticks: [0, 1] };
  if (max - min < 1e-12 * Math.max(1, Math.abs(max))) {
    const pad = Math.abs(min) > 1e-12 ? Math.abs(min) * 0.1 : 1;
    min -= pad;
    max += pad;
  }
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const start = Math.floor(min / step) * step;
  const end = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  // Rounded to the step's precision so labels read 0.3, not 0.30000000000000004.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let value = start; value <= end + step / 2; value += step) ticks.push(Number(value.toFixed(digits)));
  return { domain: [ticks[0], ticks[ticks.length - 1]], ticks };
}

/** A tick label that fits the y axis: ticks are rounded to their step already; tiny or huge ones in e-notation. */
export function tickLabel(value: number): string {
  const size = Math.abs(value);
  if (value === 0 || (size >= 0.01 && size < 1e5)) return String(value);
  return Number(value.toExponential(2)).toExponential().replace('e+', 'e');
}

/**
 * The drawn view of a (smoothed) series: x by step or wall seconds, thinned, with domains and
 * ticks; `extra` values (reference lines) are kept inside the y domain. `measured`, the series
 * before smoothing, decides a log scale when given: smoothing a 0 after a few positives leaves
 * values like 1e-9, which alone would put a share of right answers on a log axis.
 */
export function chartView(points: readonly MetricPoint[], x: 'step' | 'wallMs', extra: readonly number[] = [], others: readonly (readonly MetricPoint[])[] = [], measured?: readonly MetricPoint[]): ChartView {
  const toChart = (series: readonly MetricPoint[]) => downsample(series.map((p) => ({ x: x === 'step' ? p.step : p.wallMs / 1000, y: p.value })), DRAWN_POINTS);
  const data = toChart(points);
  const overlays = others.map(toChart);
  const all = [data, ...overlays];
  const references = extra.filter((value) => Number.isFinite(value));
  const shown = [...all.flatMap((line) => line.map((p) => p.y)), ...references];
  const log = spansDecades(measured ? [...measured.map((p) => p.value), ...references] : shown);
  let yMin = Infinity;
  let yMax = -Infinity;
  for (const value of shown) {
    const y = log ? Math.log10(value) : value;
    if (y < yMin) yMin = y;
    if (y > yMax) yMax = y;
  }
  const drawn = all.filter((line) => line.length > 0);
  const xMin = drawn.length ? Math.min(...drawn.map((line) => line[0].x)) : 0;
  const xMax = drawn.length ? Math.max(...drawn.map((line) => line[line.length - 1].x)) : 1;
  const xAxis = niceTicks(xMin, xMax > xMin ? xMax : xMin + 1, 4);
  const yAxis = log ? logTicks(yMin, yMax) : shown.length ? niceTicks(yMin, yMax, 4) : niceTicks(0, 1, 4);
  return { data, overlays, xDomain: xAxis.domain, xTicks: xAxis.ticks, yDomain: yAxis.domain, yTicks: yAxis.ticks, log };
}
