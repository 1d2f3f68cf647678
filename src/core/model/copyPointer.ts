/**
 * Where a copy of the prompt stands. A program that copies part of its prompt (a `set_list` of
 * the values as they are) writes the values one after another; the policy finds the next one by
 * matching what it just wrote against the prompt. Matching the last value alone jumps where that
 * value occurs twice, and the copy loses its place: the Kolmogorov policy shipped before the pointer
 * wrote 12 of 101 short dev sequences whose list holds such a value (docs/kolmogorov.md). The pointer matches the whole run
 * of numbers the program has written since its last other token: at each program number it finds
 * the longest stretch of the prompt that ends in that run's last values, and gives the policy
 * the prompt value just after it (the value a copy writes next), how many values matched (up to
 * 15), and whether that longest stretch is the only one.
 *
 * Prompt and program are told apart by the token that ends the prompt (`end`): numbers before it
 * are the prompt, tokens after it the program. Prompt tokens read the "none" rows, and so do
 * program tokens that are not numbers, where the run starts afresh.
 *
 * With `resume`, a program's statements are read as one copy: a token that is not a number keeps
 * the match, and reads the last value pointed to with a match row of its own (1: resumed). A list
 * written after a list (or after a range that ends on a prompt value) is then pointed to where
 * the one before it stopped: where the generator's programs start their next piece. modeling_prl.py
 * computes the same.
 */
import type { InputTable, TokenInput } from './tokenInputs';

export interface CopyState {
  /** The prompt's numbers (0 .. count - 1). */
  prompt: readonly number[];
  /** Past the prompt's end token. */
  inProgram: boolean;
  /** Per prompt position, how many of the program's last numbers match the prompt ending there (null: none written since the last other token). */
  match: Int32Array | null;
  /** The rows the last token reads: the next value's (count: none) and the match's. */
  rows: readonly [number, number];
}

/** Matches are read up to this many values. */
export const MATCH_MAX = 15;

export class CopyPointer implements TokenInput<CopyState> {
  private readonly none: readonly [number, number];

  /** Tokens first .. first + count - 1 stand for the numbers 0 .. count - 1; `end` ends the prompt. */
  constructor(readonly first: number, readonly count: number, readonly end: number, readonly resume = false) {
    this.none = [count, 0];
  }

  /** The next value (count + 1 rows, the last: none; its number code moved by seed 10), and the match: 2 x its length (1 .. 15) + 1 when it is the only longest; 0 none, 1 resumed. */
  inputs(): InputTable[] {
    return [
      { name: 'copy', rows: this.count + 1, code: { count: this.count, seed: 10 } },
      { name: 'copylen', rows: 2 * (MATCH_MAX + 1) },
    ];
  }

  start(): CopyState {
    return { prompt: [], inProgram: false, match: null, rows: this.none };
  }

  next(state: CopyState, token: number): CopyState {
    const value = token - this.first;
    const isNumber = value >= 0 && value < this.count;
    if (!state.inProgram) {
      if (token === this.end) return { ...state, inProgram: true };
      return isNumber ? { ...state, prompt: [...state.prompt, value] } : state;
    }
    if (!isNumber) {
      if (!this.resume) return { ...state, match: null, rows: this.none };
      return { ...state, rows: state.rows[0] === this.count ? this.none : [state.rows[0], 1] };
    }
    const { prompt } = state;
    const match = new Int32Array(prompt.length);
    let best = 0;
    let at = -1;
    let ties = 0;
    for (let j = 0; j < prompt.length; j++) {
      if (prompt[j] !== value) continue;
      match[j] = 1 + (j > 0 && state.match ? state.match[j - 1] : 0);
      if (match[j] > best) [best, at, ties] = [match[j], j, 1];
      else if (match[j] === best) ties += 1;
    }
    if (best === 0) return { ...state, match, rows: this.none };
    const following = at + 1 < prompt.length ? prompt[at + 1] : this.count;
    return { ...state, match, rows: [following, 2 * Math.min(best, MATCH_MAX) + (ties === 1 ? 1 : 0)] };
  }

  rows(state: CopyState): number[] {
    return [...state.rows];
  }
}
