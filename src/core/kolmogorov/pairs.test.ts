import { describe, expect, it } from 'vitest';
import { generateDataset } from './generator';
import { VALUE0 } from './grammar';
import { PairStream, sequenceKey, toPair } from './pairs';
import type { KolmogorovRecord } from '../data/records';

/** The sequence a prompt spells, as sequenceKey writes it. */
const promptKey = (prompt: number[]) => sequenceKey(prompt.slice(1, -1).map((token) => token - VALUE0));
const limits = { maxSequenceLength: 128, context: 256, maxProgramTokens: 96 };

describe('warm-start pairs', () => {
  it('never yields a held-out sequence, even when the generator makes it', () => {
    // Exclude every sequence a same-seeded stream produces first: none of them may come back.
    // (Prompts long enough to hold whole sequences, so a prompt names its sequence.)
    const whole = { ...limits, maxSequenceLength: 1024, context: 1200 };
    const probe = new PairStream({ ...whole, seed: 9, exclude: new Set(), poolBatches: 1 });
    const seen = probe.batch(64).map((pair) => promptKey(pair.prompt));
    const stream = new PairStream({ ...whole, seed: 9, exclude: new Set(seen), poolBatches: 1 });
    const pairs = stream.batch(64);
    expect(stream.dropped).toBeGreaterThanOrEqual(64);
    for (const pair of pairs) expect(seen).not.toContain(promptKey(pair.prompt));
  });

  it('buckets batches by length: a batch spans less than a random draw does', () => {
    const spread = (batch: { prompt: number[]; tokens: number[] }[]) => {
      const lengths = batch.map((p) => p.prompt.length + p.tokens.length);
      return Math.max(...lengths) - Math.min(...lengths);
    };
    const bucketed = new PairStream({ ...limits, seed: 3, exclude: new Set(), poolBatches: 8 });
    const plain = new PairStream({ ...limits, seed: 3, exclude: new Set(), poolBatches: 1 });
    let bucketedSpread = 0;
    let plainSpread = 0;
    for (let i = 0; i < 8; i++) {
      bucketedSpread += spread(bucketed.batch(16));
      plainSpread += spread(plain.batch(16));
    }
    expect(bucketedSpread).toBeLessThan(plainSpread / 2);
  });

  it('drops records it cannot tokenise or fit instead of throwing', () => {
    const [record] = generateDataset(4, 1);
    expect(toPair(record, limits)).not.toBeNull();
    expect(toPair({ ...record, program: 'sequence_1 = range_func_up(0, 300)\noutput = sequence_1' }, limits)).toBeNull();
    expect(toPair({ sequence: record.sequence }, limits)).toBeNull();
    expect(toPair(record, { ...limits, maxProgramTokens: 1 })).toBeNull();
  });

  it('refuses limits whose longest prompt and program cannot fit the context', () => {
    expect(() => new PairStream({ ...limits, context: 128, seed: 1, exclude: new Set() })).toThrow(/exceed model.context/);
  });

  it('cycles through file records, skipping held-out ones', () => {
    const records = generateDataset(5, 6);
    const stream = new PairStream({ ...limits, seed: 1, exclude: new Set([sequenceKey(records[0].sequence)]), records, poolBatches: 1 });
    expect(stream.dropped).toBe(1);
    const keys = new Set(stream.batch(10).map((pair) => promptKey(pair.prompt)));
    expect(keys.has(sequenceKey(records[0].sequence))).toBe(false);
    expect(keys.size).toBe(5);
  });

  it('trains only on short sequences when asked, still drawing from the whole generator', () => {
    const stream = new PairStream({ ...limits, seed: 2, exclude: new Set(), maxTrainLength: 24, poolBatches: 1 });
    const pairs = stream.batch(32);
    for (const pair of pairs) expect(pair.prompt.length - 2).toBeLessThanOrEqual(24);
    expect(stream.dropped).toBeGreaterThan(0);
  });

  it('says why a file gives no pairs: no program fields, held-out sequences, nothing that fits', () => {
    const records = generateDataset(5, 4);
    const stream = (given: readonly KolmogorovRecord[], exclude = new Set<string>()) => () => new PairStream({ ...limits, seed: 1, exclude, poolBatches: 1, records: given });
    expect(stream(records.map(({ program: _program, ...rest }) => rest))).toThrow('none of the 4 records has a "program" field');
    expect(stream(records, new Set(records.map((r) => sequenceKey(r.sequence))))).toThrow('all 4 sequences are held-out ones');
    expect(stream(records.map((r) => ({ ...r, program: 'not a program' })))).toThrow("none of the 4 records with a program fits the model's context");
  });
});
