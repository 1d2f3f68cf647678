import { describe, expect, it } from 'vitest';
import { runProgram } from './dsl';
import { mergeLiterals } from './join';
import { parseProgram, printProgram } from './program';
import { programBits } from './prior';

const program = (...lines: string[]) => parseProgram(lines.join('\n'));

describe('mergeLiterals', () => {
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
    const after = mergeLiterals(before);
    expect(printProgram(after).split('\n')).toEqual([
      'sequence_1 = range_func_up(1, 5)',
      'sequence_2 = set_list([200, 3, 7, 9, 9])',
      'sequence_3 = range_func_up(30, 33)',
      'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)',
      'sequence_5 = repeat_num(3, 8)',
      'sequence_6 = interleave(sequence_4, sequence_5)',
      'output = sequence_6',
    ]);
    expect(runProgram(after)).toEqual(runProgram(before));
    for (const prior of ['kt', 'strict'] as const) expect(programBits(after, prior)).toBeLessThan(programBits(before, prior));
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
    expect(mergeLiterals(shared)).toEqual(shared);
    // Values apart (a range between them) are not merged either.
    const apart = program('sequence_1 = set_list([4])', 'sequence_2 = range_func_up(1, 3)', 'sequence_3 = set_list([6])', 'sequence_4 = concatenate(sequence_1, sequence_2, sequence_3)', 'output = sequence_4');
    expect(mergeLiterals(apart)).toEqual(apart);
  });

  it('turns a concatenate of values only into one set_list', () => {
    const before = program('sequence_1 = set_list([1, 2])', 'sequence_2 = set_list([3])', 'sequence_3 = concatenate(sequence_1, sequence_2)', 'sequence_4 = reverse_list(sequence_3)', 'output = sequence_4');
    const after = mergeLiterals(before);
    expect(printProgram(after)).toBe(['sequence_1 = set_list([1, 2, 3])', 'sequence_2 = reverse_list(sequence_1)', 'output = sequence_2'].join('\n'));
    expect(runProgram(after)).toEqual([3, 2, 1]);
  });
});
