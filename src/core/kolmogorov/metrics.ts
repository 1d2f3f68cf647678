/**
 * The KT metrics of docs/kolmogorov-spec.md, with its names and definitions, and the gzip and LZMA
 * baselines of the same data.
 *
 * Text form of sequences for the compressors, as the public KoLMogorov evaluator builds it: one
 * character per value (code point = the value, 0..255), sequences joined by newlines, the text
 * UTF-8 encoded. (Comma-separated decimal text makes gzip look ~25% worse: 0.79 instead of 0.64
 * of the raw bits on the shipped held-out file.) Failed sequences are compressed together, never one by one (gzip's framing
 * would make a lone short sequence grow). gzip is fflate at level 9 (Python's gzip default);
 * LZMA is lzma1 (LZMA-alone container, preset 6 = Python's lzma default preset; the .xz
 * container Python uses adds ~50 bytes of framing, negligible for a dataset).
 */
import { gzipSync } from 'fflate';
import { compress as lzmaCompress } from 'lzma1';
import type { KtMetrics } from '../runnerTypes';

export interface ScoredSample {
  sequence: number[];
  /** The program's output, when it produced a valid integer list. */
  output?: number[] | null;
  correct: boolean;
  /** Prior bits of the program; only counted when correct. */
  bits: number;
  program?: string;
}

const encoder = new TextEncoder();
export const prefixLengths = [16, 32, 64, 128] as const;

export function sequencesText(sequences: readonly (readonly number[])[]): string {
  return sequences.map((sequence) => String.fromCharCode(...sequence)).join('\n');
}

export function gzipBits(text: string): number {
  return gzipSync(encoder.encode(text), { level: 9, mtime: 0 }).length * 8;
}

export function lzmaBits(text: string): number {
  return lzmaCompress(encoder.encode(text), 6).length * 8;
}

/** Prior bits over raw bits (8 per value) of one correct program: the per-sample figure for charts and rewards. */
export function perSampleCompression(bits: number, length: number): number {
  return length > 0 ? bits / (8 * length) : 0;
}

/** How many values `a` and `b` share from their start. */
export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Share of the target that `output` reproduces from its start (the common prefix over the target's length). */
export function prefixShare(output: readonly number[] | null | undefined, target: readonly number[]): number {
  if (!output || target.length === 0) return 0;
  return commonPrefixLength(output, target) / target.length;
}

/** Whether the first k values of the output are the first k of the target: as many, and equal (an output longer than a short target is not its prefix). */
export function prefixEqual(output: readonly number[] | null | undefined, target: readonly number[], k: number): boolean {
  if (!output) return false;
  const wanted = Math.min(k, target.length);
  return Math.min(k, output.length) === wanted && commonPrefixLength(output, target) >= wanted;
}

export function ktMetrics(samples: readonly ScoredSample[]): KtMetrics {
  const n = samples.length;
  const totalValues = samples.reduce((sum, s) => sum + s.sequence.length, 0);
  const rawBits = 8 * totalValues;
  const correct = samples.filter((s) => s.correct);
  const failed = samples.filter((s) => !s.correct);
  const programBitsSum = correct.reduce((sum, s) => sum + s.bits, 0);
  const failedBits = failed.length ? gzipBits(sequencesText(failed.map((s) => s.sequence))) : 0;
  const allText = sequencesText(samples.map((s) => s.sequence));
  const accAtPrefix = Object.fromEntries(
    prefixLengths.map((k) => [String(k), n ? samples.filter((s) => prefixEqual(s.output, s.sequence, k)).length / n : 0]),
  ) as KtMetrics['accAtPrefix'];
  // Precision compares the programs' text with their sequences' text; with no correct program there is none (NaN: JSON's
  // null, a table's '-'), not 0, which a ratio where lower is better would read as perfect.
  const precision = correct.length
    ? gzipBits(correct.map((s) => s.program ?? '').join('\n')) / gzipBits(sequencesText(correct.map((s) => s.sequence)))
    : NaN;
  return {
    n,
    accuracy: n ? correct.length / n : 0,
    accAtPrefix,
    compressionRate: rawBits ? (programBitsSum + failedBits + n) / rawBits : 0,
    precision,
    gzipRate: rawBits ? gzipBits(allText) / rawBits : 0,
    lzmaRate: rawBits ? lzmaBits(allText) / rawBits : 0,
  };
}

/** Sequence-length ranges of the by-length breakdown: where a policy's wins and losses are. */
export const lengthBuckets: readonly { label: string; min: number; max: number }[] = [
  { label: '<=32', min: 0, max: 32 },
  { label: '33-64', min: 33, max: 64 },
  { label: '65-128', min: 65, max: 128 },
  { label: '>128', min: 129, max: Infinity },
];

export interface LengthBucketMetrics {
  label: string;
  n: number;
  /** Values in the bucket's sequences: its weight in the whole file's compression rate. */
  values: number;
  accuracy: number;
  compressionRate: number;
  gzipRate: number;
  lzmaRate: number;
}

/**
 * The KT metrics of each length range, each range scored as a dataset of its own (its failed
 * sequences gzipped together, its own gzip and LZMA baselines). Empty ranges are left out.
 */
export function ktMetricsByLength(samples: readonly ScoredSample[]): LengthBucketMetrics[] {
  return lengthBuckets.flatMap(({ label, min, max }) => {
    const part = samples.filter((s) => s.sequence.length >= min && s.sequence.length <= max);
    if (part.length === 0) return [];
    const m = ktMetrics(part);
    const values = part.reduce((sum, s) => sum + s.sequence.length, 0);
    return [{ label, n: m.n, values, accuracy: m.accuracy, compressionRate: m.compressionRate, gzipRate: m.gzipRate, lzmaRate: m.lzmaRate }];
  });
}
