import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { generateProgram } from './generator';
import { parseProgram, printProgram, ProgramSyntaxError } from './program';
import { lineBits, programBits } from './prior';

describe('program text', () => {
  it('parses the benchmark format, including CRLF and blank lines', () => {
    const program = parseProgram('sequence_1 = range_func_up(3, 9)\r\n\r\nsequence_2 = filter(is_even, sequence_1)\noutput = sequence_2\n');
    expect(program.lines).toHaveLength(2);
    expect(program.lines[1]).toEqual({ fn: 'filter', args: [{ kind: 'pred', name: 'is_even' }, { kind: 'ref', line: 0 }] });
    expect(program.output).toBe(1);
  });

  it('round-trips 1,000 generated programs through print and parse', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 1000; i++) {
      const text = printProgram(generateProgram(rng));
      expect(printProgram(parseProgram(text))).toBe(text);
    }
  });

  it('reports syntax errors with their line number', () => {
    const cases: [string, number, RegExp][] = [
      ['sequence_1 = range_func_up(3)\noutput = sequence_1', 1, /takes 2 arguments/],
      ['sequence_1 = range_func_up(3, 4)\nsequence_2 = reverse_list(sequence_2)\noutput = sequence_2', 2, /not an earlier line/],
      ['sequence_1 = nope(3)\noutput = sequence_1', 1, /unknown function/],
      ['sequence_1 = set_list([1, x])\noutput = sequence_1', 1, /expected an integer/],
      ['sequence_1 = range_func_up(3, 4)', 1, /missing the final/],
      ['sequence_1 = range_func_up(3, 4)\noutput = sequence_1\nsequence_2 = scan_add(sequence_1)', 3, /nothing may follow/],
    ];
    for (const [text, line, reason] of cases) {
      try {
        parseProgram(text);
        expect.unreachable(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ProgramSyntaxError);
        expect((error as ProgramSyntaxError).line).toBe(line);
        expect((error as Error).message).toMatch(reason);
      }
    }
  });
});

describe('bit prior', () => {
  const name = Math.log2(25);
  it('prices a worked example exactly as the kt prior specifies', () => {
    // line 0: range_func_up: name + 2 values = log2(25) + 16
    // line 1: filter: name + ref at line 1 (log2 2 = 1); kt does not pay for the predicate
    // line 2: concatenate of three refs at line 2: name + 2 * log2(3) under kt
    // output: name only
    const program = parseProgram(
      'sequence_1 = range_func_up(3, 9)\nsequence_2 = filter(is_even, sequence_1)\nsequence_3 = concatenate(sequence_1, sequence_2, sequence_1)\noutput = sequence_3',
    );
    const kt = lineBits(program, 'kt');
    expect(kt[0]).toBeCloseTo(name + 16, 10);
    expect(kt[1]).toBeCloseTo(name + 1, 10);
    expect(kt[2]).toBeCloseTo(name + 2 * Math.log2(3), 10);
    expect(kt[3]).toBeCloseTo(name, 10);
    // strict pays log2(3) for the predicate and one ref per concatenated sequence plus 3 bits of arity.
    const strict = lineBits(program, 'strict');
    expect(strict[1]).toBeCloseTo(name + 1 + Math.log2(3), 10);
    expect(strict[2]).toBeCloseTo(name + 3 * Math.log2(3) + 3, 10);
    expect(programBits(program, 'kt')).toBeCloseTo(kt.reduce((a, b) => a + b), 10);
  });

  it('prices every argument kind', () => {
    const program = parseProgram(
      [
        'sequence_1 = set_list([1, 2, 3])', // name + 24
        'sequence_2 = repeat_num(4, 7)', // name + 8 + log2(20)
        'sequence_3 = range_func_interval(0, 20, 5)', // name + 16 + 3
        'sequence_4 = repeat_list(2, sequence_1)', // name + log2(4) + 3
        'sequence_5 = max_n(sequence_3, 2)', // name + log2(5) + 8
        'output = sequence_5',
      ].join('\n'),
    );
    const bits = lineBits(program, 'kt');
    expect(bits[0]).toBeCloseTo(name + 24, 10);
    expect(bits[1]).toBeCloseTo(name + 8 + Math.log2(20), 10);
    expect(bits[2]).toBeCloseTo(name + 19, 10);
    expect(bits[3]).toBeCloseTo(name + 2 + 3, 10);
    expect(bits[4]).toBeCloseTo(name + Math.log2(5) + 8, 10);
  });
});
