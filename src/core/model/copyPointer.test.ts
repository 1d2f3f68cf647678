import { describe, expect, it } from 'vitest';
import { CopyPointer } from './copyPointer';
import { TokenInputs } from './tokenInputs';

// Numbers are tokens 10 .. 29 (0 .. 19); token 2 ends the prompt, token 1 is any other token.
const END = 2;
const OTHER = 1;
const pointer = new CopyPointer(10, 20, END);
const NONE = 20;

/** Per token of prompt + END + program (null: a token that is not a number): the next value's row and the match's row. */
function read(prompt: number[], program: (number | null)[]) {
  const row = [OTHER, ...prompt.map((v) => 10 + v), END, ...program.map((v) => (v === null ? OTHER : 10 + v))];
  const { index } = new TokenInputs([pointer]).ofRows([row]);
  const programAt = prompt.length + 2;
  return { next: [...index[0]].slice(programAt), match: [...index[1]].slice(programAt), promptRows: [...index[0]].slice(0, programAt) };
}

describe('the copy pointer', () => {
  it('gives each program number the prompt value after the longest stretch its run of numbers matches, so a copy keeps its place where a value comes twice', () => {
    // 5 7 3 5 7 9: after "5 7" the last value alone (7) is ambiguous, and so is "5 7"; after "3 5 7" only one stretch matches.
    const { next, match } = read([5, 7, 3, 5, 7, 9], [5, 7, 3, 5, 7, 9]);
    expect(next).toEqual([7, 3, 5, 7, 9, NONE]);
    // 2 x matched length + 1 when the longest stretch is the only one.
    expect(match).toEqual([2 * 1, 2 * 2, 2 * 3 + 1, 2 * 4 + 1, 2 * 5 + 1, 2 * 6 + 1]);
    // Matching the last value alone would have sent the copy after the first 7 (to 3) at the second 7.
    expect(next[4]).toBe(9);
  });

  it('starts afresh after a token that is not a number, reads none in the prompt, where nothing matches, and after the prompt\'s last value', () => {
    const { next, match, promptRows } = read([4, 6, 8], [4, 6, null, 6, 11]);
    expect(promptRows.every((row) => row === NONE)).toBe(true);
    expect(next).toEqual([6, 8, NONE, 8, NONE]);
    expect(match).toEqual([3, 5, 0, 3, 0]);
  });

  it('with resume, reads a program\'s statements as one copy: a token that is not a number points on from where the last number left off', () => {
    const resumed = new CopyPointer(10, 20, END, true);
    const row = [OTHER, ...[5, 7, 3, 5, 7, 9].map((v) => 10 + v), END, 15, 17, OTHER, OTHER, 13, 15, OTHER, 19];
    const { index } = new TokenInputs([resumed]).ofRows([row]);
    // "5 7" ties (the copy stands after either 7); the two tokens after it read the value after the first 7, resumed (row 1);
    // "3 5" then continues the copy: "5 7 3 5" is one stretch, and the token after it points on to 7.
    expect([...index[0]].slice(8)).toEqual([7, 3, 3, 3, 5, 7, 7, 20]);
    expect([...index[1]].slice(8)).toEqual([2, 4, 1, 1, 2 * 3 + 1, 2 * 4 + 1, 1, 2 * 1 + 1]); // the 9 matches once, at the prompt's end: nothing after it
    // Without resume the same program starts afresh at each token that is not a number.
    const fresh = new TokenInputs([pointer]).ofRows([row]).index;
    expect([...fresh[0]].slice(8)).toEqual([7, 3, NONE, NONE, 5, 7, NONE, NONE]);
  });

  it('reads long matches at the last row of its table', () => {
    const values = Array.from({ length: 18 }, (_, i) => i);
    const { match } = read(values, values);
    expect(match.at(-1)).toBe(2 * 15 + 1);
    expect(pointer.inputs().map(({ name, rows }) => [name, rows])).toEqual([['copy', 21], ['copylen', 32]]);
  });

  it('never changes a state it is given: rows of a batch may share one', () => {
    let state = pointer.start();
    for (const token of [15, 17, END, 15]) state = pointer.next(state, token);
    const before = JSON.stringify({ ...state, match: [...state.match!] });
    pointer.next(state, 17);
    pointer.next(state, OTHER);
    expect(JSON.stringify({ ...state, match: [...state.match!] })).toBe(before);
  });
});
