import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { generateProgram } from './generator';
import { parseProgram, printProgram, ProgramSyntaxError } from './program';

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
