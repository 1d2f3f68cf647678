/** The Kolmogorov task's step figures: a mean over no program is no value, never 0 bits. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config';
import type { Candidate } from './task';
import { kolmogorovTask, type KolmogorovScored } from './task';

const scored = (correct: boolean, bits: number, written = true): KolmogorovScored => ({
  text: written ? 'output = [1]' : '',
  outcome: correct ? 'ok' : 'wrong',
  reward: correct ? 1 : 0,
  correct,
  cost: bits,
  candidate: { program: written ? ({} as NonNullable<Candidate['program']>) : null, text: written ? 'output = [1]' : '', bits, lines: 1 },
  sandbox: { kind: correct ? 'ok' : 'wrong', output: correct ? [1, 2] : [1], elapsedMs: 1 },
});

describe('the Kolmogorov step figures', () => {
  const task = kolmogorovTask(defaultConfig());
  const records = [{ sequence: [1, 2] }, { sequence: [3, 4] }];

  it('bits of correct programs are no value (NaN, not drawn) on a step with none correct, not 0 (the best a chart of bits shows)', () => {
    const none = task.metrics!(records, [scored(false, 30), scored(false, 40)], 1);
    expect(none.program_bits).toBeNaN();
    expect(none.all_program_bits).toBe(35);
    const one = task.metrics!(records, [scored(true, 20), scored(false, 40)], 1);
    expect(one.program_bits).toBe(20);
    const unwritten = task.metrics!(records, [scored(false, 0, false), scored(false, 0, false)], 1);
    expect([unwritten.all_program_bits, unwritten.program_lines]).toEqual([NaN, NaN]);
  });
});

describe('the Kolmogorov training items', () => {
  it('a piece cut from a long training sequence that is a held-out sequence is not trained on', () => {
    const base = defaultConfig();
    const config = { ...base, task: { ...base.task, maxTrainLength: 8, trainPieces: 4 } };
    const train = [{ sequence: Array(40).fill(211) }, { sequence: [1, 2, 3] }];
    const key = (sequence: readonly number[]) => sequence.join(',');
    const pieces = kolmogorovTask(config).trainingItems(train).map((record) => key(record.sequence));
    const piece = pieces.find((sequence) => sequence.startsWith('211'))!;
    expect(piece).toBeDefined(); // a run of 211s, as a held-out file may hold
    const heldout = [{ sequence: piece.split(',').map(Number) }];
    const kept = kolmogorovTask(config, heldout).trainingItems(train).map((record) => key(record.sequence));
    expect(kept).not.toContain(piece);
    expect(kept).toContain('1,2,3');
  });
});
