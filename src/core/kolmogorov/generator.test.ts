import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { runProgram } from './dsl';
import { generateDataset, generateExample } from './generator';
import { parseProgram } from './program';
import { programBits } from './prior';

describe('synthetic generator', () => {
  it('is reproducible from its seed', () => {
    expect(generateDataset(5, 50)).toEqual(generateDataset(5, 50));
    expect(generateDataset(5, 50)).not.toEqual(generateDataset(6, 50));
  });

  it('writes programs that reproduce their sequences, with values in 0..255', () => {
    const rng = new Rng(11);
    for (let i = 0; i < 500; i++) {
      const example = generateExample(rng);
      expect(runProgram(parseProgram(example.program))).toEqual(example.sequence);
      expect(example.sequence.length).toBeGreaterThanOrEqual(5);
      for (const v of example.sequence) expect(v >= 0 && v <= 255 && Number.isInteger(v)).toBe(true);
    }
  });

  it('keeps one program per distinct sequence and compresses like the reference generator', () => {
    const data = generateDataset(2, 1000);
    expect(new Set(data.map((e) => e.sequence.join(','))).size).toBe(1000);
    const bits = data.reduce((sum, e) => sum + programBits(parseProgram(e.program), 'kt'), 0);
    const values = data.reduce((sum, e) => sum + e.sequence.length, 0);
    // KOLMOGOROV.md: ground-truth programs cost about 0.32 of the raw bits.
    expect(bits / (8 * values)).toBeGreaterThan(0.25);
    expect(bits / (8 * values)).toBeLessThan(0.42);
  });
});
