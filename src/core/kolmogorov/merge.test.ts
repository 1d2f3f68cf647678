import { describe, expect, it } from 'vitest';
import { runProgram } from './dsl';
import { concatenatePrograms } from './join';
import { mergeRuns } from './merge';
import { parseProgram, printProgram, type Program } from './program';
import { programBits } from './prior';

const program = (...lines: string[]) => parseProgram(lines.join('\n'));

/** Merges `before` (under kt) and checks the program is `lines`, with the same output and fewer bits under both priors. */
function expectMerged(before: Program, lines: string[]): void {
  const after = mergeRuns(before, 'kt');
  expect(printProgram(after).split('\n')).toEqual(lines);
  expect(runProgram(after)).toEqual(runProgram(before));
  for (const prior of ['kt', 'strict'] as const) expect(programBits(after, prior)).toBeLessThan(programBits(before, prior));
}

describe('mergeRuns', () => {
  it('writes neighbouring pieces that one line writes as that line: a range, a repeat, a range with a step', () => {
    const before = program(
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = range_func_up(6, 9)',
      'sequence_3 = set_list([10, 11])',
      'sequence_4 = repeat_num(3, 7)',
      'sequence_5 = repeat_num(4, 7)',
      'sequence_6 = set_list([20, 25])',
      'sequence_7 = range_func_interval(30, 46, 5)',
      'sequence_8 = concatenate(sequence_1, sequence_2, sequence_3, sequence_4, sequence_5, sequence_6, sequence_7)',
      'output = sequence_8',
    );
    expectMerged(before, [
      'sequence_1 = range_func_up(1, 11)',
      'sequence_2 = repeat_num(7, 7)',
      'sequence_3 = range_func_interval(20, 46, 5)',
      'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)',
      'output = sequence_4',
    ]);
  });

  it('writes a concatenate used only by another into it, so its pieces meet their neighbours', () => {
    const before = program(
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = repeat_num(4, 9)',
      'sequence_3 = concatenate(sequence_1, sequence_2)',
      'sequence_4 = repeat_num(3, 9)',
      'sequence_5 = range_func_up(100, 120)',
      'sequence_6 = concatenate(sequence_3, sequence_4, sequence_5)',
      'output = sequence_6',
    );
    expectMerged(before, [
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = repeat_num(7, 9)',
      'sequence_3 = range_func_up(100, 120)',
      'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)',
      'output = sequence_4',
    ]);
    // A concatenate used twice stays, referred to twice.
    const twice = program(
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = range_func_up(50, 60)',
      'sequence_3 = concatenate(sequence_1, sequence_2)',
      'sequence_4 = repeat_num(3, 9)',
      'sequence_5 = concatenate(sequence_3, sequence_4, sequence_3)',
      'output = sequence_5',
    );
    expect(mergeRuns(twice, 'kt')).toEqual(twice);
  });

  it('keeps a program the policy\'s grammar can write within it: no concatenate past 6 pieces, no set_list past 32 values', () => {
    const ranges = ['range_func_up(0, 20)', 'range_func_up(30, 50)', 'range_func_up(60, 80)', 'range_func_up(90, 110)', 'range_func_up(120, 140)'];
    const twenty = (from: number) => `set_list([${Array.from({ length: 20 }, (_, i) => (from + 7 * i) % 256).join(', ')}])`;
    const lines = [
      ...ranges.map((r, i) => `sequence_${i + 1} = ${r}`),
      `sequence_6 = ${twenty(3)}`,
      `sequence_7 = ${twenty(5)}`,
      'sequence_8 = concatenate(sequence_6, sequence_7)',
      'sequence_9 = concatenate(sequence_1, sequence_2, sequence_3, sequence_4, sequence_5, sequence_8)',
      'output = sequence_9',
    ];
    // Writable: opening the inner concatenate would make 7 pieces, and its two set_lists 40 values; neither is done.
    const writable = program(...lines);
    expect(mergeRuns(writable, 'kt')).toEqual(writable);
    // Past the grammar already (a concatenate of 7): merged as far as bits go.
    const past = program(...lines.map((line) => line.replace('sequence_5, sequence_8)', 'sequence_5, sequence_1, sequence_8)')));
    const merged = mergeRuns(past, 'kt');
    expect(runProgram(merged)).toEqual(runProgram(past));
    expect(printProgram(merged)).toMatch(/set_list\(\[(\d+, ){39}\d+\]\)/);
    expect(merged.lines).toHaveLength(past.lines.length - 2);
  });

  it('never costs more bits under either prior, and never changes the output', () => {
    // A line's name (4.64 bits) is saved by a merge; the output line's is not: a merge that saves less is not made.
    const small = program('sequence_1 = range_func_up(1, 3)', 'sequence_2 = set_list([9])', 'sequence_3 = range_func_up(100, 120)', 'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)', 'output = sequence_4');
    expect(mergeRuns(small, 'kt')).toEqual(small);
    // The output counts as a use: a line that is the output is not merged into its neighbour, and lines after it are dropped.
    const early = program('sequence_1 = set_list([1, 2])', 'sequence_2 = set_list([3])', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'output = sequence_1');
    expect(printProgram(mergeRuns(early, 'kt'))).toBe('sequence_1 = set_list([1, 2])\noutput = sequence_1');
    const inner = program('sequence_1 = set_list([1, 2])', 'sequence_2 = range_func_up(50, 60)', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'sequence_4 = set_list([61])', 'sequence_5 = concatenate(sequence_3, sequence_4)', 'output = sequence_3');
    expect(runProgram(mergeRuns(inner, 'kt'))).toEqual([1, 2, ...Array.from({ length: 11 }, (_, i) => 50 + i)]);
    // Opening an inner concatenate moves its references to a later line, which the strict prior charges
    // more for: a program of many pieces after it is kept as it was under strict, and merged under kt.
    const pieces = (n: number) => Array.from({ length: n }, (_, i) => program(`sequence_1 = range_func_up(${(i % 2) * 100 + (i >> 1)}, ${(i % 2) * 100 + (i >> 1) + 8})`, 'output = sequence_1'));
    const first = program(...Array.from({ length: 6 }, (_, i) => `sequence_${i + 1} = range_func_up(${i * 40}, ${i * 40 + 9})`), 'sequence_7 = concatenate(sequence_1, sequence_2, sequence_3, sequence_4, sequence_5, sequence_6)', 'output = sequence_7');
    const long = concatenatePrograms([first, ...pieces(60)]);
    expect(mergeRuns(long, 'strict')).toEqual(long);
    expect(programBits(mergeRuns(long, 'kt'), 'kt')).toBeLessThan(programBits(long, 'kt'));
    const cases: Program[] = [small, early, inner, long, concatenatePrograms([first, ...pieces(10)]), program('sequence_1 = repeat_num(2, 9)', 'sequence_2 = repeat_num(2, 10)', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'output = sequence_3')];
    for (const before of cases) {
      for (const prior of ['kt', 'strict'] as const) {
        const after = mergeRuns(before, prior);
        expect(runProgram(after)).toEqual(runProgram(before));
        expect(programBits(after, prior)).toBeLessThanOrEqual(programBits(before, prior));
      }
    }
  });

  it('leaves neighbours that no one line writes for fewer bits', () => {
    // Two ranges that do not go on from each other, and values after them: no one line is cheaper than two.
    const before = program('sequence_1 = range_func_up(1, 5)', 'sequence_2 = range_func_up(8, 20)', 'sequence_3 = set_list([40, 45])', 'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)', 'output = sequence_4');
    expect(mergeRuns(before, 'kt')).toEqual(before);
    // A short range beside values is cheaper as values: a line's name costs more than two values' bits over a range's.
    const short = program('sequence_1 = range_func_up(8, 9)', 'sequence_2 = set_list([20, 25])', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'output = sequence_3');
    expect(printProgram(mergeRuns(short, 'kt'))).toBe('sequence_1 = set_list([8, 9, 20, 25])\noutput = sequence_1');
    // Two values 5 apart are cheaper as values than as a range with a step.
    const pair = program('sequence_1 = set_list([20])', 'sequence_2 = set_list([25])', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'output = sequence_3');
    expect(printProgram(mergeRuns(pair, 'kt'))).toBe('sequence_1 = set_list([20, 25])\noutput = sequence_1');
  });

  it('writes set_list lines a concatenate takes one after the other as one, references renumbered, fewer bits', () => {
    const before = program(
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = set_list([200, 3])',
      'sequence_3 = set_list([7])',
      'sequence_4 = set_list([9, 9])',
      'sequence_5 = range_func_up(30, 33)',
      'sequence_6 = concatenate(sequence_1, sequence_2, sequence_3, sequence_4, sequence_5)',
      'sequence_7 = repeat_num(3, 8)',
      'sequence_8 = interleave(sequence_6, sequence_7)',
      'output = sequence_8',
    );
    expectMerged(before, [
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = set_list([200, 3, 7, 9, 9])',
      'sequence_3 = range_func_up(30, 33)',
      'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)',
      'sequence_5 = repeat_num(3, 8)',
      'sequence_6 = interleave(sequence_4, sequence_5)',
      'output = sequence_6',
    ]);
    // The program given is not changed.
    expect(before.lines).toHaveLength(8);
  });

  it('keeps a set_list used twice, which costs one reference the second time', () => {
    const shared = program(
      'sequence_1 = set_list([4, 5])',
      'sequence_2 = set_list([6])',
      'sequence_3 = concatenate(sequence_1, sequence_2, sequence_1)',
      'output = sequence_3',
    );
    expect(mergeRuns(shared, 'kt')).toEqual(shared);
    // Values apart (a range between them) are not merged either.
    const apart = program('sequence_1 = set_list([4])', 'sequence_2 = range_func_up(1, 30)', 'sequence_3 = set_list([6])', 'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)', 'output = sequence_4');
    expect(mergeRuns(apart, 'kt')).toEqual(apart);
  });

  it('turns a concatenate whose pieces all merge into the one line', () => {
    const before = program('sequence_1 = set_list([1, 2])', 'sequence_2 = set_list([3])', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'sequence_4 = reverse_list(sequence_3)', 'output = sequence_4');
    const after = mergeRuns(before, 'kt');
    expect(printProgram(after)).toBe(['sequence_1 = range_func_up(1, 3)', 'sequence_2 = reverse_list(sequence_1)', 'output = sequence_2'].join('\n'));
    expect(runProgram(after)).toEqual([3, 2, 1]);
  });
});
