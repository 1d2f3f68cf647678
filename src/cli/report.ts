/**
 * Shared pieces of the CLI commands: the sandbox limits of a config, and the KT metrics
 * table (rows beside the gzip and LZMA baselines of the same data).
 */
import type { LabConfig } from '../core/config';
import type { KtMetrics } from '../core/runnerTypes';
import type { SandboxLimits } from '../core/sandbox/outcome';

export function sandboxLimits(config: LabConfig): SandboxLimits {
  const { deadlineMs, watchdogMs, memoryBytes, stackBytes, maxSourceBytes, maxOutputLength } = config.sandbox;
  return { deadlineMs, watchdogMs, memoryBytes, stackBytes, maxSourceBytes, maxOutputLength };
}

/** snake_case form of the metrics, as `eval --json` prints them. */
export function metricsJson(metrics: KtMetrics): Record<string, unknown> {
  return {
    n: metrics.n,
    accuracy: metrics.accuracy,
    acc_at_prefix: metrics.accAtPrefix,
    compression_rate: metrics.compressionRate,
    precision: metrics.precision,
    gzip_rate: metrics.gzipRate,
    lzma_rate: metrics.lzmaRate,
  };
}

const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : '-');

/** A plain-text table: one row per method, then the gzip and LZMA baselines of `baseline`'s data. */
export function formatMetricsTable(rows: { label: string; metrics: KtMetrics }[], baseline: KtMetrics): string {
  const header = ['method', 'n', 'accuracy', 'acc@16', 'acc@32', 'acc@64', 'acc@128', 'compression', 'precision'];
  const body: string[][] = rows.map(({ label, metrics }) => [
    label,
    String(metrics.n),
    fixed(metrics.accuracy),
    fixed(metrics.accAtPrefix['16']),
    fixed(metrics.accAtPrefix['32']),
    fixed(metrics.accAtPrefix['64']),
    fixed(metrics.accAtPrefix['128']),
    fixed(metrics.compressionRate),
    fixed(metrics.precision),
  ]);
  body.push(['gzip (joint)', String(baseline.n), '1.000', '', '', '', '', fixed(baseline.gzipRate), '']);
  body.push(['LZMA (joint)', String(baseline.n), '1.000', '', '', '', '', fixed(baseline.lzmaRate), '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
