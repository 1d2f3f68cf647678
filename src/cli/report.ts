/**
 * Shared pieces of the CLI commands: the sandbox limits of a config, and the KT metrics
 * table (rows beside the gzip and LZMA baselines of the same data).
 */
import type { LengthBucketMetrics } from '../core/kolmogorov/metrics';
import type { KtMetrics } from '../core/runnerTypes';
import type { TaskEvaluation } from '../core/task';

export { sandboxLimits } from '../core/runner';

/** The whole file's metrics and, from `eval`, the same per sequence-length range. */
export type EvalMetrics = KtMetrics & {
  byLength?: LengthBucketMetrics[];
  /** A policy's evaluation scored as each narrower search would have (runner's `searches`), the whole search last. */
  searches?: (KtMetrics & { search: string; byLength?: LengthBucketMetrics[] })[];
};

/** snake_case form of the metrics, as `eval --json` prints them; `searches` keyed by search. */
export function metricsJson(metrics: EvalMetrics): Record<string, unknown> {
  const byLength = metrics.byLength?.map((b) => ({ length: b.label, n: b.n, values: b.values, accuracy: b.accuracy, compression_rate: b.compressionRate, gzip_rate: b.gzipRate, lzma_rate: b.lzmaRate }));
  return {
    n: metrics.n,
    accuracy: metrics.accuracy,
    acc_at_prefix: metrics.accAtPrefix,
    compression_rate: metrics.compressionRate,
    precision: metrics.precision,
    gzip_rate: metrics.gzipRate,
    lzma_rate: metrics.lzmaRate,
    ...(byLength ? { by_length: byLength } : {}),
    ...(metrics.searches ? { searches: Object.fromEntries(metrics.searches.map(({ search, ...level }) => [search, metricsJson(level)])) } : {}),
  };
}

const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : '-');

/** A plain-text table: one row per method, then the gzip and LZMA baselines of `baseline`'s data. */
export function formatMetricsTable(rows: { label: string; metrics: KtMetrics }[], baseline: KtMetrics): string {
  return formatTable(
    ['method', 'n', 'accuracy', 'acc@16', 'acc@32', 'acc@64', 'acc@128', 'compression', 'precision'],
    [
      ...rows.map(({ label, metrics }) => [
        label,
        String(metrics.n),
        fixed(metrics.accuracy),
        fixed(metrics.accAtPrefix['16']),
        fixed(metrics.accAtPrefix['32']),
        fixed(metrics.accAtPrefix['64']),
        fixed(metrics.accAtPrefix['128']),
        fixed(metrics.compressionRate),
        fixed(metrics.precision),
      ]),
      ['gzip (joint)', String(baseline.n), '1.000', '', '', '', '', fixed(baseline.gzipRate), ''],
      ['LZMA (joint)', String(baseline.n), '1.000', '', '', '', '', fixed(baseline.lzmaRate), ''],
    ],
  );
}

/** The by-length breakdown: each range's share of the values, accuracy, and rate beside gzip's and LZMA's. */
export function formatLengthTable(buckets: LengthBucketMetrics[]): string {
  const total = buckets.reduce((sum, b) => sum + b.values, 0);
  return formatTable(
    ['length', 'n', 'share of values', 'accuracy', 'compression', 'gzip', 'LZMA'],
    buckets.map((b) => [b.label, String(b.n), fixed(b.values / total), fixed(b.accuracy), fixed(b.compressionRate), fixed(b.gzipRate), fixed(b.lzmaRate)]),
  );
}

/** Columns padded to their widest cell: the first left-aligned, the rest right-aligned. */
export function formatTable(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** An evaluation's figures as the closing table: one line per figure. */
export function evaluationTable(result: TaskEvaluation, title: string): string {
  const width = Math.max(...Object.keys(result.metrics).map((name) => name.length), 1);
  return [`${title}: ${result.n} items`, ...Object.entries(result.metrics).map(([name, value]) => `  ${name.padEnd(width)}  ${Number.isFinite(value) ? value.toFixed(3) : '-'}`)].join('\n');
}

/** Seconds as a person reads them: 45 s, 3.5 min. */
const duration = (seconds: number): string => (seconds < 90 ? `${Math.round(seconds)} s` : `${(seconds / 60).toFixed(1)} min`);

/**
 * A progress line on stderr: rewritten in place on a terminal; in a log (stderr not a terminal),
 * where carriage returns would run the updates together, one line per tenth of the work and at its
 * end, with the time so far and left once it runs past a few seconds. `end()` finishes the line
 * on a terminal.
 */
export function progressLine(stream: NodeJS.WriteStream = process.stderr, now: () => number = () => performance.now()): { update(text: string, done: number, total: number): void; end(): void } {
  let shown = -1;
  let wrote = false;
  let width = 0;
  const started = now();
  return {
    update(progress, done, total) {
      wrote = true;
      // Past a few seconds, the time so far and, from the pace so far, the time left.
      const seconds = (now() - started) / 1000;
      const left = done > 0 && done < total ? (seconds * (total - done)) / done : null;
      const text = seconds >= 2 ? `${progress} (${duration(seconds)}${left === null ? '' : `, about ${duration(left)} left`})` : progress;
      if (stream.isTTY) {
        // A shorter line rewritten over a longer one is padded, so no end of the old one stays.
        stream.write(`\r${text.padEnd(width)}`);
        width = text.length;
        return;
      }
      const tenth = total > 0 ? Math.floor((10 * done) / total) : 0;
      if (tenth === shown && done !== total) return;
      shown = tenth;
      stream.write(`${text}\n`);
    },
    end() {
      if (wrote && stream.isTTY) stream.write('\n');
    },
  };
}
