import { describe, expect, it } from 'vitest';
import { parseProgram } from './program';
import { lineBits, programBits } from './prior';

// Worked by hand from docs/kolmogorov-spec.md: F = 24 functions, so naming one costs log2(25) = 4.6439
// bits; a value 8 bits; a small argument log2(8) = 3; a repeat count log2(20) = 4.3219; a
// reference on line i (0-based) log2(i + 1); the output line only its name.
const name = Math.log2(25);

describe('bit prior', () => {
  it('prices a worked example under kt and strict', () => {
    const program = parseProgram(
      [
        'sequence_1 = range_func_up(3, 9)', // line 0: name + 2 values = 4.6439 + 16
        'sequence_2 = filter(is_even, sequence_1)', // line 1: name + ref log2(2) = 1; kt ignores the predicate
        'sequence_3 = concatenate(sequence_1, sequence_2, sequence_1)', // line 2: kt pays 2 refs of log2(3)
        'output = sequence_3', // name only
      ].join('\n'),
    );
    const kt = lineBits(program, 'kt');
    expect(kt).toHaveLength(4);
    expect(kt[0]).toBeCloseTo(name + 16, 10);
    expect(kt[1]).toBeCloseTo(name + 1, 10);
    expect(kt[2]).toBeCloseTo(name + 2 * Math.log2(3), 10);
    expect(kt[3]).toBeCloseTo(name, 10);
    // 4 * 4.6439 + 16 + 1 + 2 * 1.5850 = 38.7453
    expect(programBits(program, 'kt')).toBeCloseTo(38.7453497605, 8);

    // strict: the predicate costs log2(3); concatenate pays one ref per sequence (3 * log2(3))
    // and log2(8) = 3 bits for its arity: 38.7453 + 1.5850 + 1.5850 + 3 = 44.9153.
    const strict = lineBits(program, 'strict');
    expect(strict[0]).toBeCloseTo(kt[0], 10);
    expect(strict[1]).toBeCloseTo(name + 1 + Math.log2(3), 10);
    expect(strict[2]).toBeCloseTo(name + 3 * Math.log2(3) + 3, 10);
    expect(programBits(program, 'strict')).toBeCloseTo(44.9152747620, 8);
  });

  it('prices every function by its argument kinds', () => {
    const rows: [string, number][] = [
      ['sequence_1 = set_list([1, 2, 3])', name + 3 * 8], // line 0, three values
      ['sequence_2 = repeat_num(4, 7)', name + 8 + Math.log2(20)], // a value and a repeat count
      ['sequence_3 = range_func_interval(0, 20, 5)', name + 16 + 3], // two values and a small range
      ['sequence_4 = repeat_list(2, sequence_1)', name + Math.log2(4) + 3], // line 3: ref log2(4) = 2
      ['sequence_5 = max_n(sequence_3, 2)', name + Math.log2(5) + 8],
      ['sequence_6 = min_n(sequence_3, 2)', name + Math.log2(6) + 8],
      ['sequence_7 = reverse_list(sequence_1)', name + Math.log2(7)],
      ['sequence_8 = substitute(sequence_7, 1, 9)', name + 3 + 16], // ref log2(8) = 3 and two values
      ['sequence_9 = get_subsequence_with_jumps(sequence_8, 2)', name + Math.log2(9) + 3],
      ['sequence_10 = get_subsequence_between_indices(sequence_8, 0, 2)', name + Math.log2(10) + 16],
      ['sequence_11 = add_item_list(sequence_1, 3)', name + Math.log2(11) + 8],
      ['sequence_12 = subtract_item_list(sequence_11, 1)', name + Math.log2(12) + 8],
      ['sequence_13 = modulo_item_list(sequence_12, 2)', name + Math.log2(13) + 8],
      ['sequence_14 = add_two_lists(sequence_1, sequence_11)', name + 2 * Math.log2(14)],
      ['sequence_15 = subtract_two_lists(sequence_11, sequence_1)', name + 2 * Math.log2(15)],
      ['sequence_16 = modulo_two_lists(sequence_11, sequence_1)', name + 4 + 4], // 2 refs of log2(16) = 4
      ['sequence_17 = scan_add(sequence_1)', name + Math.log2(17)],
      ['sequence_18 = interleave(sequence_1, sequence_17)', name + 2 * Math.log2(18)],
      ['sequence_19 = concatenate(sequence_18, sequence_1)', name + 2 * Math.log2(19)],
    ];
    const program = parseProgram([...rows.map(([line]) => line), 'output = sequence_19'].join('\n'));
    for (const prior of ['kt', 'strict'] as const) {
      const bits = lineBits(program, prior);
      // Without filter and with two-sequence concatenate, strict and kt agree except for
      // strict's 3 arity bits on concatenate.
      rows.forEach(([line, expected], i) => expect(bits[i], `${prior}: ${line}`).toBeCloseTo(expected + (prior === 'strict' && i === 18 ? 3 : 0), 10));
      expect(bits[rows.length]).toBeCloseTo(name, 10);
    }
  });

  it('charges references by the line that makes them, so later lines cost more', () => {
    const early = parseProgram('sequence_1 = range_func_up(1, 5)\nsequence_2 = reverse_list(sequence_1)\noutput = sequence_2');
    const late = parseProgram(
      'sequence_1 = range_func_up(1, 5)\nsequence_2 = range_func_up(1, 5)\nsequence_3 = range_func_up(1, 5)\nsequence_4 = reverse_list(sequence_1)\noutput = sequence_4',
    );
    expect(lineBits(early, 'kt')[1]).toBeCloseTo(name + 1, 10); // log2(2)
    expect(lineBits(late, 'kt')[3]).toBeCloseTo(name + 2, 10); // log2(4)
  });
});
