import { describe, expect, it } from 'vitest';
import { RunLengths } from './runLengths';

describe('run lengths', () => {
  // Numbers are tokens 10 .. 19 (0 .. 9); anything else ends a run.
  const runs = new RunLengths(10, 10);
  const lengths = (values: (number | null)[]) => [...runs.ofRows([values.map((v) => (v === null ? 1 : 10 + v))]).index];

  it('counts the values of one constant difference that end at each number: repeats, ranges and steps', () => {
    expect(lengths([4, 4, 4, 4])).toEqual([1, 2, 3, 4]); // a repeat
    expect(lengths([1, 2, 3, 5, 7, 9])).toEqual([1, 2, 3, 2, 3, 4]); // a range, then a step of 2 from its last value
    expect(lengths([3, 3, 3, 7, 7])).toEqual([1, 2, 3, 2, 2]); // the break makes a run of two, then a new repeat
  });

  it('starts afresh after a token that is not a number, and reads long runs at the last row of the table', () => {
    expect(lengths([2, 3, null, 4, 5])).toEqual([1, 2, 0, 1, 2]);
    expect(lengths(Array(14).fill(6))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9]);
  });

  it('goes on a token at a time as over whole rows (the KV cache decodes so)', () => {
    const row = [1, 10, 12, 14, 16, 3, 10, 10, 10, 15];
    const whole = runs.ofRows([row]);
    let state = runs.ofRows([row.slice(0, 4)]).states[0];
    const stepped = row.slice(4).map((token) => runs.index((state = runs.next(state, token))));
    expect(stepped).toEqual([...whole.index.slice(4)]);
    expect(state).toEqual(whole.states[0]);
  });
});
