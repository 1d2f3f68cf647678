import { describe, expect, it } from 'vitest';
import { gzipBits, ktMetrics, ktMetricsByLength, lzmaBits, sequencesText, type ScoredSample } from './metrics';

const seqA = Array.from({ length: 40 }, (_, i) => i);
const seqB = Array.from({ length: 20 }, (_, i) => (i * 7) % 256);

describe('KT metrics', () => {
  it('counts only program bits and flags when everything is correct', () => {
    const samples: ScoredSample[] = [
      { sequence: seqA, output: seqA, correct: true, bits: 30 },
      { sequence: seqB, output: seqB, correct: true, bits: 50 },
    ];
    const m = ktMetrics(samples);
    expect(m.accuracy).toBe(1);
    expect(m.compressionRate).toBeCloseTo((30 + 50 + 2) / (8 * 60), 12);
    expect(m.accAtPrefix).toEqual({ '16': 1, '32': 1, '64': 1, '128': 1 });
  });

  it('gzips failed sequences jointly, never one by one', () => {
    const samples: ScoredSample[] = [
      { sequence: seqA, output: null, correct: false, bits: 0 },
      { sequence: seqB, output: seqB.slice(0, 5), correct: false, bits: 0 },
      { sequence: seqB.map((v) => v + 1), output: seqB.map((v) => v + 1), correct: true, bits: 40 },
    ];
    const m = ktMetrics(samples);
    const joint = gzipBits(sequencesText([seqA, seqB]));
    expect(m.compressionRate).toBeCloseTo((40 + joint + 3) / (8 * 80), 12);
    expect(joint).toBeLessThan(gzipBits(sequencesText([seqA])) + gzipBits(sequencesText([seqB])));
    expect(m.accuracy).toBeCloseTo(1 / 3, 12);
  });

  it('measures accuracy on prefixes', () => {
    const long = Array.from({ length: 100 }, (_, i) => i % 256);
    const wrongAt40 = long.map((v, i) => (i === 40 ? 255 : v));
    const m = ktMetrics([{ sequence: long, output: wrongAt40, correct: false, bits: 0 }]);
    expect(m.accAtPrefix).toEqual({ '16': 1, '32': 1, '64': 0, '128': 0 });
  });

  it('does not count an output longer than a short sequence as right on a prefix', () => {
    // [5, 5, 5, 5] answered with eight fives: wrong, and wrong on its first 16 values too (8 values, not 4).
    const short = [5, 5, 5, 5];
    const m = ktMetrics([{ sequence: short, output: [...short, ...short], correct: false, bits: 0 }]);
    expect(m.accAtPrefix).toEqual({ '16': 0, '32': 0, '64': 0, '128': 0 });
    // Longer than k on both sides: only the first k values count.
    const long = Array.from({ length: 40 }, (_, i) => i);
    expect(ktMetrics([{ sequence: long, output: [...long.slice(0, 20), 99], correct: false, bits: 0 }]).accAtPrefix).toEqual({ '16': 1, '32': 0, '64': 0, '128': 0 });
    // A short output of a short sequence: right when equal.
    expect(ktMetrics([{ sequence: short, output: short, correct: true, bits: 9 }]).accAtPrefix['16']).toBe(1);
  });

  it('gives the gzip and LZMA baselines of the whole dataset', () => {
    const samples: ScoredSample[] = [{ sequence: seqA, output: null, correct: false, bits: 0 }];
    const m = ktMetrics(samples);
    expect(m.gzipRate).toBeCloseTo(gzipBits(sequencesText([seqA])) / (8 * 40), 12);
    expect(m.lzmaRate).toBeCloseTo(lzmaBits(sequencesText([seqA])) / (8 * 40), 12);
    expect(m.precision).toBeNaN(); // no correct program: no precision, not a perfect 0
  });

  it('breaks the metrics down by sequence length, each range scored as a dataset of its own', () => {
    const short = Array.from({ length: 10 }, (_, i) => i * 3);
    const mid = Array.from({ length: 50 }, (_, i) => (i * 5) % 256);
    const long = Array.from({ length: 200 }, (_, i) => (i * 11) % 256);
    const samples: ScoredSample[] = [
      { sequence: short, output: short, correct: true, bits: 20 },
      { sequence: short.map((v) => v + 1), output: null, correct: false, bits: 0 },
      { sequence: mid, output: null, correct: false, bits: 0 },
      { sequence: long, output: long, correct: true, bits: 60 },
    ];
    const buckets = ktMetricsByLength(samples);
    expect(buckets.map((b) => [b.label, b.n, b.values])).toEqual([['<=32', 2, 20], ['33-64', 1, 50], ['>128', 1, 200]]);
    expect(buckets[0].accuracy).toBe(0.5);
    expect(buckets[0].compressionRate).toBeCloseTo((20 + gzipBits(sequencesText([short.map((v) => v + 1)])) + 2) / (8 * 20), 12);
    expect(buckets[1]).toMatchObject({ accuracy: 0, compressionRate: (gzipBits(sequencesText([mid])) + 1) / (8 * 50), gzipRate: gzipBits(sequencesText([mid])) / (8 * 50) });
    expect(buckets[2].compressionRate).toBeCloseTo(61 / 1600, 12);
    expect(buckets[2].lzmaRate).toBe(lzmaBits(sequencesText([long])) / 1600);
  });
});
