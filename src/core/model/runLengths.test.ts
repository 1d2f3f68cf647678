import { describe, expect, it } from 'vitest';
import { RunLengths } from './runLengths';
import { TokenInputs } from './tokenInputs';

// Numbers are tokens 10 .. 19 (0 .. 9); anything else (null here) ends a run.
const tokens = (values: (number | null)[]) => values.map((v) => (v === null ? 1 : 10 + v));

describe('run lengths', () => {
  const runs = new RunLengths(10, 10);
  const lengths = (values: (number | null)[]) => [...new TokenInputs([runs]).ofRows([tokens(values)]).index[0]];

  it('counts the values of one constant difference that end at each number: repeats, ranges and steps', () => {
    expect(lengths([4, 4, 4, 4])).toEqual([1, 2, 3, 4]); // a repeat
    expect(lengths([1, 2, 3, 5, 7, 9])).toEqual([1, 2, 3, 2, 3, 4]); // a range, then a step of 2 from its last value
    expect(lengths([3, 3, 3, 7, 7])).toEqual([1, 2, 3, 2, 2]); // the break makes a run of two, then a new repeat
  });

  it('starts afresh after a token that is not a number, and reads long runs at the last row of the table', () => {
    expect(lengths([2, 3, null, 4, 5])).toEqual([1, 2, 0, 1, 2]);
    expect(lengths(Array(14).fill(6))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9]);
  });

  it('with stride 2, sees the two streams of an interleave: their runs and their differences', () => {
    const two = new RunLengths(10, 10, 2, 2);
    expect(two.inputs().map((input) => input.name)).toEqual(['runlen', 'runlen2', 'delta2']);
    // interleave([1, 2, 3, 4], [7, 7, 7]): 1 7 2 7 3 7 4
    const { index } = new TokenInputs([two]).ofRows([tokens([1, 7, 2, 7, 3, 7, 4])]);
    expect([...index[0]]).toEqual([1, 2, 2, 2, 2, 2, 2]); // stride 1: every difference breaks the run
    expect([...index[1]]).toEqual([1, 1, 2, 2, 3, 3, 4]); // stride 2: each stream's run so far
    // Differences from two back, clipped to -3..3 (rows 0..6), row 7 where there is none yet.
    expect([...index[2]]).toEqual([7, 7, 4, 3, 4, 3, 4]);
  });
});
