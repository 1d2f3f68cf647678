/**
 * The checkpoint shipped in public/ (made by `npm run recipe -- --ship`) loads, and evaluated
 * greedily on the first held-out records it reaches the accuracy recorded beside it in
 * public/pretrained.json. A regression guard for the model code and the checkpoint format: a
 * change that alters what a saved policy computes, or breaks loading it, fails here.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { openCheckpointRunner } from './checkpointRunner';
import { loadKolmogorovFile } from './data';
import { splitSearch } from '../core/kolmogorov/split';

interface ShippedRecord {
  check: { data: string; records: number; k: number; accuracy: number; compression_rate: number; /** records: the first held-out records repair is checked on (absent: check.records). */
    repair: { records?: number; runners_up: number; rounds: number; accuracy: number };
    /** bridge_above: split search's literal bridges as shipped (`SplitSettings.bridgeAbove`); absent: shipped before bridges, so none. */
    split: { rounds: number; accuracy: number; compression_rate: number; bridge_above?: number };
  };
}

const record = JSON.parse(readFileSync('public/pretrained.json', 'utf8')) as ShippedRecord;
const bytes = new Uint8Array(readFileSync('public/pretrained.prl'));

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('the shipped pretrained checkpoint', () => {
  it('is small, loads, and reaches the held-out accuracy recorded beside it', async () => {
    expect(bytes.byteLength).toBeLessThan(4 << 20);
    const file = await loadKolmogorovFile(record.check.data);
    const records = file.slice(0, record.check.records);
    const { runner, close } = await openCheckpointRunner(bytes, records, { poolSize: 1 });
    try {
      const result = await runner.evaluate(records, { k: record.check.k });
      expect(result.n).toBe(record.check.records);
      // Greedy decoding on the same backend is deterministic: the same programs, the same score.
      expect(result.accuracy).toBeCloseTo(record.check.accuracy, 6);
      expect(result.compressionRate).toBeCloseTo(record.check.compression_rate, 6);
      expect(result.accuracy).toBeGreaterThan(0);
      // Best-of-k keeps the greedy program among its k: it never loses a sequence greedy solves,
      // and its kept program is never longer than greedy's correct one.
      const greedy = record.check.k === 1 ? result : await runner.evaluate(records, { k: 1 });
      const best = await runner.evaluate(records, { k: 3 });
      greedy.rows.forEach((row, i) => {
        if (row.outcome !== 'ok') return;
        expect(best.rows[i].outcome).toBe('ok');
        expect(best.rows[i].bits).toBeLessThanOrEqual(row.bits);
      });
      expect(best.accuracy).toBeGreaterThanOrEqual(greedy.accuracy);
      // Repair swaps tokens of the greedy program where it is wrong: it keeps every greedy
      // solve, and the sequences it adds are solved (by the sandbox's check), not assumed.
      const { runners_up, rounds, accuracy } = record.check.repair;
      const repairRecords = file.slice(0, record.check.repair.records ?? record.check.records);
      const repairGreedy = repairRecords.length === records.length ? greedy : await runner.evaluate(repairRecords, { k: 1 });
      const repaired = await runner.evaluate(repairRecords, { k: 1, repair: runners_up, repairRounds: rounds });
      expect(repaired.accuracy).toBeCloseTo(accuracy, 6);
      expect(repaired.accuracy).toBeGreaterThan(repairGreedy.accuracy);
      repaired.rows.forEach((row, i) => {
        expect(row.foundBy === 'repair').toBe(repairGreedy.rows[i].outcome !== 'ok' && row.outcome === 'ok');
        if (repairGreedy.rows[i].outcome === 'ok') expect(row.program).toBe(repairGreedy.rows[i].program);
      });
      // Split search writes the sequences greedy misses piece by piece; the joined programs
      // count only when the sandbox confirms them whole, and greedy's solves are kept as they are.
      const bridgeAbove = record.check.split.bridge_above ?? 0;
      const split = await runner.evaluate(records, { k: 1, split: record.check.split.rounds, bridgeAbove });
      expect(split.accuracy).toBeCloseTo(record.check.split.accuracy, 6);
      expect(split.compressionRate).toBeCloseTo(record.check.split.compression_rate, 6);
      expect(split.accuracy).toBeGreaterThan(greedy.accuracy);
      split.rows.forEach((row, i) => {
        const bySplit = row.foundBy === 'split' || row.foundBy === 'bridge';
        expect(bySplit).toBe(greedy.rows[i].outcome !== 'ok' && row.outcome === 'ok');
        if (greedy.rows[i].outcome === 'ok') expect(row.program).toBe(greedy.rows[i].program);
        // Joined pieces, or one line where every piece merged into it (mergeRuns, merge.ts).
        if (bySplit) expect(/= (concatenate|interleave)\(/.test(row.program!) || row.program!.trim().split('\n').length === 2).toBe(true);
      });
      expect(split.searches.map((level) => level.search)).toEqual(['greedy', 'greedy + split', ...(bridgeAbove > 0 ? ['greedy + split + bridges'] : [])]);
      expect(split.searches[0].accuracy).toBeCloseTo(greedy.accuracy, 6);
      // Literal bridges, the last resort: the search without them is scored as it was, and a
      // bridge solves only what it left unsolved, at no more bits than the values written out.
      const plain = bridgeAbove > 0 ? await runner.evaluate(records, { k: 1, split: record.check.split.rounds, bridgeAbove: 0 }) : split;
      const bridged = bridgeAbove > 0 ? split : await runner.evaluate(records, { k: 1, split: record.check.split.rounds, bridgeAbove: splitSearch.bridgeAbove });
      expect(bridged.searches[1].accuracy).toBeCloseTo(plain.accuracy, 6);
      expect(bridged.searches[1].compressionRate).toBeCloseTo(plain.compressionRate, 6);
      expect(bridged.accuracy).toBeGreaterThan(plain.accuracy);
      bridged.rows.forEach((row, i) => {
        if (row.foundBy !== 'bridge') return expect(row.program).toBe(plain.rows[i].program);
        expect(plain.rows[i].outcome).not.toBe('ok');
        expect(row.outcome).toBe('ok');
        expect(row.bits).toBeLessThanOrEqual(splitSearch.bridgeAbove * 8 * records[i].sequence.length);
      });
    } finally {
      await close();
    }
  }, 240_000);
});
