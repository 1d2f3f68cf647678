import { describe, expect, it } from 'vitest';
import { programToTokens, tokensToProgram } from './grammar';
import { parseProgram, printProgram } from './program';
import { closeness, oneEditAway, oneSwapAway } from './repair';
import { FN0, REF0, valueToken } from './vocab';

describe('repair', () => {
  it('swaps one token at a time for a runner-up of the same kind, in order of position then rank', () => {
    const program = parseProgram('sequence_1 = repeat_num(16, 85)\nsequence_2 = range_func_up(3, 9)\nsequence_3 = concatenate(sequence_1, sequence_2)\noutput = sequence_3');
    const tokens = programToTokens(program);
    const alternatives = tokens.map(() => [] as number[]);
    const count = tokens.indexOf(valueToken(16));
    alternatives[count] = [valueToken(18), FN0, valueToken(17)]; // a function name is not a number: skipped
    const ref = tokens.lastIndexOf(REF0 + 1);
    alternatives[ref] = [REF0, valueToken(1)];
    const swaps = oneSwapAway(tokens, alternatives).map((t) => printProgram(tokensToProgram(t)).split('\n'));
    expect(swaps.map((lines) => lines.find((line, i) => line !== printProgram(program).split('\n')[i]))).toEqual([
      'sequence_1 = repeat_num(18, 85)',
      'sequence_1 = repeat_num(17, 85)',
      'sequence_3 = concatenate(sequence_1, sequence_1)',
    ]);
    expect(oneSwapAway(tokens, [])).toEqual([]);
  });

  it('also drops a number or inserts a runner-up number before one, moving the runner-ups along', () => {
    const tokens = programToTokens(parseProgram('sequence_1 = set_list([4, 6])\noutput = sequence_1'));
    const alternatives = tokens.map(() => [] as number[]);
    alternatives[tokens.indexOf(valueToken(6))] = [valueToken(5)];
    const edits = oneEditAway({ tokens, alternatives });
    const texts = edits.map((edit) => {
      try {
        return printProgram(tokensToProgram(edit.tokens)).split('\n')[0];
      } catch {
        return 'invalid';
      }
    });
    expect(texts).toEqual(['sequence_1 = set_list([4, 5])', 'sequence_1 = set_list([6])', 'sequence_1 = set_list([4])', 'sequence_1 = set_list([4, 5, 6])']);
    edits.forEach((edit) => expect(edit.alternatives).toHaveLength(edit.tokens.length));
    const inserted = edits[3];
    expect(inserted.alternatives[inserted.tokens.indexOf(valueToken(6))]).toEqual([valueToken(5)]);
  });

  it('measures closeness as the agreeing start plus end, at most the target, and -1 without output', () => {
    const target = [1, 2, 3, 4, 5, 6];
    expect(closeness([1, 2, 9, 9, 5, 6], target)).toBe(4);
    expect(closeness([1, 2, 3, 5, 6], target)).toBe(5); // one value missing in the middle
    expect(closeness(target, target)).toBe(6);
    expect(closeness([7, 7], target)).toBe(0);
    expect(closeness(null, target)).toBe(-1);
  });
});
